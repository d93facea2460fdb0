// Loops built on fork_join.
//
//   locus::parallel_for(0, n, [&](std::int64_t i) { a[i] = f(i); });        // automatic
//   locus::parallel_for(0, n, 1024, [&](std::int64_t lo, std::int64_t hi) { ... });
//   double s = locus::parallel_reduce(0, n, 0.0,
//       [&](std::int64_t lo, std::int64_t hi, double acc) { ... return acc; },
//       std::plus<>());
//   locus::parallel_for(0, n, body, locus::static_partition);   // block k on worker k
//   locus::loop_affinity aff;                                    // across time steps:
//   locus::parallel_for(0, n, body, aff);                        //   same sub-range, same worker
//   locus::block_distribution rows(n);                           // data distribution:
//   locus::parallel_for(0, n, body, rows);                       //   sub-range at its data's place
//
// How the range is divided (locus/partition.hpp): without a grain, lazy
// binary splitting (split only when this worker's deque is empty, so when a
// thief may want work); with a grain, halves down to pieces of at most grain
// iterations; with static_partition, one contiguous block per worker; with a
// loop_affinity, a few sub-ranges per worker, each where it ran last time;
// with a distribution (locus/distribution.hpp), halves hinted at their
// place (locus::at) until each has one, then as without it inside.
// Pieces run left to right in the serial elision. Each fork carries its
// halves' iteration counts as work hints (locus/hints.hpp: read by adws). An empty or reversed range
// runs nothing. grain must be at least 1.
//
// The reduce body takes (lo, hi, acc) and returns acc folded with the
// sub-range; combine(left, right) joins two partial results and must be
// associative; identity must be its neutral element. Partial results are
// combined in range order, so combine need not be commutative.
#pragma once

#include <atomic>
#include <cstdint>
#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/distribution.hpp"
#include "locus/fork_join.hpp"
#include "locus/hints.hpp"
#include "locus/partition.hpp"
#ifndef LOCUS_SERIAL_ELISION
#include "locus/detail/posted_loops.hpp"
#include "locus/runtime.hpp"
#endif

