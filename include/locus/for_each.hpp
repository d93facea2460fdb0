// Loops over what programs have: iterators, containers, and 2-D index
// spaces.
//
//   locus::parallel_for_each(v.begin(), v.end(), [](T& x) { x *= 2; });  // tbb::parallel_for_each
//   locus::parallel_for_each(v, [](T& x) { x *= 2; });                    // a random-access range
//   locus::parallel_for_2d(0, rows, 0, cols, [&](std::int64_t i, std::int64_t j) { ... });
//   locus::parallel_for_2d(0, rows, 0, cols, 64, 64,
//       [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) { ... });
//
// parallel_for_each calls f on every element (by reference), dividing the
// range as the automatic parallel_for does (lazy binary splitting); it needs
// random-access iterators, since it splits the range by position.
//
// parallel_for_2d is oneTBB's blocked_range2d loop, OpenMP's collapse(2):
// the rows x columns block is halved along its longer side (measured in
// grains, as blocked_range2d does) until both sides are at most their
// grain. Without grains each piece holds about n / (64 x workers) cells.
// The body takes a cell (i, j) or a block (r0, r1, c0, c1). Each fork
// carries its halves' cell counts as work hints (locus/hints.hpp).
//
// Exceptions as parallel_for: every piece runs, the first exception in
// range order is rethrown. Under LOCUS_SERIAL_ELISION both are plain loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <type_traits>

#include "locus/parallel.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

template <class It, class F>
void parallel_for_each(It first, It last, F&& f) {
  static_assert(std::random_access_iterator<It>,
                "locus::parallel_for_each needs random-access iterators (it splits the range by position); "
                "copy other ranges into a std::vector first");
  static_assert(std::is_invocable_v<F&, std::iter_reference_t<It>>,
                "locus::parallel_for_each: f must take an element (by reference, to change it)");
  parallel_for(std::int64_t{0}, static_cast<std::int64_t>(last - first), [&](std::int64_t lo, std::int64_t hi) {
    for (It it = first + lo, end = first + hi; it != end; ++it) f(*it);
  });
}

template <std::ranges::random_access_range R, class F>
void parallel_for_each(R&& range, F&& f) {
  parallel_for_each(std::ranges::begin(range), std::ranges::end(range), f);
}

namespace detail_loop {

template <class Body>
void run_block(Body& body, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  if constexpr (std::is_invocable_v<Body&, std::int64_t, std::int64_t, std::int64_t, std::int64_t>) {
    body(r0, r1, c0, c1);
  } else {
    static_assert(std::is_invocable_v<Body&, std::int64_t, std::int64_t>,
                  "locus::parallel_for_2d body must take a cell (i, j) or a block (r0, r1, c0, c1)");
    for (std::int64_t i = r0; i < r1; ++i)
      for (std::int64_t j = c0; j < c1; ++j) body(i, j);
  }
}

// Halves the longer side, counted in grains (blocked_range2d's rule), until
// both sides fit their grain.
template <class Body>
void split_2d(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, std::int64_t row_grain,
              std::int64_t col_grain, Body& body) {
  const std::int64_t rows = r1 - r0, cols = c1 - c0;
  if (rows <= row_grain && cols <= col_grain) return run_block(body, r0, r1, c0, c1);
  // rows / row_grain > cols / col_grain, without division.
  const bool split_rows = cols <= col_grain || (rows > row_grain && rows * col_grain > cols * row_grain);
  if (split_rows) {
    const std::int64_t mid = r0 + rows / 2;
    fork_join(with([&] { split_2d(r0, mid, c0, c1, row_grain, col_grain, body); }, work(double((mid - r0) * cols))),
              with([&] { split_2d(mid, r1, c0, c1, row_grain, col_grain, body); }, work(double((r1 - mid) * cols))));
  } else {
    const std::int64_t mid = c0 + cols / 2;
    fork_join(with([&] { split_2d(r0, r1, c0, mid, row_grain, col_grain, body); }, work(double(rows * (mid - c0)))),
              with([&] { split_2d(r0, r1, mid, c1, row_grain, col_grain, body); }, work(double(rows * (c1 - mid)))));
  }
}

}  // namespace detail_loop

template <class RB, class RE, class CB, class CE, class Body>
void parallel_for_2d(RB row_begin, RE row_end, CB col_begin, CE col_end, std::int64_t row_grain,
                     std::int64_t col_grain, Body&& body) {
  const auto rows = detail_loop::range_of(row_begin, row_end);
  const auto cols = detail_loop::range_of(col_begin, col_end);
  detail_loop::check_grain(row_grain, "locus::parallel_for_2d (row grain)");
  detail_loop::check_grain(col_grain, "locus::parallel_for_2d (column grain)");
  if (rows.empty() || cols.empty()) return;
  detail_loop::split_2d(rows.lo, rows.hi, cols.lo, cols.hi, row_grain, col_grain, body);
}

// Automatic: square-ish pieces of about n / (64 x workers) cells each.
template <class RB, class RE, class CB, class CE, class Body>
  requires(!std::is_integral_v<std::remove_cvref_t<Body>>)
void parallel_for_2d(RB row_begin, RE row_end, CB col_begin, CE col_end, Body&& body) {
  const auto rows = detail_loop::range_of(row_begin, row_end);
  const auto cols = detail_loop::range_of(col_begin, col_end);
  if (rows.empty() || cols.empty()) return;
  const std::int64_t n_rows = rows.hi - rows.lo, n_cols = cols.hi - cols.lo;
  const std::int64_t cells = detail_loop::auto_chunk(n_rows * n_cols);
  // Square pieces of `cells` cells, or full-width strips when a row is
  // shorter than the square's side.
  const auto side = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(cells))));
  const std::int64_t row_grain = std::clamp<std::int64_t>(n_cols < side ? cells / n_cols : side, 1, n_rows);
  const std::int64_t col_grain = std::clamp<std::int64_t>(cells / row_grain, 1, n_cols);
  detail_loop::split_2d(rows.lo, rows.hi, cols.lo, cols.hi, row_grain, col_grain, body);
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
