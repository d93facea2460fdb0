// matmul and matmul-z (NUMA-WS, seed 000, section V; the MIT Cilk-5
// benchmark "with no temporary matrices"): C += A * B for n x n matrices by
// eight-way divide and conquer. Each matrix is split into quadrants; the four
// products that write distinct quadrants of C run in parallel, then the other
// four, which add into the same quadrants. Below the block size a serial loop
// multiplies one block.
//
// The kernel is written once over the backend P and over the storage of the
// matrices M, row_major (matmul) or zmorton (matmul-z, the blocked Z-Morton
// layout of section III-C); strassen/kernel.hpp reuses both and the base case.
//
// For the simulator the base case declares the three blocks it reads and
// writes and one cycle per multiply-add (README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>
#include "common/places.hpp"

namespace matmul {

// Declares `rows` rows of `cols` elements, `ld` elements apart: one range
// when the rows are adjacent (a Z-Morton block, a temporary), else one per row.
inline void touch_rows(const double* first, std::size_t ld, std::size_t rows, std::size_t cols, locus::access how) {
  if (ld == cols) return locus::touch(first, rows * cols * sizeof(double), how);
  for (std::size_t i = 0; i < rows; ++i) locus::touch(first + i * ld, cols * sizeof(double), how);
}

// A square sub-matrix stored row-major with leading dimension ld.
struct row_major {
  double* data;
  std::size_t ld;

  // Quadrant (r, c), r and c in {0, 1}, of this matrix of side 2h.
  row_major quadrant(std::size_t r, std::size_t c, std::size_t h) const { return {data + r * h * ld + c * h, ld}; }
  // Leading dimension of this matrix, of side m, as a base-case block.
  std::size_t base_ld(std::size_t) const { return ld; }
  // Element-wise operations walk a matrix of side m as m stripes of m
  // contiguous elements; matrices of one storage and side put a given
  // element in the same stripe at the same position. Here: row i.
  double* stripe(std::size_t i, std::size_t) const { return data + i * ld; }
  // A matrix of side m on its own in `buffer` (m * m elements).
  static row_major whole(double* buffer, std::size_t m) { return {buffer, m}; }
};

// A square sub-matrix, of side a multiple of the block, in the blocked
// Z-Morton layout (locus/zmorton.hpp): it is contiguous, and so are its
// quadrants, in the order top-left, top-right, bottom-left, bottom-right.
struct zmorton {
  double* data;