namespace locus {

// Stops a parallel_for early (oneTBB: cancel_group_execution on the loop's
// task_group_context; rayon: find_any, try_for_each):
//
//   locus::cancellation stop;
//   locus::parallel_for(0, n, [&](std::int64_t i) { if (match(i)) { found = i; stop.cancel(); } }, stop);
//
// Cooperative: an index body is not called again once cancel() is seen (it
// is checked before each index), a range body not for a piece that starts
// after it; a call that is running finishes. The loop returns when every
// piece it started has ended. reset() before using it for another loop.
class cancellation {
 public:
  void cancel() noexcept { flag_.store(true, std::memory_order_relaxed); }
  bool is_canceled() const noexcept { return flag_.load(std::memory_order_relaxed); }
  void reset() noexcept { flag_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> flag_{false};
};

inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_loop {

// A loop body that stops once `stop` is canceled.
template <class Body>
auto stoppable(Body& body, const cancellation& stop) {
  return [&body, &stop](std::int64_t lo, std::int64_t hi) {
    if constexpr (std::is_invocable_v<Body&, std::int64_t, std::int64_t>) {
      if (!stop.is_canceled()) body(lo, hi);
    } else {
      static_assert(std::is_invocable_v<Body&, std::int64_t>, "locus::parallel_for body must take (index) or (lo, hi)");
      for (std::int64_t i = lo; i < hi && !stop.is_canceled(); ++i) body(i);
    }
  };
}

inline void check_grain(std::int64_t grain, const char* who) {
  if (grain < 1)
    throw std::invalid_argument(std::string(who) + ": grain must be >= 1 (iterations per leaf), got " +
                                std::to_string(grain));
}

template <class Body>
void run_leaf_untraced(Body& body, std::int64_t lo, std::int64_t hi) {
  if constexpr (std::is_invocable_v<Body&, std::int64_t, std::int64_t>) {
    body(lo, hi);
  } else {
    static_assert(std::is_invocable_v<Body&, std::int64_t>,
                  "locus::parallel_for body must take (index) or (lo, hi)");
    for (std::int64_t i = lo; i < hi; ++i) body(i);
  }
}

#ifndef LOCUS_SERIAL_ELISION
// Tracing: the leaf is a slice carrying its range.
template <class Body>
[[gnu::noinline]] void run_leaf_traced(Body& body, std::int64_t lo, std::int64_t hi) {
  struct closer {
    detail::trace_token t;
    ~closer() { detail::trace_end(t); }
  } c{detail::trace_begin(detail::slice_kind::loop, nullptr, lo, hi, {})};
  run_leaf_untraced(body, lo, hi);
}
#endif

template <class Body>
void run_leaf(Body& body, std::int64_t lo, std::int64_t hi) {
#ifndef LOCUS_SERIAL_ELISION
  if (detail::g_tracing) [[unlikely]] return run_leaf_traced(body, lo, hi);
#endif
  run_leaf_untraced(body, lo, hi);
}

template <class Body>
void split_for(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
  if (hi - lo <= grain) return run_leaf(body, lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
  fork_join(with([&] { split_for(lo, mid, grain, body); }, work(double(mid - lo))),
            with([&] { split_for(mid, hi, grain, body); }, work(double(hi - mid))));
}

// The bytes of `iterations` iterations of a loop that declared its
// footprint, in proportion to the iterations.
inline footprint_hint share_of(double bytes_per_iteration, std::int64_t iterations) {
  return footprint(static_cast<std::size_t>(bytes_per_iteration * static_cast<double>(iterations)));
}

// split_for with each half's share of the loop's footprint.
template <class Body>
void split_for_sized(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body, double bytes_per_iteration) {
  if (hi - lo <= grain) return run_leaf(body, lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
  fork_join(with([&] { split_for_sized(lo, mid, grain, body, bytes_per_iteration); }, work(double(mid - lo)),
                 share_of(bytes_per_iteration, mid - lo)),
            with([&] { split_for_sized(mid, hi, grain, body, bytes_per_iteration); }, work(double(hi - mid)),
                 share_of(bytes_per_iteration, hi - mid)));
}

template <class T, class Body, class Combine>
T split_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, const T& identity, Body& body,
               Combine& combine) {
  if (hi - lo <= grain) return body(lo, hi, T(identity));
  const std::int64_t mid = lo + (hi - lo) / 2;
  T left = identity;
  T right = identity;
  fork_join(with([&] { left = split_reduce(lo, mid, grain, identity, body, combine); }, work(double(mid - lo))),
            with([&] { right = split_reduce(mid, hi, grain, identity, body, combine); }, work(double(hi - mid))));
  return combine(std::move(left), std::move(right));
}

// Lazy binary splitting (Tzannes et al., PPoPP 2010): run `chunk`
// iterations at a time and split the rest in half only when this worker's
// deque is empty, i.e. when nothing of ours is there for a thief to take.
// On one worker this splits about log2(n / chunk) times in all.
template <class Body>
void lazy_for(std::int64_t lo, std::int64_t hi, std::int64_t chunk, Body& body) {
  while (hi - lo > chunk) {
#ifndef LOCUS_SERIAL_ELISION
    // Off the pool (a thread that is not a worker), fork_join submits the
    // whole split as one root task.
    const detail::worker_view* w = detail::current_worker();
    if (w == nullptr || w->deque.looks_empty()) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      fork_join(with([&] { lazy_for(lo, mid, chunk, body); }, work(double(mid - lo))),
                with([&] { lazy_for(mid, hi, chunk, body); }, work(double(hi - mid))));
      return;
    }
#endif
    run_leaf(body, lo, lo + chunk);
    lo += chunk;
  }
  run_leaf(body, lo, hi);
}

template <class T, class Body, class Combine>
T lazy_reduce(std::int64_t lo, std::int64_t hi, std::int64_t chunk, const T& identity, Body& body,
              [[maybe_unused]] Combine& combine) {
  T acc = identity;
  while (hi - lo > chunk) {
#ifndef LOCUS_SERIAL_ELISION
    // Off the pool (a thread that is not a worker), fork_join submits the
    // whole split as one root task.
    const detail::worker_view* w = detail::current_worker();
    if (w == nullptr || w->deque.looks_empty()) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      T left = identity;
      T right = identity;
      fork_join(with([&] { left = lazy_reduce(lo, mid, chunk, identity, body, combine); }, work(double(mid - lo))),
                with([&] { right = lazy_reduce(mid, hi, chunk, identity, body, combine); }, work(double(hi - mid))));
      return combine(std::move(acc), combine(std::move(left), std::move(right)));
    }
#endif
    acc = body(lo, lo + chunk, std::move(acc));
    lo += chunk;
  }
  return body(lo, hi, std::move(acc));
}

// The chunk of lazy splitting: a small share of each worker's part of the
// range, so splitting checks are rare but the last chunks still balance.
inline std::int64_t auto_chunk(std::int64_t n) {
#ifdef LOCUS_SERIAL_ELISION
  return n;
#else
  const std::int64_t c = n / (std::int64_t{locus::num_workers()} * 64);
  return c > 0 ? c : 1;
#endif
}

// Runs [lo, hi) of a sub-range as a loop without a partition object would:
// halves down to grain, or lazy splitting when grain is 0 (automatic).
template <class Body>
void split_any(std::int64_t lo, std::int64_t hi, std::int64_t grain, std::int64_t chunk, Body& body) {
  if (grain > 0) split_for(lo, hi, grain, body);
  else lazy_for(lo, hi, chunk, body);
}

template <class T, class Body, class Combine>
T split_reduce_any(std::int64_t lo, std::int64_t hi, std::int64_t grain, std::int64_t chunk, const T& identity,
                   Body& body, Combine& combine) {
  if (grain > 0) return split_reduce(lo, hi, grain, identity, body, combine);
  return lazy_reduce(lo, hi, chunk, identity, body, combine);
}

// Partition tags and objects (locus/partition.hpp).
template <class P>
inline constexpr bool is_partition_v =
    std::is_same_v<std::remove_cvref_t<P>, static_partition_t> || std::is_same_v<std::remove_cvref_t<P>, loop_affinity>;

// A posted loop: static blocks or affinity sub-ranges; run(index, lo, hi).
template <class Run>
void run_partitioned(std::int64_t lo, std::int64_t hi, std::int64_t grain, Run& run, static_partition_t) {
  (void)grain;
#ifdef LOCUS_SERIAL_ELISION
  run(0, lo, hi);
#else
  detail::run_static(lo, hi, run);
#endif
}
template <class Run>
void run_partitioned(std::int64_t lo, std::int64_t hi, std::int64_t grain, Run& run, loop_affinity& affinity) {
#ifdef LOCUS_SERIAL_ELISION
  (void)grain;
  (void)affinity;
  run(0, lo, hi);
#else
  detail::affinity_access::run(affinity, lo, hi, grain > 0 ? grain : 1, run);
#endif
}
// How many partial results a posted reduction over n iterations can need.
template <class P>
std::size_t max_pieces(std::int64_t n, const P&) {
#ifdef LOCUS_SERIAL_ELISION
  (void)n;
  return 1;
#else
  std::int64_t k = locus::num_workers();
  if constexpr (std::is_same_v<std::remove_cvref_t<P>, loop_affinity>) k *= loop_affinity::pieces_per_worker;
  return static_cast<std::size_t>(k < n ? k : n);
#endif
}
template <class P>
std::size_t pieces_run(std::size_t max, const P& part) {
  if constexpr (std::is_same_v<std::remove_cvref_t<P>, loop_affinity>) {
#ifndef LOCUS_SERIAL_ELISION
    return part.pieces();
#endif
  }
  (void)part;
  return max;
}

// Runs the whole loop on the pool when called from a thread that is not a
// worker (posting needs a worker's inbox).
template <class Fn>
void on_a_worker(Fn&& fn) {
#ifndef LOCUS_SERIAL_ELISION
  if (detail::current_worker() == nullptr) return fork_join(fn, [] {});
#endif
  fn();
}

template <class Body, class Part>
void partitioned_for(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body, Part& part) {
  on_a_worker([&] {
    const std::int64_t chunk = auto_chunk(hi - lo);
    if constexpr (std::is_same_v<std::remove_cvref_t<Part>, static_partition_t>) {
      auto run = [&](std::size_t, std::int64_t a, std::int64_t b) { run_leaf(body, a, b); };
      run_partitioned(lo, hi, grain, run, part);
    } else {
      auto run = [&](std::size_t, std::int64_t a, std::int64_t b) { split_any(a, b, grain, chunk, body); };
      run_partitioned(lo, hi, grain, run, part);
    }
  });
}

template <class T, class Body, class Combine, class Part>
T partitioned_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, const T& identity, Body& body,
                     Combine& combine, Part& part) {
  T total = identity;
  on_a_worker([&] {
    const std::int64_t chunk = auto_chunk(hi - lo);
    // One partial result per sub-range, combined in range order: a loop's
    // set-up, not the spawn fast path, so a vector is fine here.
    std::vector<T> partial(max_pieces(hi - lo, part), identity);
    auto run = [&](std::size_t i, std::int64_t a, std::int64_t b) {
      if constexpr (std::is_same_v<std::remove_cvref_t<Part>, static_partition_t>) partial[i] = body(a, b, T(identity));
      else partial[i] = split_reduce_any(a, b, grain, chunk, identity, body, combine);
    };
    run_partitioned(lo, hi, grain, run, part);
    const std::size_t used = pieces_run(partial.size(), part);
    for (std::size_t i = 0; i < used; ++i) total = combine(std::move(total), std::move(partial[i]));
  });
  return total;
}

// Data distributions (TBB-NUMA section 4.5, NACS).
template <class D>
inline constexpr bool is_distribution_v = std::is_base_of_v<distribution, std::remove_cvref_t<D>>;

inline void check_distribution(std::int64_t n, const distribution& d, const char* who) {
  if (n != d.size())
    throw std::invalid_argument(std::string(who) + ": the loop has " + std::to_string(n) +
                                " iterations but its distribution describes " + std::to_string(d.size()) +
                                " (iteration begin + k is element k of the distribution)");
}

// Where sub-range [lo, hi) is sent as the loop unfolds: its place, or if
// it spans several, the place of its first iteration, so that the upper
// levels of the tree go where their first leaves are and are unfolded
// there (for a block distribution over 2^k places, every half lands on the
// place of the blocks it holds).
inline int unfold_place(const distribution& d, std::int64_t lo, int place) {
#ifdef LOCUS_SERIAL_ELISION
  (void)d;
  (void)lo;
  return place;
#else
  return place != -1 ? place : detail::checked_place_of(d, lo, lo + 1);
#endif
}

// Unfolds [lo, hi) in halves, each forked with its unfold_place (d's
// places are relative to `base`, the loop's begin) and its iteration count
// as work, until a sub-range has a place (`place`, d.place_of) and is at
// most `grain` iterations (grain 0: any size); leaf(lo, hi) runs it.
// Submission order (TBB-NUMA section 4.4.3): the half for this worker's
// place runs here and the other is forked off, so it is offered to its
// place first.
template <class T, class Leaf, class Combine>
T distributed_split(std::int64_t lo, std::int64_t hi, std::int64_t base, std::int64_t grain, const distribution& d,
                    int place, const T& identity, Leaf& leaf, Combine& combine) {
  if (hi - lo == 1 || (place != -1 && (grain == 0 || hi - lo <= grain))) return leaf(lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
#ifdef LOCUS_SERIAL_ELISION
  const int left_place = -1, right_place = -1;
#else
  const int left_place = detail::checked_place_of(d, lo - base, mid - base);
  const int right_place = detail::checked_place_of(d, mid - base, hi - base);
#endif
  const int left_to = unfold_place(d, lo - base, left_place);
  const int right_to = unfold_place(d, mid - base, right_place);
  T left = identity;
  T right = identity;
  auto run_left = [&] { left = distributed_split(lo, mid, base, grain, d, left_place, identity, leaf, combine); };
  auto run_right = [&] { right = distributed_split(mid, hi, base, grain, d, right_place, identity, leaf, combine); };
  auto first = with(run_left, place_hint{left_to}, work(double(mid - lo)));
  auto second = with(run_right, place_hint{right_to}, work(double(hi - mid)));
#ifndef LOCUS_SERIAL_ELISION
  if (right_to != left_to && right_to == current_place()) {
    fork_join(std::move(second), std::move(first));
    return combine(std::move(left), std::move(right));
  }
#endif
  fork_join(std::move(first), std::move(second));
  return combine(std::move(left), std::move(right));
}

// The whole range, sent to its unfold_place like any sub-range.
template <class T, class Leaf, class Combine>
T distributed_root(std::int64_t lo, std::int64_t hi, std::int64_t grain, const distribution& d, int place,
                   const T& identity, Leaf& leaf, Combine& combine) {
  const int to = unfold_place(d, 0, place);
  if (to == -1) return distributed_split(lo, hi, lo, grain, d, place, identity, leaf, combine);
  T result = identity;
  fork_join(with([&] { result = distributed_split(lo, hi, lo, grain, d, place, identity, leaf, combine); },
                 place_hint{to}),
            [] {});
  return result;
}

// parallel_for's: no result to combine.
struct no_result {};
struct combine_nothing {
  no_result operator()(no_result, no_result) const { return {}; }
};

template <class Body>
void distributed_for(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body, const distribution& d,
                     const char* who) {
  check_distribution(hi - lo, d, who);
  const std::int64_t chunk = auto_chunk(hi - lo);
  auto leaf = [&](std::int64_t a, std::int64_t b) {
    split_any(a, b, grain, chunk, body);
    return no_result{};
  };
  combine_nothing nothing;
#ifdef LOCUS_SERIAL_ELISION
  const int place = 0;  // no pool: run it whole
#else
  const int place = detail::checked_place_of(d, 0, hi - lo);
#endif
  distributed_root(lo, hi, grain, d, place, no_result{}, leaf, nothing);
}

template <class T, class Body, class Combine>
T distributed_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, const T& identity, Body& body,
                     Combine& combine, const distribution& d) {
  check_distribution(hi - lo, d, "locus::parallel_reduce");
  const std::int64_t chunk = auto_chunk(hi - lo);
  auto leaf = [&](std::int64_t a, std::int64_t b) { return split_reduce_any(a, b, grain, chunk, identity, body, combine); };
#ifdef LOCUS_SERIAL_ELISION
  const int place = 0;
#else
  const int place = detail::checked_place_of(d, 0, hi - lo);
#endif
  return distributed_root(lo, hi, grain, d, place, identity, leaf, combine);
}

// [begin, end) as 64-bit bounds; an empty or reversed range runs nothing.
struct bounds {
  std::int64_t lo, hi;
  bool empty() const { return hi <= lo; }
};
// An integer bound as a 64-bit index. The two ends may have different
// integer types (parallel_for(0, v.size(), ...)): each converts on its own,
// so the range is the mathematical one; an unsigned value past INT64_MAX
// has no 64-bit index and is refused.
template <class Index>
std::int64_t index_of(Index value, const char* which) {
  static_assert(std::is_integral_v<Index> && !std::is_same_v<std::remove_cv_t<Index>, bool>,
                "locus::parallel_for and parallel_reduce take an integer range: both ends must be integers "
                "(they may differ, e.g. int and std::size_t); over iterators or a container use "
                "locus::parallel_for_each");
  if constexpr (std::is_unsigned_v<Index> && sizeof(Index) >= sizeof(std::int64_t))
    if (value > static_cast<Index>(INT64_MAX))
      throw std::out_of_range(std::string("locus::parallel_for/parallel_reduce: the range's ") + which + " (" +
                              std::to_string(value) + ") does not fit a 64-bit signed index");
  return static_cast<std::int64_t>(value);
}
template <class Begin, class End>
bounds range_of(Begin begin, End end) {
  return {index_of(begin, "begin"), index_of(end, "end")};
}
template <class T, class Body>
constexpr void check_reduce_body() {
  static_assert(std::is_invocable_r_v<T, Body&, std::int64_t, std::int64_t, T>,
                "locus::parallel_reduce body must be T(lo, hi, T acc)");
}

}  // namespace detail_loop

