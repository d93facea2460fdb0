// locus::parallel_sort(first, last[, comp]): oneTBB's tbb::parallel_sort.
// Sorts [first, last) by comp (std::less<> by default); not stable, as
// std::sort. Random-access iterators; the elements must be swappable.
//
// A parallel quicksort: the pivot is the median of nine spread elements
// (Tukey's ninther, as oneTBB and libstdc++'s introsort use), keys equal to
// it are set apart when the split comes out lopsided (so many equal keys
// cannot make the recursion quadratic),
// and the two sides are sorted by fork_join. Pieces of at most
// serial_cutoff elements, and any piece past a depth of 2 log2 n (a run of
// bad pivots), are left to std::sort, which bounds the work at O(n log n).
// The partition of a piece is serial, so the span is O(n) and the top level's
// partition bounds the speedup; see docs/usage.md for the figures.
//
// Exceptions thrown by comp or by a swap propagate as fork_join's do; the
// range is then in an unspecified order. Under LOCUS_SERIAL_ELISION the
// recursion runs in order.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>

#include "locus/fork_join.hpp"
#include "locus/hints.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_sort {

// Below this many elements a piece is sorted by std::sort: the fork costs
// more than it can win (oneTBB uses 500; fewer, larger pieces suit the
// steal path here).
inline constexpr std::ptrdiff_t serial_cutoff = 2048;

template <class It, class Comp>
It median_of_three(It a, It b, It c, Comp& comp) {
  if (comp(*a, *b)) return comp(*b, *c) ? b : (comp(*a, *c) ? c : a);
  return comp(*a, *c) ? a : (comp(*b, *c) ? c : b);
}

// Moves the elements of (first, last) below the pivot *first to the front;
// returns the end of them. A trivially copyable pivot is compared from a
// local copy, which the compiler keeps in a register (through *first it
// must reload it after every swap).
template <class It, class Comp>
It split_below(It first, It last, Comp& comp) {
  using value = std::iter_value_t<It>;
  if constexpr (std::is_trivially_copyable_v<value>) {
    const value pivot = *first;
    return std::partition(first + 1, last, [&](const auto& x) { return comp(x, pivot); });
  } else {
    return std::partition(first + 1, last, [&](const auto& x) { return comp(x, *first); });
  }
}

template <class It, class Comp>
void quicksort(It first, It last, Comp& comp, int depth) {
  const std::ptrdiff_t n = last - first;
  if (n <= serial_cutoff || depth == 0) return std::sort(first, last, comp);
  const std::ptrdiff_t step = n / 8;
  const It mid = first + n / 2;
  const It pivot = median_of_three(median_of_three(first, first + step, first + 2 * step, comp),
                                   median_of_three(mid - step, mid, mid + step, comp),
                                   median_of_three(last - 1 - 2 * step, last - 1 - step, last - 1, comp), comp);
  // The pivot waits at *first while the rest is split into < pivot and the
  // others (one pass), then goes between them. When that leaves the left
  // side short (a pivot at or near the smallest key: many equal keys), the
  // right side is split once more into == pivot, which is done, and the
  // rest, so equal keys cannot make the recursion quadratic.
  std::iter_swap(first, pivot);
  const It less_end = split_below(first, last, comp);
  const It pivot_at = less_end - 1;
  std::iter_swap(first, pivot_at);
  It right = less_end;
  if (pivot_at - first < n / 16) right = std::partition(less_end, last, [&](const auto& x) { return !comp(*pivot_at, x); });
  fork_join(with([&] { quicksort(first, pivot_at, comp, depth - 1); }, work(double(pivot_at - first))),
            with([&] { quicksort(right, last, comp, depth - 1); }, work(double(last - right))));
}

}  // namespace detail_sort

template <class It, class Comp = std::less<>>
void parallel_sort(It first, It last, Comp comp = Comp{}) {
  static_assert(std::random_access_iterator<It>,
                "locus::parallel_sort needs random-access iterators (as std::sort and tbb::parallel_sort)");
  const std::ptrdiff_t n = last - first;
  if (n < 2) return;
  detail_sort::quicksort(first, last, comp, 2 * std::bit_width(static_cast<std::size_t>(n)));
}

// The whole of a random-access range: locus::parallel_sort(v).
template <class Range, class Comp = std::less<>>
  requires requires(Range& r) { std::begin(r); std::end(r); }
void parallel_sort(Range& range, Comp comp = Comp{}) {
  parallel_sort(std::begin(range), std::end(range), comp);
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
