// strassen and strassen-z (NUMA-WS, seed 000, section V; from MIT Cilk-5):
// C = A * B by Strassen's algorithm. Each level forms seven products of
// half-size sums of quadrants, M1..M7, in temporaries, runs them in
// parallel, and combines them into the quadrants of C:
//
//   M1 = (A00 + A11)(B00 + B11)   M5 = (A00 + A01) B11
//   M2 = (A10 + A11) B00          M6 = (A10 - A00)(B00 + B01)
//   M3 = A00 (B01 - B11)          M7 = (A01 - A11)(B10 + B11)
//   M4 = A11 (B10 - B00)
//   C00 = M1 + M4 - M5 + M7       C01 = M3 + M5
//   C10 = M2 + M4                 C11 = M1 - M2 + M3 + M6
//
// At the block size it falls back to the classic base-case multiply of
// matmul/kernel.hpp. Written once over the backend P and the storage M
// (matmul::row_major for strassen, matmul::zmorton for strassen-z, where
// every quadrant and every temporary is contiguous).
//
// For the simulator (README.md) every piece of an element-wise pass declares
// the stripes it reads and writes and one cycle per addition or subtraction;
// the base case declares what matmul's base case declares.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include <locus/annotate.hpp>

#include "matmul/kernel.hpp"

namespace strassen {

// One operand of a product: x alone (sign 0), x + y (sign +1) or x - y
// (sign -1).
template <class M>
struct operand {
  M x, y;
  int sign;
};
template <class M>
operand<M> alone(M x) {
  return {x, x, 0};
}
template <class M>
operand<M> sum(M x, M y) {
  return {x, y, +1};
}
template <class M>
operand<M> difference(M x, M y) {
  return {x, y, -1};
}

// Element-wise passes split the m stripes of a matrix of side m into pieces
// of at least this many elements, so that small levels run as one plain loop.
constexpr std::size_t min_elements_per_piece = std::size_t{1} << 14;

// Each piece of stripes [lo, hi) first calls declare(lo, hi), then stripe(i)
// for each of its stripes.
template <class P, class Declare, class Stripe>
void for_each_stripe(std::size_t m, Declare&& declare, Stripe&& stripe) {
  const auto grain = static_cast<std::int64_t>(std::max<std::size_t>(1, min_elements_per_piece / m));
  P::loop(0, static_cast<std::int64_t>(m), grain, [&](std::int64_t lo, std::int64_t hi) {
    declare(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi));
    for (auto i = static_cast<std::size_t>(lo); i < static_cast<std::size_t>(hi); ++i) stripe(i);
  });
}

// Declares stripes [lo, hi) of x, a matrix of side m.
template <class M>
void touch_stripes(M x, std::size_t lo, std::size_t hi, std::size_t m, locus::access how) {
  matmul::touch_rows(x.stripe(lo, m), x.base_ld(m), hi - lo, m, how);
}

// out = x + y or x - y, of side m. The element-wise loops carry `omp simd`
// for the reason given at matmul::multiply_add_block.
template <class P, class M>
void form(M out, const operand<M>& o, std::size_t m) {
  auto declare = [&](std::size_t lo, std::size_t hi) {
    touch_stripes(o.x, lo, hi, m, locus::access::read);
    touch_stripes(o.y, lo, hi, m, locus::access::read);
    touch_stripes(out, lo, hi, m, locus::access::write);
    locus::compute((hi - lo) * m);
  };
  for_each_stripe<P>(m, declare, [&](std::size_t i) {
    double* d = out.stripe(i, m);
    const double* x = o.x.stripe(i, m);
    const double* y = o.y.stripe(i, m);
    if (o.sign > 0) {
#pragma omp simd
      for (std::size_t j = 0; j < m; ++j) d[j] = x[j] + y[j];
    } else {
#pragma omp simd
      for (std::size_t j = 0; j < m; ++j) d[j] = x[j] - y[j];
    }
  });
}

