// The Mandelbrot set over a width x height grid of the complex plane: for
// each pixel c the number of iterations of z <- z^2 + c, from z = 0, before
// |z| > 2, at most max_iter. The Mandelbrot control of CATS (seed 002,
// Table 1 and section 4.3).
//
// Parallel: the rows are halved recursively with P::fork2 down to `leaf`
// rows (bench::row_tree_run, balanced); a leaf computes its rows serially.
// Each pixel's arithmetic is the same in every variant, so the counts are
// too.
//
// For the simulator (README.md) a leaf declares its rows of the output
// (written) and 8 cycles per iteration plus 4 per pixel, from the
// iterations it counted.
#pragma once

#include <cstdint>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/row_tree.hpp"

namespace mandelbrot {

// One iteration: zr^2, zi^2, their sum, the test, 2 zr zi + ci (a multiply
// and a multiply-add), zr^2 - zi^2 + cr (two): 8. Per pixel: its c (a
// multiply-add) and the final test that escapes (about 3 more).
inline constexpr std::uint64_t iteration_cycles = 8;
inline constexpr std::uint64_t pixel_cycles = 4;

struct frame {
  std::int64_t width, height;
  std::uint32_t max_iter;
  double x0, y0;  // the corner of pixel (0, 0)
  double dx, dy;  // the distance between pixels
};

// The iterations before z escapes (|z| > 2), at most max_iter.
inline std::uint32_t escape(double cr, double ci, std::uint32_t max_iter) {
  double zr = 0.0, zi = 0.0;
  std::uint32_t i = 0;
  for (; i < max_iter; ++i) {
    const double zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0) break;
    zi = 2.0 * zr * zi + ci;
    zr = zr2 - zi2 + cr;
  }
  return i;
}

// Rows [lo, hi) of `out` (width counts a row), declared to the simulator.
inline void rows(const frame& f, std::uint32_t* out, std::int64_t lo, std::int64_t hi) {
  std::uint64_t iterations = 0;
  for (std::int64_t y = lo; y < hi; ++y) {
    const double ci = f.y0 + static_cast<double>(y) * f.dy;
    std::uint32_t* row = out + y * f.width;
    for (std::int64_t x = 0; x < f.width; ++x) {
      row[x] = escape(f.x0 + static_cast<double>(x) * f.dx, ci, f.max_iter);
      iterations += row[x];
    }
  }
  bench::touch_n(out + lo * f.width, (hi - lo) * f.width, locus::access::write);
  locus::compute(iterations * iteration_cycles + static_cast<std::uint64_t>((hi - lo) * f.width) * pixel_cycles);
}

// The whole frame into out[0, width * height), row-major.
template <class P>
void compute(const frame& f, std::uint32_t* out, std::int64_t leaf) {
  bench::row_tree_run<P>(bench::row_tree::balanced, 0, f.height, leaf,
                         [&](std::int64_t lo, std::int64_t hi) { rows(f, out, lo, hi); });
}

}  // namespace mandelbrot