// With a grain: halves down to pieces of at most `grain` iterations.
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, std::int64_t grain, Body&& body) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_grain(grain, "locus::parallel_for");
  if (r.empty()) return;
  detail_loop::split_for(r.lo, r.hi, grain, body);
}

// With a grain and the loop's working-set size, locus::footprint(bytes):
// each half declares its share of the bytes, in proportion to its
// iterations (read by the multi-level policies, which tie a piece that
// fits a cache to it; every other policy runs the plain loop).
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, std::int64_t grain, Body&& body, footprint_hint bytes) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_grain(grain, "locus::parallel_for");
  if (r.empty()) return;
  detail_loop::split_for_sized(r.lo, r.hi, grain, body,
                               static_cast<double>(bytes.bytes) / static_cast<double>(r.hi - r.lo));
}

// Automatic: lazy binary splitting.
template <class Begin, class End, class Body>
  requires(!std::is_integral_v<std::remove_cvref_t<Body>>)
void parallel_for(Begin begin, End end, Body&& body) {
  const auto r = detail_loop::range_of(begin, end);
  if (r.empty()) return;
  detail_loop::lazy_for(r.lo, r.hi, detail_loop::auto_chunk(r.hi - r.lo), body);
}

// Until `stop` is canceled (locus::cancellation above): automatic, or with
// a grain.
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, Body&& body, cancellation& stop) {
  auto guarded = detail_loop::stoppable(body, stop);
  parallel_for(begin, end, guarded);
}
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, std::int64_t grain, Body&& body, cancellation& stop) {
  auto guarded = detail_loop::stoppable(body, stop);
  parallel_for(begin, end, grain, guarded);
}