// c = a * b, all of side m = block * 2^k; a and b are only read.
template <class P, class M>
void multiply(M a, M b, M c, std::size_t m, std::size_t block) {
  if (m <= block) {
    // The block of c is declared once, as written, by the multiply-add.
    const std::size_t ldc = c.base_ld(m);
    for (std::size_t i = 0; i < m; ++i) std::fill_n(c.data + i * ldc, m, 0.0);
    return matmul::multiply_add_block(a.data, a.base_ld(m), b.data, b.base_ld(m), c.data, ldc, m);
  }
  const std::size_t h = m / 2, hh = h * h;
  const M a00 = a.quadrant(0, 0, h), a01 = a.quadrant(0, 1, h), a10 = a.quadrant(1, 0, h), a11 = a.quadrant(1, 1, h);
  const M b00 = b.quadrant(0, 0, h), b01 = b.quadrant(0, 1, h), b10 = b.quadrant(1, 0, h), b11 = b.quadrant(1, 1, h);

  // M1..M7, each in its own part of one buffer so the products are independent.
  const auto products = std::make_unique_for_overwrite<double[]>(7 * hh);
  auto product = [&](int k) { return M::whole(products.get() + (k - 1) * hh, h); };

  // M_k = left * right. A sum operand is formed in scratch memory the task
  // allocates itself: only running tasks hold scratch.
  auto compute = [&](int k, const operand<M>& left, const operand<M>& right) {
    const int sums = (left.sign != 0) + (right.sign != 0);
    const auto scratch = std::make_unique_for_overwrite<double[]>(sums * hh);
    double* next = scratch.get();
    auto materialize = [&](const operand<M>& o) {
      if (o.sign == 0) return o.x;
      const M formed = M::whole(next, h);
      next += hh;
      form<P>(formed, o, h);
      return formed;
    };
    const M l = materialize(left), r = materialize(right);
    multiply<P>(l, r, product(k), h, block);
  };
  P::fork2(
      [&] {
        P::fork2([&] { P::fork2([&] { compute(1, sum(a00, a11), sum(b00, b11)); },
                                [&] { compute(2, sum(a10, a11), alone(b00)); }); },
                 [&] { P::fork2([&] { compute(3, alone(a00), difference(b01, b11)); },
                                [&] { compute(4, alone(a11), difference(b10, b00)); }); });
      },
      [&] {
        P::fork2([&] { P::fork2([&] { compute(5, sum(a00, a01), alone(b11)); },
                                [&] { compute(6, difference(a10, a00), sum(b00, b01)); }); },
                 [&] { compute(7, difference(a01, a11), sum(b10, b11)); });
      });

  const M m1 = product(1), m2 = product(2), m3 = product(3), m4 = product(4), m5 = product(5), m6 = product(6),
          m7 = product(7);
  const M c00 = c.quadrant(0, 0, h), c01 = c.quadrant(0, 1, h), c10 = c.quadrant(1, 0, h), c11 = c.quadrant(1, 1, h);
  // The quadrants of c from the seven products, by the formulas at the top:
  // 8 additions or subtractions per position.
  auto declare = [&](std::size_t lo, std::size_t hi) {
    for (const M& p : {m1, m2, m3, m4, m5, m6, m7}) touch_stripes(p, lo, hi, h, locus::access::read);
    for (const M& q : {c00, c01, c10, c11}) touch_stripes(q, lo, hi, h, locus::access::write);
    locus::compute(8 * (hi - lo) * h);
  };
  for_each_stripe<P>(h, declare, [&](std::size_t i) {
    const double *p1 = m1.stripe(i, h), *p2 = m2.stripe(i, h), *p3 = m3.stripe(i, h), *p4 = m4.stripe(i, h),
                 *p5 = m5.stripe(i, h), *p6 = m6.stripe(i, h), *p7 = m7.stripe(i, h);
    double *q00 = c00.stripe(i, h), *q01 = c01.stripe(i, h), *q10 = c10.stripe(i, h), *q11 = c11.stripe(i, h);
#pragma omp simd
    for (std::size_t j = 0; j < h; ++j) {
      q00[j] = p1[j] + p4[j] - p5[j] + p7[j];
      q01[j] = p3[j] + p5[j];
      q10[j] = p2[j] + p4[j];
      q11[j] = p1[j] - p2[j] + p3[j] + p6[j];
    }
  });
}

// The benchmark's entry: c = a * b for matrices of side n.
template <class P, class M>
void strassen(M a, M b, M c, std::size_t n, std::size_t block) {
  P::run([&] { multiply<P>(a, b, c, n, block); });
}

}  // namespace strassen
