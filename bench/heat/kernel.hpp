// heat: Jacobi five-point heat diffusion on an n x n grid of doubles (row
// major) with a fixed boundary, two grids used in turn (double buffering).
// Every time step is one loop over the interior rows; the time-step loop
// sits in one region, so OpenMP keeps one team for all steps.
//
// For the simulator each piece of rows declares the cells it reads and
// writes and 5 cycles per cell (README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>
#include "common/places.hpp"

namespace heat {

// Diffusion coefficient of the explicit update u' = u + k (N + S + E + W - 4u).
// With k <= 1/4 every new value is a convex combination of old ones, so the
// grid stays within its initial range: no overflow and, with positive initial
// values, no subnormal numbers (which would make timings depend on the data).
inline constexpr double diffusion = 0.2;

// Rows [lo, hi) of dst from src; both grids are n x n and the rows are
// interior (1 <= lo, hi <= n - 1). Columns 0 and n - 1 are boundary.
inline void update_rows(const double* src, double* dst, std::int64_t n, std::int64_t lo, std::int64_t hi) {
  // Read: src from cell (lo - 1, 1) to cell (hi, n - 2), one range; it also
  // holds cells (lo - 1, n - 1) and (hi, 0), which are not read but share
  // their cache lines with cells that are. Written: the interior cells of
  // each row of dst.
  const auto row_bytes = static_cast<std::size_t>(n - 2) * sizeof(double);
  locus::touch(src + (lo - 1) * n + 1, static_cast<std::size_t>((hi - lo + 2) * n - 2) * sizeof(double),
               locus::access::read);
  locus::compute(static_cast<std::uint64_t>(5 * (hi - lo) * (n - 2)));
  for (std::int64_t i = lo; i < hi; ++i) {
    const double* up = src + (i - 1) * n;
    const double* mid = src + i * n;
    const double* down = src + (i + 1) * n;
    double* out = dst + i * n;
    locus::touch(out + 1, row_bytes, locus::access::write);
    // Vectorized for every backend (the suite is built with OpenMP; the
    // pragma adds no threads): at -O2 GCC's cost model leaves this loop
    // scalar, as it would need an alias check and a remainder loop, and
    // scalar code is bound by instructions rather than by the caches (heat-l2
    // on one core ran about 1.6 times slower scalar). Each cell is still
    // computed by the same operations in the same order, so the result is
    // the same bit for bit.
#pragma omp simd
    for (std::int64_t j = 1; j < n - 1; ++j)
      out[j] = mid[j] + diffusion * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4.0 * mid[j]);
  }
}

// Runs `steps` time steps starting from `even` (step 0 reads even and writes
// odd, step 1 reads odd and writes even, ...). Both grids must hold the same
// boundary. Returns the grid holding the final state. `grain` is the number of
// rows per loop piece.
template <class P>
double* run_steps(double* even, double* odd, std::int64_t n, std::int64_t steps, std::int64_t grain,
                  std::int64_t rows = -1) {
  if (rows < 0) rows = n;  // rows of n cells; square by default
  P::region([&] {
    for (std::int64_t step = 0; step < steps; ++step) {
      // Every thread of an OpenMP team runs this loop, so the roles of the two
      // grids are derived from the step number by each thread: a shared
      // pointer swapped in place would be a race between the team's threads.
      const double* src = step % 2 == 0 ? even : odd;
      double* dst = step % 2 == 0 ? odd : even;
      // Block p of the rows at place p, where prepare() put its rows
      // (NUMA-WS V: heat with hints and per-place data).
      // Its working set (multi-level policies): both grids' interior rows.
      bench::place_loop<P>(
          1, rows - 1, grain, [&](std::int64_t lo, std::int64_t hi) { update_rows(src, dst, n, lo, hi); },
          2 * static_cast<std::size_t>(rows - 2) * static_cast<std::size_t>(n) * sizeof(double));
    }
  });
  return steps % 2 == 0 ? even : odd;
}

}  // namespace heat