// With a partition: static_partition or a loop_affinity (partition.hpp).
template <class Begin, class End, class Body, class Part>
  requires detail_loop::is_partition_v<Part>
void parallel_for(Begin begin, End end, Body&& body, Part&& part) {
  const auto r = detail_loop::range_of(begin, end);
  if (r.empty()) return;
  detail_loop::partitioned_for(r.lo, r.hi, 0, body, part);
}

// A loop_affinity with a grain: sub-ranges of at least `grain` iterations,
// split inside down to `grain`.
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, std::int64_t grain, Body&& body, loop_affinity& affinity) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_grain(grain, "locus::parallel_for");
  if (r.empty()) return;
  detail_loop::partitioned_for(r.lo, r.hi, grain, body, affinity);
}

template <class Begin, class End, class T, class Body, class Combine>
  requires(!detail_loop::is_partition_v<Combine> && !detail_loop::is_distribution_v<Combine>)
T parallel_reduce(Begin begin, End end, std::int64_t grain, T identity, Body&& body, Combine&& combine) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  detail_loop::check_grain(grain, "locus::parallel_reduce");
  if (r.empty()) return identity;
  return detail_loop::split_reduce(r.lo, r.hi, grain, identity, body, combine);
}

// Deterministic (oneTBB's parallel_deterministic_reduce): the range is
// halved down to pieces of at most `grain` iterations, whoever runs them,
// and the partial results are combined in that fixed tree, so the result is
// bitwise the same on any number of workers, under every policy and in the
// serial elision, even for a combine that is not exactly associative
// (floating-point sums). The automatic parallel_reduce splits lazily, where
// steals decide the split points, and such a sum varies in its last bits.
template <class Begin, class End, class T, class Body, class Combine>
T parallel_deterministic_reduce(Begin begin, End end, std::int64_t grain, T identity, Body&& body,
                                Combine&& combine) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  detail_loop::check_grain(grain, "locus::parallel_deterministic_reduce");
  if (r.empty()) return identity;
  return detail_loop::split_reduce(r.lo, r.hi, grain, identity, body, combine);
}

