// heat2d: the ADWS paper's Heat2D (seed 003, section 6.2): a five-point
// stencil with double buffering, parallelized by recursively dividing the
// square grid into four equally sized subgrids down to a cutoff (64 x 64 in
// the paper), 50 time steps. Rows carry a padding (the paper: 256 bytes)
// so that a power-of-two side does not map every row to the same sets.
//
// For locus every division is a task group whose children carry their
// cells as work hints (seed 003, section 3.1; they are equal here, as the
// paper notes in section 6.4) and whose working set, both grids' cells of
// the subgrid, is its footprint (figure 2b), for the multi-level policies.
// The other backends divide with nested P::fork2.
//
// For the simulator each leaf declares the source rows it reads (its rows
// and the two beside them, one range per row, its columns and the two
// beside them), the destination cells it writes (one range per row) and 5
// cycles per cell, as heat's kernel (bench/heat/README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>

#include "common/places.hpp"

namespace heat2d {

// u' = u + k (N + S + E + W - 4u), k <= 1/4: every new value is a convex
// combination of old ones (no overflow, no subnormals), as in bench/heat.
inline constexpr double diffusion = 0.2;

// Two grids of side + 2 rows (a fixed boundary row above and below the
// side x side interior) of `ld` doubles each: one boundary column on each
// side, then the padding.
struct grid_shape {
  std::int64_t side;    // interior cells per row and column
  std::int64_t ld;      // doubles from one row to the next: side + 2 + padding
  std::int64_t cutoff;  // a subgrid of at most cutoff x cutoff cells is one task
};

// A subgrid of interior cells: rows [r0, r1), columns [c0, c1), 1-based
// (row and column 0 are boundary).
struct region {
  std::int64_t r0, r1, c0, c1;
  std::int64_t cells() const { return (r1 - r0) * (c1 - c0); }
};

inline void update_block(const double* src, double* dst, std::int64_t ld, const region& b) {
  const auto width = static_cast<std::size_t>(b.c1 - b.c0);
  for (std::int64_t i = b.r0 - 1; i <= b.r1; ++i)
    locus::touch(src + i * ld + b.c0 - 1, (width + 2) * sizeof(double), locus::access::read);
  locus::compute(static_cast<std::uint64_t>(5 * b.cells()));
  for (std::int64_t i = b.r0; i < b.r1; ++i) {
    const double* up = src + (i - 1) * ld;
    const double* mid = src + i * ld;
    const double* down = src + (i + 1) * ld;
    double* out = dst + i * ld;
    locus::touch(out + b.c0, width * sizeof(double), locus::access::write);
    // As in bench/heat: vectorized on every backend, each cell computed by
    // the same operations in the same order, so results are bit-identical.
#pragma omp simd
    for (std::int64_t j = b.c0; j < b.c1; ++j)
      out[j] = mid[j] + diffusion * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4.0 * mid[j]);
  }
}

// Bytes of both grids a subgrid's task touches: its working set.
inline std::size_t footprint_of(const region& b) { return 2 * static_cast<std::size_t>(b.cells()) * sizeof(double); }

// One time step over region b: four quadrants (two halves along a side that
// is already at the cutoff) in parallel, recursively, down to the cutoff.
template <class P>
void step(const double* src, double* dst, const grid_shape& g, const region& b) {
  const bool split_rows = b.r1 - b.r0 > g.cutoff, split_cols = b.c1 - b.c0 > g.cutoff;
  if (!split_rows && !split_cols) return update_block(src, dst, g.ld, b);
  const std::int64_t rm = split_rows ? (b.r0 + b.r1) / 2 : b.r1, cm = split_cols ? (b.c0 + b.c1) / 2 : b.c1;
  // Quadrants in row-major order: top-left, top-right, bottom-left,
  // bottom-right (empty ones when a side is not split).
  const region q[4] = {{b.r0, rm, b.c0, cm}, {b.r0, rm, cm, b.c1}, {rm, b.r1, b.c0, cm}, {rm, b.r1, cm, b.c1}};
  auto run = [&](int k) {
    if (q[k].cells() > 0) step<P>(src, dst, g, q[k]);
  };
  if constexpr (bench::hints_apply<P>) {
    // A child takes its share of the ADWS range from the top of what is
    // left, so the last quadrant is spawned first: quadrant k gets the
    // k-th share of the group's workers, and the top rows (placed first by
    // place_blocks) go to the first workers.
    locus::task_group group(locus::work(static_cast<double>(b.cells())), locus::footprint(footprint_of(b)));
    for (int k = 3; k >= 0; --k)
      if (q[k].cells() > 0) group.spawn([&run, k] { run(k); }, locus::work(static_cast<double>(q[k].cells())));
    group.sync();
  } else {
    P::fork2([&] { P::fork2([&] { run(0); }, [&] { run(1); }); }, [&] { P::fork2([&] { run(2); }, [&] { run(3); }); });
  }
}

// `steps` time steps from `even` (step 0 reads even and writes odd, ...);
// returns the grid with the final state. All steps run in one P::run.
template <class P>
double* run_steps(double* even, double* odd, const grid_shape& g, std::int64_t steps) {
  const region whole{1, g.side + 1, 1, g.side + 1};
  P::run([&] {
    for (std::int64_t s = 0; s < steps; ++s) step<P>(s % 2 == 0 ? even : odd, s % 2 == 0 ? odd : even, g, whole);
  });
  return steps % 2 == 0 ? even : odd;
}

}  // namespace heat2d
