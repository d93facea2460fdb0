// The two grids both heat benchmarks (heat, heat-graph) sweep: their
// initial state and placement, and the check against the serial result.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "common/places.hpp"

namespace heat {

// Every cell, boundary included, starts in [1, 2] in a pattern that varies in
// both directions, so the stencil has real work to do from the first step.
// Both grids get it, each placed in blocks of rows (common/places.hpp).
// Grids have `rows` rows of n cells (square unless rows is given).
inline void prepare_grids(std::vector<double>& even, std::vector<double>& odd, std::int64_t n, std::int64_t rows = -1) {
  if (rows < 0) rows = n;
  for (std::vector<double>* grid : {&even, &odd})
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        (*grid)[static_cast<std::size_t>(i * n + j)] = 1.0 + static_cast<double>((7 * i + 13 * j) % 17) / 16.0;
  bench::place_blocks(std::span(even));
  bench::place_blocks(std::span(odd));
}

// The stencil has no reductions and every cell is computed by the same
// expression whichever worker runs it, so the result must equal the serial
// one bit for bit. Returns "" or what differs.
inline std::string grid_mismatch(const double* result, const std::vector<double>& reference, std::int64_t n,
                                 std::int64_t rows = -1) {
  if (result == nullptr) return "no result";
  const std::int64_t cells = (rows < 0 ? n : rows) * n;
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t c = 0; c < cells; ++c)
    if (result[c] != reference[static_cast<std::size_t>(c)]) {
      if (first < 0) first = c;
      ++wrong;
    }
  if (wrong == 0) return "";
  std::ostringstream why;
  why.precision(17);
  why << wrong << " of " << cells << " cells differ from the serial result; first at row " << first / n
      << ", column " << first % n << ": " << result[first] << ", expected "
      << reference[static_cast<std::size_t>(first)];
  return why.str();
}

}  // namespace heat