// Automatic: lazy binary splitting.
template <class Begin, class End, class T, class Body, class Combine>
T parallel_reduce(Begin begin, End end, T identity, Body&& body, Combine&& combine) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  if (r.empty()) return identity;
  return detail_loop::lazy_reduce(r.lo, r.hi, detail_loop::auto_chunk(r.hi - r.lo), identity, body, combine);
}

// A loop_affinity with a grain, as for parallel_for.
template <class Begin, class End, class T, class Body, class Combine>
T parallel_reduce(Begin begin, End end, std::int64_t grain, T identity, Body&& body, Combine&& combine,
                  loop_affinity& affinity) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  detail_loop::check_grain(grain, "locus::parallel_reduce");
  if (r.empty()) return identity;
  return detail_loop::partitioned_reduce(r.lo, r.hi, grain, identity, body, combine, affinity);
}

// With a partition: static_partition or a loop_affinity (partition.hpp).
template <class Begin, class End, class T, class Body, class Combine, class Part>
  requires detail_loop::is_partition_v<Part>
T parallel_reduce(Begin begin, End end, T identity, Body&& body, Combine&& combine, Part&& part) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  if (r.empty()) return identity;
  return detail_loop::partitioned_reduce(r.lo, r.hi, 0, identity, body, combine, part);
}

