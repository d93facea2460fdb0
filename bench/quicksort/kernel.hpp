// Quicksort with a parallel, double-buffered partition, the Quicksort
// benchmark of ADWS (seed 003, section 6.2). The pivot is the median of the
// first three elements. The partition runs over fixed-size blocks: each block
// counts its elements below, equal to and above the pivot, prefix sums give
// every block its own slots, and each block scatters into the other buffer.
// The two sides are then sorted in parallel (their sizes as work hints),
// with the buffers' roles swapped, so the working set is twice the input.
//
// For the simulator (README.md) every step declares what it reads and
// writes; cycles: n ceil(log2 n) per sequential sort, 4 for the median, 2 per
// element counted or scattered, 1 per prefix sum; copies only their memory.
#pragma once

#include <algorithm>
#include <cstdint>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/block_partition.hpp"
#include "common/places.hpp"

namespace quicksort {

struct cutoffs {
  std::int64_t sort;   // at most this many elements: std::sort (at least 3, for the pivot)
  std::int64_t block;  // elements per partition block (at least 1)
  bool hints;          // the sides' sizes as work hints (ADWS, section 6.2)
};

inline double median_of_three(double a, double b, double c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

// Sorts the n elements held in `from`. `to` is the same range of the other
// buffer. The result must end in the caller's array ("home"): from_is_home
// says which of the two buffers that is here.
template <class P>
void sort(double* from, double* to, std::int64_t n, bool from_is_home, const cutoffs& c) {
  if (n <= c.sort) {
    bench::touch_n(from, n, locus::access::write);
    locus::compute(bench::sort_cycles(n));
    std::sort(from, from + n);
    if (!from_is_home) {
      bench::touch_n(from, n, locus::access::read);
      bench::touch_n(to, n, locus::access::write);
      std::copy(from, from + n, to);
    }
    return;
  }
  bench::touch_n(from, 3, locus::access::read);
  locus::compute(4);
  const double pivot = median_of_three(from[0], from[1], from[2]);
  // Sides 0, 1, 2: less than, equal to and greater than the pivot.
  auto side = [split = pivot](double x) { return x < split ? 0 : x == split ? 1 : 2; };
  bench::block_partition<3, double> part(from, n, c.block, 2);
  part.count<P>(side);
  part.scatter<P>(to, side);
  const std::int64_t less_total = part.size(0);
  const std::int64_t greater_start = part.start(2);

  // The elements equal to the pivot (at least the pivot itself, so both
  // sides shrink) are in their final place; only home still needs them.
  if (from_is_home) {
    bench::touch_n(to + less_total, greater_start - less_total, locus::access::read);
    bench::touch_n(from + less_total, greater_start - less_total, locus::access::write);
    std::copy(to + less_total, to + greater_start, from + less_total);
  }
  auto sort_less = [&] { sort<P>(to, from, less_total, !from_is_home, c); };
  auto sort_greater = [&] { sort<P>(to + greater_start, from + greater_start, n - greater_start, !from_is_home, c); };
  // Without hints ADWS guesses 1 : 1 (section 6.3). Each side's working
  // set: its elements in both buffers.
  const std::int64_t greater_total = n - greater_start;
  bench::fork_split<P>(c.hints, less_total, 2 * sizeof(double) * static_cast<std::size_t>(less_total), sort_less,
                       greater_total, 2 * sizeof(double) * static_cast<std::size_t>(greater_total), sort_greater);
}

}  // namespace quicksort
