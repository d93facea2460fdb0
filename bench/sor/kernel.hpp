// sor, sor-ub: CATS's SOR and SOR-ub (seed 002, section 4, Table 1):
// successive over-relaxation of the five-point Laplace equation on an R x C
// grid with a fixed border (common/halo_grid.hpp), one grid updated in
// place, in red-black order. An iteration is two half-sweeps: first every
// red cell (i + j even), then every black one (i + j odd). A cell's four
// neighbours have the other colour, so the cells of a half-sweep are
// independent of each other: any schedule computes what the serial sweep
// computes, bit for bit. Each half-sweep is a recursive decomposition of
// the rows (common/row_tree.hpp) and its own root task tree, so the runtime
// sees two trees of the same shape per iteration.
//
// For the simulator each leaf declares its rows (written in place), the
// row above and the row below (read), and 5 cycles per cell it updates
// (README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>

#include "common/halo_grid.hpp"
#include "common/row_tree.hpp"

namespace sor {

// Rows [lo, hi) of u (1 <= lo < hi <= R + 1): every cell of colour `color`
// (0 red, 1 black) in columns 1 .. C becomes
//   u + w/4 (N + S + E + W - 4u),
// the over-relaxed Gauss-Seidel value (1 - w) u + w (N + S + E + W) / 4.
inline void relax_rows(double* u, const bench::halo_grid& g, std::int64_t lo, std::int64_t hi, int color,
                       double omega) {
  const std::int64_t stride = g.stride(), cols = g.cols;
  const auto row_bytes = static_cast<std::size_t>(cols) * sizeof(double);
  locus::touch(u + (lo - 1) * stride + 1, row_bytes, locus::access::read);
  locus::touch(u + hi * stride + 1, row_bytes, locus::access::read);
  // Row i's first cell of the colour is column 1 if i + 1 has its parity,
  // else column 2; its cells are every other one from there to column C.
  auto first = [&](std::int64_t i) { return 1 + ((i + 1 + color) & 1); };
  std::int64_t cells = 0;
  for (std::int64_t i = lo; i < hi; ++i) cells += first(i) <= cols ? (cols - first(i)) / 2 + 1 : 0;
  locus::compute(static_cast<std::uint64_t>(5 * cells));
  const double k = omega / 4.0;
  for (std::int64_t i = lo; i < hi; ++i) {
    const double* up = u + (i - 1) * stride;
    double* mid = u + i * stride;
    const double* down = u + (i + 1) * stride;
    locus::touch(mid + 1, row_bytes, locus::access::write);
    for (std::int64_t j = first(i); j <= cols; j += 2)
      mid[j] = mid[j] + k * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4.0 * mid[j]);
  }
}

// `iterations` red-black iterations, each two root task trees (red, then
// black) over the rows 1 .. R, called from the calling thread.
template <class P>
void relax(double* u, const bench::halo_grid& g, std::int64_t iterations, double omega, std::int64_t leaf,
           bench::row_tree shape) {
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int color = 0; color < 2; ++color)
      bench::row_tree_step<P>(shape, 1, g.rows + 1, leaf,
                              [&](std::int64_t lo, std::int64_t hi) { relax_rows(u, g, lo, hi, color, omega); });
}

}  // namespace sor
