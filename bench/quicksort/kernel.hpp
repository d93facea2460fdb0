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
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
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
  const std::int64_t blocks = (n + c.block - 1) / c.block;
  auto block_begin = [&](std::int64_t k) { return from + k * c.block; };
  auto block_end = [&](std::int64_t k) { return from + std::min(n, (k + 1) * c.block); };

  // slot[3 k + side]: first the count of block k's elements on that side
  // (0: less, 1: equal, 2: greater), then where they go in `to`.
  std::vector<std::int64_t> slot(3 * blocks);
  P::loop(0, blocks, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      const double *begin = block_begin(k), *end = block_end(k);
      bench::touch_n(begin, end - begin, locus::access::read);
      bench::touch_n(&slot[3 * k], 3, locus::access::write);
      locus::compute(static_cast<std::uint64_t>(2 * (end - begin)));
      std::int64_t less = 0, equal = 0;
      for (const double* x = begin; x != end; ++x) {
        less += *x < pivot;
        equal += *x == pivot;
      }
      slot[3 * k] = less;
      slot[3 * k + 1] = equal;
      slot[3 * k + 2] = (end - begin) - less - equal;
    }
  });
  bench::touch_n(slot.data(), 3 * blocks, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(3 * blocks));
  std::int64_t next = 0;  // all less, then all equal, then all greater, each in block order
  for (int side = 0; side < 3; ++side)
    for (std::int64_t k = 0; k < blocks; ++k) {
      const std::int64_t count = slot[3 * k + side];
      slot[3 * k + side] = next;
      next += count;
    }
  const std::int64_t less_total = slot[1];  // where block 0's equal elements start
  const std::int64_t greater_start = slot[2];
  P::loop(0, blocks, 1, [&](std::int64_t lo, std::int64_t hi) {
    // A local copy: read through the reference, GCC reloads the pivot after
    // every store below (a store through a double* might change it).
    const double split = pivot;
    for (std::int64_t k = lo; k < hi; ++k) {
      double* const less_first = to + slot[3 * k];
      double* const equal_first = to + slot[3 * k + 1];
      double* const greater_first = to + slot[3 * k + 2];
      double *less = less_first, *equal = equal_first, *greater = greater_first;
      const double *begin = block_begin(k), *end = block_end(k);
      bench::touch_n(&slot[3 * k], 3, locus::access::read);
      bench::touch_n(begin, end - begin, locus::access::read);
      locus::compute(static_cast<std::uint64_t>(2 * (end - begin)));
      for (const double* x = begin; x != end; ++x) {
        if (*x < split) *less++ = *x;
        else if (*x == split) *equal++ = *x;
        else *greater++ = *x;
      }
      // The block's three runs in `to`, known once it is scattered.
      bench::touch_n(less_first, less - less_first, locus::access::write);
      bench::touch_n(equal_first, equal - equal_first, locus::access::write);
      bench::touch_n(greater_first, greater - greater_first, locus::access::write);
    }
  });

  // The elements equal to the pivot (at least the pivot itself, so both
  // sides shrink) are in their final place; only home still needs them.
  if (from_is_home) {
    bench::touch_n(to + less_total, greater_start - less_total, locus::access::read);
    bench::touch_n(from + less_total, greater_start - less_total, locus::access::write);
    std::copy(to + less_total, to + greater_start, from + less_total);
  }
  auto sort_less = [&] { sort<P>(to, from, less_total, !from_is_home, c); };
  auto sort_greater = [&] { sort<P>(to + greater_start, from + greater_start, n - greater_start, !from_is_home, c); };
  // Without hints ADWS guesses 1 : 1 (section 6.3).
  if (c.hints)
    bench::fork_worked<P>(static_cast<double>(less_total), sort_less, static_cast<double>(n - greater_start),
                          sort_greater);
  else
    P::fork2(sort_less, sort_greater);
}

}  // namespace quicksort