// With a data distribution (locus/distribution.hpp): each sub-range hinted
// at the place of its data; the loop's length must be d.size().
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, Body&& body, const distribution& d) {
  const auto r = detail_loop::range_of(begin, end);
  if (r.empty()) return detail_loop::check_distribution(0, d, "locus::parallel_for");
  detail_loop::distributed_for(r.lo, r.hi, 0, body, d, "locus::parallel_for");
}

// A distribution with a grain: sub-ranges of at most `grain` iterations,
// each at its place.
template <class Begin, class End, class Body>
void parallel_for(Begin begin, End end, std::int64_t grain, Body&& body, const distribution& d) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_grain(grain, "locus::parallel_for");
  if (r.empty()) return detail_loop::check_distribution(0, d, "locus::parallel_for");
  detail_loop::distributed_for(r.lo, r.hi, grain, body, d, "locus::parallel_for");
}

template <class Begin, class End, class T, class Body, class Combine>
T parallel_reduce(Begin begin, End end, T identity, Body&& body, Combine&& combine, const distribution& d) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  if (r.empty()) {
    detail_loop::check_distribution(0, d, "locus::parallel_reduce");
    return identity;
  }
  return detail_loop::distributed_reduce(r.lo, r.hi, 0, identity, body, combine, d);
}

template <class Begin, class End, class T, class Body, class Combine>
T parallel_reduce(Begin begin, End end, std::int64_t grain, T identity, Body&& body, Combine&& combine,
                  const distribution& d) {
  const auto r = detail_loop::range_of(begin, end);
  detail_loop::check_reduce_body<T, Body>();
  detail_loop::check_grain(grain, "locus::parallel_reduce");
  if (r.empty()) {
    detail_loop::check_distribution(0, d, "locus::parallel_reduce");
    return identity;
  }
  return detail_loop::distributed_reduce(r.lo, r.hi, grain, identity, body, combine, d);
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
