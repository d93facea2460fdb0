// A recursive radix-2 complex FFT (Cooley-Tukey, decimation in time, out of
// place): the transform of n points is the transforms of the even and the
// odd points, combined by n/2 butterflies. The FFT control of CATS (seed
// 002, Table 1 and section 4.3).
//
// Parallel: above `leaf` points the two half transforms run under P::fork2
// and the butterflies of the combine are split into pieces of `grain` by
// P::fork2 too (bench::row_tree_run, balanced), so the span is
// polylogarithmic; at or below `leaf` points the same recursion runs
// serially. Every output element goes through the same operations in the
// same order in every variant, so the results are equal bit for bit.
//
// Twiddles: one table of n entries, tw[h + k] = exp(-i pi k / h) for every
// half size h (1, 2, 4, ..., n/2) and k < h, so each level reads its own
// twiddles contiguously.
//
// For the simulator (README.md) a leaf declares its input (a gather at its
// stride), its output (written), its twiddles (read) and 8 cycles per
// butterfly, (m/2) log2(m) butterflies for m points; a combine piece its two
// output ranges (written in place), its twiddles (read) and 8 cycles per
// butterfly.
#pragma once

#include <bit>
#include <cstdint>
#include <ostream>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/row_tree.hpp"

namespace fft {

// A butterfly: the twiddle times the odd value (two multiplies and two
// multiply-adds), and the sum and difference with the even value (four
// additions).
inline constexpr std::uint64_t butterfly_cycles = 8;

struct cplx {
  double re, im;
};
inline std::ostream& operator<<(std::ostream& s, const cplx& c) { return s << "(" << c.re << ", " << c.im << ")"; }

struct plan {
  const cplx* tw;    // the twiddle table, n entries (n >= 2)
  std::int64_t leaf;   // transforms of at most this many points run serially (a power of two)
  std::int64_t grain;  // butterflies per parallel piece of a combine
  // For the simulator: the offsets 0, s, 2s, ... of a leaf's input points
  // from its first one. With n and leaf powers of two every leaf has
  // min(leaf, n) points at stride n / min(leaf, n).
  const std::int64_t* gather;
};

// Butterflies k in [lo, hi) of the combine at half size h: out[0, h) holds
// the even points' transform, out[h, 2h) the odd points'; w = tw + h.
inline void butterflies(cplx* out, std::int64_t h, const cplx* w, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t k = lo; k < hi; ++k) {
    const cplx a = out[k], b = out[k + h];
    const cplx t{w[k].re * b.re - w[k].im * b.im, w[k].re * b.im + w[k].im * b.re};
    out[k] = {a.re + t.re, a.im + t.im};
    out[k + h] = {a.re - t.re, a.im - t.im};
  }
}

// The transform of in[0], in[stride], ..., in[(n-1) stride] into out[0, n),
// serially, declaring nothing.
inline void serial(const cplx* in, std::int64_t stride, cplx* out, std::int64_t n, const cplx* tw) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  if (n == 2) {
    const cplx a = in[0], b = in[stride];
    out[0] = {a.re + b.re, a.im + b.im};
    out[1] = {a.re - b.re, a.im - b.im};
    return;
  }
  const std::int64_t h = n / 2;
  serial(in, 2 * stride, out, h, tw);
  serial(in + stride, 2 * stride, out + h, h, tw);
  butterflies(out, h, tw + h, 0, h);
}

// Butterflies of a transform of n points (a power of two): (n/2) log2 n.
inline std::uint64_t butterflies_of(std::int64_t n) {
  const auto m = static_cast<std::uint64_t>(n);
  return m / 2 * static_cast<std::uint64_t>(std::bit_width(m) - 1);
}

template <class P>
void transform(const cplx* in, std::int64_t stride, cplx* out, std::int64_t n, const plan& p) {
  if (n <= p.leaf) {
    locus::touch_indexed(in, p.gather, static_cast<std::size_t>(n), sizeof(cplx), locus::access::read);
    bench::touch_n(p.tw + 1, n - 1, locus::access::read);
    bench::touch_n(out, n, locus::access::write);
    locus::compute(butterflies_of(n) * butterfly_cycles);
    serial(in, stride, out, n, p.tw);
    return;
  }
  const std::int64_t h = n / 2;
  P::fork2([&] { transform<P>(in, 2 * stride, out, h, p); },
           [&] { transform<P>(in + stride, 2 * stride, out + h, h, p); });
  bench::row_tree_run<P>(bench::row_tree::balanced, 0, h, p.grain, [&](std::int64_t lo, std::int64_t hi) {
    bench::touch_n(out + lo, hi - lo, locus::access::write);
    bench::touch_n(out + h + lo, hi - lo, locus::access::write);
    bench::touch_n(p.tw + h + lo, hi - lo, locus::access::read);
    locus::compute(static_cast<std::uint64_t>(hi - lo) * butterfly_cycles);
    butterflies(out, h, p.tw + h, lo, hi);
  });
}

}  // namespace fft