  zmorton quadrant(std::size_t r, std::size_t c, std::size_t h) const { return {data + (2 * r + c) * h * h}; }
  // The base case is one block, row-major inside.
  std::size_t base_ld(std::size_t m) const { return m; }
  double* stripe(std::size_t i, std::size_t m) const { return data + i * m; }
  static zmorton whole(double* buffer, std::size_t) { return {buffer}; }
};

// c += a * b for m x m row-major blocks. Loop order i, k, j: the inner loop
// runs along rows of b and c, and every element of c receives its products
// in increasing k, the order of the plain triple loop. Four values of k per
// pass over a row of c: one load and store of c per four products, with the
// additions still in the same order. `omp simd` lets the compiler vectorize
// without proving that c does not overlap a and b (GCC's -O2 will not add
// run-time overlap checks); it only affects code generation, on every
// backend alike.
inline void multiply_add_block(const double* a, std::size_t lda, const double* b, std::size_t ldb, double* c,
                               std::size_t ldc, std::size_t m) {
  touch_rows(a, lda, m, m, locus::access::read);
  touch_rows(b, ldb, m, m, locus::access::read);
  touch_rows(c, ldc, m, m, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(m) * m * m);
  for (std::size_t i = 0; i < m; ++i) {
    double* c_row = c + i * ldc;
    const double* a_row = a + i * lda;
    std::size_t k = 0;
    for (; k + 4 <= m; k += 4) {
      const double *b0 = b + k * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
#pragma omp simd
      for (std::size_t j = 0; j < m; ++j)
        c_row[j] = c_row[j] + a_row[k] * b0[j] + a_row[k + 1] * b1[j] + a_row[k + 2] * b2[j] + a_row[k + 3] * b3[j];
    }
    for (; k < m; ++k) {
      const double* b_row = b + k * ldb;
#pragma omp simd
      for (std::size_t j = 0; j < m; ++j) c_row[j] += a_row[k] * b_row[j];
    }
  }
}

// c += a * b, all of side m = block * 2^k; a and b are only read.
template <class P, class M>
void multiply_add(M a, M b, M c, std::size_t m, std::size_t block) {
  if (m <= block) return multiply_add_block(a.data, a.base_ld(m), b.data, b.base_ld(m), c.data, c.base_ld(m), m);
  const std::size_t h = m / 2;
  const M a00 = a.quadrant(0, 0, h), a01 = a.quadrant(0, 1, h), a10 = a.quadrant(1, 0, h), a11 = a.quadrant(1, 1, h);
  const M b00 = b.quadrant(0, 0, h), b01 = b.quadrant(0, 1, h), b10 = b.quadrant(1, 0, h), b11 = b.quadrant(1, 1, h);
  const M c00 = c.quadrant(0, 0, h), c01 = c.quadrant(0, 1, h), c10 = c.quadrant(1, 0, h), c11 = c.quadrant(1, 1, h);
  auto product = [&](M x, M y, M z) { multiply_add<P>(x, y, z, h, block); };
  // Each fork declares its branches' working sets for the multi-level
  // policies (seed 003, figure 2b): a product of side h touches three
  // h x h blocks, a pair of products six (counted per branch, so shared
  // blocks of a count twice). Equal work for every branch.
  const std::size_t one = 3 * h * h * sizeof(double), two = 2 * one;
  auto pair = [&](M x0, M y0, M z0, M x1, M y1, M z1) {
    bench::fork_sized<P>(1, one, [&] { product(x0, y0, z0); }, 1, one, [&] { product(x1, y1, z1); });
  };
  // The left half of the inner dimension: four products into four distinct
  // quadrants of c, so they may run in parallel.
  bench::fork_sized<P>(1, two, [&] { pair(a00, b00, c00, a00, b01, c01); }, 1, two,
                       [&] { pair(a10, b00, c10, a10, b01, c11); });
  // The right half adds into the same quadrants, so it starts after the join;
  // this also keeps every element's additions in increasing k.
  bench::fork_sized<P>(1, two, [&] { pair(a01, b10, c00, a01, b11, c01); }, 1, two,
                       [&] { pair(a11, b10, c10, a11, b11, c11); });
}

// The top level with locality hints (NUMA-WS V, matmul with hints): the
// product into quadrant k of c (00, 01, 10, 11: in Z order, the k-th
// quarter of a blocked Z-Morton matrix, where prepare() put it) runs at
// place part_place(k, 4); below the top the hints are inherited.
template <class P, class M>
void multiply_add_top(M a, M b, M c, std::size_t m, std::size_t block) {
  const int places = bench::places<P>();
  if (places == 1 || m <= block) return multiply_add<P>(a, b, c, m, block);
  const std::size_t h = m / 2;
  const M a00 = a.quadrant(0, 0, h), a01 = a.quadrant(0, 1, h), a10 = a.quadrant(1, 0, h), a11 = a.quadrant(1, 1, h);
  const M b00 = b.quadrant(0, 0, h), b01 = b.quadrant(0, 1, h), b10 = b.quadrant(1, 0, h), b11 = b.quadrant(1, 1, h);
  const M c00 = c.quadrant(0, 0, h), c01 = c.quadrant(0, 1, h), c10 = c.quadrant(1, 0, h), c11 = c.quadrant(1, 1, h);
  auto product = [&](M x, M y, M z) { multiply_add<P>(x, y, z, h, block); };
  auto at = [places](int quadrant) { return bench::part_place(quadrant, 4, places); };
  // Footprints as in multiply_add: three h x h blocks per product.
  const std::size_t two = 2 * 3 * h * h * sizeof(double), four = 2 * two;
  for (int half = 0; half < 2; ++half) {
    const M a0 = half == 0 ? a00 : a01, a1 = half == 0 ? a10 : a11;
    const M b0 = half == 0 ? b00 : b10, b1 = half == 0 ? b01 : b11;
    bench::fork_at<P>(
        at(0),
        [&] { bench::fork_at<P>(at(0), [&] { product(a0, b0, c00); }, at(1), [&] { product(a0, b1, c01); }, two); },
        at(2),
        [&] { bench::fork_at<P>(at(2), [&] { product(a1, b0, c10); }, at(3), [&] { product(a1, b1, c11); }, two); },
        four);
  }
}

// The benchmark's entry: c += a * b for matrices of side n.
template <class P, class M>
void matmul(M a, M b, M c, std::size_t n, std::size_t block) {
  P::run([&] { multiply_add_top<P>(a, b, c, n, block); });
}

}  // namespace matmul
