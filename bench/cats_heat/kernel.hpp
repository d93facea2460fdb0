// cats-heat, cats-heat-ub: CATS's Heat and Heat-ub (seed 002, section 4,
// Table 1 and Algorithm 1). The five-point Jacobi update of bench/heat
// (heat::update_rows: the same stencil, coefficient, vectorization and
// simulator declarations) on an R x C grid with a fixed border (two grids
// in turn), but every time step is a recursive decomposition of the rows
// (common/row_tree.hpp: binary halving, or Algorithm 1's heat/heat2) and
// its own root task tree, where heat's steps are parallel loops in one
// region.
#pragma once

#include <cstdint>

#include "common/halo_grid.hpp"
#include "common/row_tree.hpp"
#include "heat/kernel.hpp"

namespace cats_heat {

// Runs `steps` time steps from `even` (step 0 reads even and writes odd,
// step 1 the other way, ...); both grids hold the same border. Returns the
// grid holding the final state. Each step is one call of row_tree_step, so
// one root task tree per step, from the calling thread.
template <class P>
double* run_steps(double* even, double* odd, const bench::halo_grid& g, std::int64_t steps, std::int64_t leaf,
                  bench::row_tree shape) {
  for (std::int64_t step = 0; step < steps; ++step) {
    const double* src = step % 2 == 0 ? even : odd;
    double* dst = step % 2 == 0 ? odd : even;
    // heat::update_rows(src, dst, n, lo, hi) reads rows lo - 1 .. hi and
    // writes columns 1 .. n - 2 of rows lo .. hi - 1 of grids whose rows are
    // n doubles long; it reads no row count, so a rectangular grid is
    // n = C + 2 wide with rows 1 .. R computed.
    bench::row_tree_step<P>(shape, 1, g.rows + 1, leaf,
                            [&](std::int64_t lo, std::int64_t hi) { heat::update_rows(src, dst, g.stride(), lo, hi); });
  }
  return steps % 2 == 0 ? even : odd;
}

}  // namespace cats_heat
