// Locality hints and per-place data for the kernels (NUMA-WS section III-A
// and V: the hinted versions of cg, cilksort, heat, hull, matmul). Only the
// locus backend acts on them; the others run the same kernel text unhinted
// (places() is 1 for them), so every implementation still does the same work.
//
//   bench::places<P>()                      places to split the data over
//   bench::fork_at<P>(pf, f, pg, g)         fork2, f hinted at place pf, g at pg
//   bench::fork_worked<P>(wf, f, wg, g)     fork2 with the work hints wf, wg
//                                           (ADWS, seed 003 section 3.1)
//   bench::place_loop<P>(lo, hi, grain, b)  P::loop, block p of [lo, hi) hinted
//                                           at place p (place_block's split)
//   bench::place_blocks(span)               in prepare(): move block p of the
//                                           array's pages to place p (locus
//                                           variants only: g_data; or
//                                           interleave them, put them all at
//                                           place 0, or leave them)
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <locus/locus.hpp>

#include "common/locus_backend.hpp"

namespace bench {

// Set by the runner while a locus pool runs a variant (every policy: ws
// ignores hints, but the data layout is the program's, not the scheduler's):
// blocks (the default), interleaved pages or first touch (the variant's
// +interleave, +first-touch; the NUMA-WS paper ran Cilk Plus with the
// better of these two). Other implementations keep first touch.
inline data_layout g_data = data_layout::first_touch;

template <class P>
constexpr bool hints_apply = std::is_same_v<P, locus_backend>;

template <class P>
int places() {
  if constexpr (hints_apply<P>) return locus::num_places();
  else return 1;
}

// Place q of `parts` parts when there are `places()` places: parts spread
// evenly (with 4 parts: 0,1,2,3 on 4 places, 0,0,1,1 on 2, all 0 on 1).
inline int part_place(int q, int parts, int places) { return q * places / parts; }

// `bytes` (0: not given): the fork's working set, for the multi-level
// policies (locus::footprint).
template <class P, class F, class G>
void fork_at(int pf, F&& f, int pg, G&& g, std::size_t bytes = 0) {
  if constexpr (hints_apply<P>) {
    // Both branches are children of one group, equal work each: the first
    // spawned takes the upper half of the ADWS policies' range, so it is
    // the one at the higher place, and their mapping agrees with the hints
    // (seed 003, section 3.1). A branch run in the parent instead kept the
    // parent's whole range: a group it opened spread over both halves (and
    // under ml-adws was flattened over the other branch's caches, which
    // then waited for it; matmul n = 2048 idled 2.9 s of 6.4).
    const locus::work_hint total = locus::work(2);
    locus::task_group group = bytes == 0 ? locus::task_group(total) : locus::task_group(total, locus::footprint(bytes));
    if (pf >= pg) {
      group.spawn(std::forward<F>(f), locus::at(pf), locus::work(1));
      group.spawn(std::forward<G>(g), locus::at(pg), locus::work(1));
    } else {
      group.spawn(std::forward<G>(g), locus::at(pg), locus::work(1));
      group.spawn(std::forward<F>(f), locus::at(pf), locus::work(1));
    }
    group.sync();
  } else {
    P::fork2(std::forward<F>(f), std::forward<G>(g));
  }
}

// A fork whose branches declare their working sets (seed 003: the sizes
// of figure 2b) besides their work: read by the multi-level policies
// (ml-ws), ignored by every other, absent from the other implementations.
template <class P, class F, class G>
void fork_sized(double wf, std::size_t bf, F&& f, double wg, std::size_t bg, G&& g) {
  if constexpr (hints_apply<P>)
    locus::fork_join(locus::with(std::forward<F>(f), locus::work(wf), locus::footprint(bf)),
                     locus::with(std::forward<G>(g), locus::work(wg), locus::footprint(bg)));
  else
    P::fork2(std::forward<F>(f), std::forward<G>(g));
}

// The ADWS benchmarks' binary fork (seed 003, figure 2b): each branch's
// work (its elements) when `hints`, else equal work, the paper's 1 : 1
// guess (section 6.3), and always its working set.
template <class P, class F, class G>
void fork_split(bool hints, std::int64_t nf, std::size_t bf, F&& f, std::int64_t ng, std::size_t bg, G&& g) {
  fork_sized<P>(hints ? static_cast<double>(nf) : 1.0, bf, std::forward<F>(f), hints ? static_cast<double>(ng) : 1.0,
                bg, std::forward<G>(g));
}

// P::loop over a range whose pieces touch `bytes` in all, in proportion
// to their iterations: for locus a plain parallel_for that declares it
// (locus::footprint), unless the run asked for another loop kind.
template <class P, class Body>
void sized_loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, std::size_t bytes, Body&& body) {
  if constexpr (hints_apply<P>) {
    if (P::loops == locus_loops::plain && hi > lo)
      return locus::parallel_for(lo, hi, grain, [&](std::int64_t a, std::int64_t b) { body(a, b); },
                                 locus::footprint(bytes));
  }
  P::loop(lo, hi, grain, std::forward<Body>(body));
}

