// cilksort: Cilk-5's parallel mergesort with a parallel merge, the cilksort
// benchmark of NUMA-WS (seed 000, Fig. 4 and section V). The array is cut in
// four quarters that are sorted in parallel; the quarters are merged in pairs
// into the scratch array and the two halves merged back, each merge itself
// split in parallel by a binary search.
//
// For the simulator (README.md) the sequential sorts and merges declare
// their inputs and outputs, the measured cycles of a comparison
// (bench::compare_cycles) n ceil(log2 n) times per sort and of a merged
// element (bench::merge_element_cycles) per merge; a parallel merge step
// declares the elements its binary search probes, one cycle per probe, the
// pivot and its place in the output.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/places.hpp"

namespace cilksort {

using element = std::int64_t;

struct cutoffs {
  std::int64_t sort;   // fewer elements than this: a sequential sort (at least 4)
  std::int64_t merge;  // at most this many elements in both inputs: a sequential merge (at least 1)
};

// Merges the sorted a[0, na) and b[0, nb) into out[0, na + nb). The middle
// element of the larger input splits both inputs (binary search in the
// smaller), so each half of the output holds at most 3/4 of the elements and
// the recursion depth stays logarithmic.
template <class P>
void merge(const element* a, std::int64_t na, const element* b, std::int64_t nb, element* out, std::int64_t cutoff) {
  if (na < nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (na + nb <= cutoff) {
    bench::touch_n(a, na, locus::access::read);
    bench::touch_n(b, nb, locus::access::read);
    bench::touch_n(out, na + nb, locus::access::write);
    locus::compute(static_cast<std::uint64_t>(na + nb) * bench::merge_element_cycles);
    std::merge(a, a + na, b, b + nb, out);
    return;
  }
  const std::int64_t ma = na / 2;
  const element pivot = a[ma];
  bench::touch_n(a + ma, 1, locus::access::read);
  locus::compute(static_cast<std::uint64_t>(std::bit_width(static_cast<std::uint64_t>(nb))));
  // The binary search declares each element it probes.
  auto below = [](const element& probed, element value) {
    bench::touch_n(&probed, 1, locus::access::read);
    return probed < value;
  };
  const std::int64_t mb = std::lower_bound(b, b + nb, pivot, below) - b;
  // Everything before a[ma] and b[mb] is at most the pivot, everything from
  // them on at least the pivot: the pivot's place in the output is known.
  out[ma + mb] = pivot;
  bench::touch_n(out + ma + mb, 1, locus::access::write);
  P::fork2([&] { merge<P>(a, ma, b, mb, out, cutoff); },
           [&] { merge<P>(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1, cutoff); });
}

// Sorts in[0, n) in place; tmp[0, n) is scratch.
template <class P>
void sort(element* in, element* tmp, std::int64_t n, const cutoffs& c) {
  if (n < c.sort) {
    bench::touch_n(in, n, locus::access::write);
    locus::compute(bench::sort_cycles(n));
    std::sort(in, in + n);
    return;
  }
  const std::int64_t q = n / 4;  // the last quarter takes the remainder
  // The four sorts as a two-level fork2 tree (Cilk-5 spawns three and calls
  // the fourth).
  P::fork2([&] { P::fork2([&] { sort<P>(in, tmp, q, c); }, [&] { sort<P>(in + q, tmp + q, q, c); }); },
           [&] {
             P::fork2([&] { sort<P>(in + 2 * q, tmp + 2 * q, q, c); },
                      [&] { sort<P>(in + 3 * q, tmp + 3 * q, n - 3 * q, c); });
           });
  P::fork2([&] { merge<P>(in, q, in + q, q, tmp, c.merge); },
           [&] { merge<P>(in + 2 * q, q, in + 3 * q, n - 3 * q, tmp + 2 * q, c.merge); });
  merge<P>(tmp, 2 * q, tmp + 2 * q, n - 2 * q, in, c.merge);
}

// The top level with locality hints (NUMA-WS Fig. 4, MERGESORTTOP): quarter
// i sorted at place p_i, where prepare() put it; the first pair merged at
// p_0, the second at p_2, the last merge at any place. Below the top the
// quarters' hints are inherited.
template <class P>
void sort_top(element* in, element* tmp, std::int64_t n, const cutoffs& c) {
  const int places = bench::places<P>();
  if (places == 1 || n < c.sort) return sort<P>(in, tmp, n, c);
  const std::int64_t q = n / 4;
  auto at = [places](int quarter) { return bench::part_place(quarter, 4, places); };
  bench::fork_at<P>(
      at(0), [&] { bench::fork_at<P>(at(0), [&] { sort<P>(in, tmp, q, c); }, at(1), [&] { sort<P>(in + q, tmp + q, q, c); }); },
      at(2), [&] {
        bench::fork_at<P>(at(2), [&] { sort<P>(in + 2 * q, tmp + 2 * q, q, c); },
                          at(3), [&] { sort<P>(in + 3 * q, tmp + 3 * q, n - 3 * q, c); });
      });
  bench::fork_at<P>(at(0), [&] { merge<P>(in, q, in + q, q, tmp, c.merge); },
                    at(2), [&] { merge<P>(in + 2 * q, q, in + 3 * q, n - 3 * q, tmp + 2 * q, c.merge); });
  const locus::place_hint parent = bench::hints_apply<P> ? locus::current_hint() : locus::any;
  if constexpr (bench::hints_apply<P>) locus::set_hint(locus::any);
  merge<P>(tmp, 2 * q, tmp + 2 * q, n - 2 * q, in, c.merge);
  if constexpr (bench::hints_apply<P>) locus::set_hint(parent);
}

}  // namespace cilksort
