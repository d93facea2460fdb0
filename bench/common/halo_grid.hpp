// The grid of the CATS stencils (bench/cats_heat, bench/sor): R x C
// unknowns inside a fixed one-cell border, stored row major as (R + 2) x
// (C + 2) doubles. Rows 1..R and columns 1..C are computed; row 0, row
// R + 1, column 0 and column C + 1 keep their initial values. The row trees
// (common/row_tree.hpp) run over rows [1, R + 1), so R rows split evenly:
// 1024 rows with a leaf of 8 are 128 leaves of exactly 8 rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"

namespace bench {

struct halo_grid {
  std::int64_t rows;  // R, computed rows
  std::int64_t cols;  // C, computed columns
  std::int64_t stride() const { return cols + 2; }
  std::int64_t cells() const { return (rows + 2) * stride(); }
};

// The grid's size from --param rows and cols: the paper's 1024 x 512 at the
// quick size (Fig. 7), 8192 x 512 at the full one (the largest of Fig. 9
// and 11).
inline halo_grid grid_size(size_class s, params& p) {
  return {p.get("rows", 64, 1024, 8192, s,
                "computed rows R (grid R x C inside a fixed border; paper: 1024, Fig. 9 and 11 up to 8192)",
                {1, INT32_MAX}),
          p.get("cols", 32, 512, 512, s, "computed columns C (paper: 512)", {1, INT32_MAX})};
}

// heat's initial pattern (bench/heat/grids.hpp): every cell in [1, 2],
// varying in both directions, so a stencil has real work from its first
// step, and no value of a convex update ever becomes subnormal.
inline double pattern_value(std::int64_t i, std::int64_t j) {
  return 1.0 + static_cast<double>((7 * i + 13 * j) % 17) / 16.0;
}

// `copies` grids of shape g one after the other, every cell (border
// included) set to the pattern. Written serially by the calling thread: no
// parallel initialization, so the first root task a run submits is its
// first time step.
inline std::vector<double> pattern_grids(const halo_grid& g, int copies) {
  std::vector<double> out(static_cast<std::size_t>(copies * g.cells()));
  for (int c = 0; c < copies; ++c)
    for (std::int64_t i = 0; i < g.rows + 2; ++i)
      for (std::int64_t j = 0; j < g.stride(); ++j)
        out[static_cast<std::size_t>(c * g.cells() + i * g.stride() + j)] = pattern_value(i, j);
  return out;
}

// Each of the `copies` grids in `data` placed by the variant's data layout
// (common/places.hpp: locus variants put block p of its rows at place p
// unless they say +interleave or +first-touch; the others leave it).
inline void place_grids(std::vector<double>& data, const halo_grid& g, int copies) {
  for (int c = 0; c < copies; ++c)
    place_blocks(std::span(data.data() + c * g.cells(), static_cast<std::size_t>(g.cells())));
}

}  // namespace bench