template <class P, class Body>
void place_loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body, std::size_t bytes = 0) {
  const int n = places<P>();
  // `bytes` (0: not given): the loop's working set, for the multi-level
  // policies; each block declares its share.
  auto loop = [&](std::int64_t b, std::int64_t e) {
    if (bytes == 0) return P::loop(b, e, grain, body);
    sized_loop<P>(b, e, grain,
                  static_cast<std::size_t>(static_cast<double>(bytes) * static_cast<double>(e - b) /
                                           static_cast<double>(hi - lo)),
                  body);
  };
  if (n == 1 || hi - lo < n) return loop(lo, hi);
  if constexpr (hints_apply<P>) {
    // +nacs: the loop's own block distribution places the blocks; +noap
    // and +ap: standard TBB's loops, no place at all.
    if (!place_hinted(P::loops)) return loop(lo, hi);
    // Each block's rows are its work (the ADWS policies map the blocks by
    // them, seed 003 section 3.1). A child takes its share from the top of
    // the group's range, so the last place's block is spawned first: block
    // p gets the p-th share of the workers, which are place p's.
    const locus::work_hint total = locus::work(static_cast<double>(hi - lo));
    locus::task_group group = bytes == 0 ? locus::task_group(total) : locus::task_group(total, locus::footprint(bytes));
    for (int p = n - 1; p >= 0; --p) {
      const auto block = locus::place_block(static_cast<std::size_t>(hi - lo), p, n);
      const std::int64_t b = lo + static_cast<std::int64_t>(block.begin), e = lo + static_cast<std::int64_t>(block.end);
      group.spawn([&, b, e] { loop(b, e); }, locus::at(p), locus::work(static_cast<double>(e - b)));
    }
    group.sync();
  }
}

// P::reduce with the blocks of place_loop; the blocks' sums are added in
// place order.
template <class P, class Body>
double place_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
  const int n = places<P>();
  if (n == 1 || hi - lo < n) return P::reduce(lo, hi, grain, body);
  if constexpr (hints_apply<P>) {
    if (!place_hinted(P::loops)) return P::reduce(lo, hi, grain, body);  // as place_loop
    std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
    place_loop<P>(0, n, 1, [&](std::int64_t a, std::int64_t b) {
      for (std::int64_t p = a; p < b; ++p) {
        const auto block = locus::place_block(static_cast<std::size_t>(hi - lo), static_cast<int>(p), n);
        sums[static_cast<std::size_t>(p)] = P::reduce(lo + static_cast<std::int64_t>(block.begin),
                                                      lo + static_cast<std::int64_t>(block.end), grain, body);
      }
    });
    double total = 0.0;
    for (double x : sums) total += x;
    return total;
  }
  return 0.0;
}

template <class T>
void place_blocks(std::span<T> data) {
  if (data.empty()) return;
  if (g_data == data_layout::blocks) locus::move_to_places(data);
  else if (g_data == data_layout::interleave) locus::move_interleaved(data);
  else if (g_data == data_layout::serial_init) locus::distribute(data, locus::block_distribution(static_cast<std::int64_t>(data.size()), 1));
}

}  // namespace bench
