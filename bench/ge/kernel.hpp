// ge, ge-ub: CATS's GE and GE-ub (seed 002, section 4, Table 1): Gaussian
// elimination of an n x n matrix of doubles (row major), in place, without
// pivoting (the matrix is strictly diagonally dominant by rows, which
// elimination keeps, so every pivot is far from zero). Step k (k = 0, 1,
// ...) eliminates column k below the diagonal: every row i > k takes
// m = a[i][k] / a[k][k], keeps m in a[i][k] (so the result holds L below
// the diagonal and U on and above it, A = LU) and subtracts m times row k
// from its columns k + 1 .. n - 1.
//
// Every step is one root task tree over ALL n rows (common/row_tree.hpp),
// so the tree has the same shape at every step, as CATS's profile of the
// first step expects; a leaf works on its rows below row k, and a leaf
// above it does nothing. Each element is computed by the same operations
// in the same order whichever worker runs its leaf: any schedule gives the
// serial result bit for bit.
//
// For the simulator each leaf declares the pivot row's columns k .. n - 1
// (read), those columns of each of its rows (written in place) and, per
// row, 1 cycle for the division and 1 per multiply-add (README.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>

#include "common/row_tree.hpp"

namespace ge {

// Step k on rows [lo, hi) of a: only rows k + 1 .. n - 1 change.
inline void eliminate_rows(double* a, std::int64_t n, std::int64_t k, std::int64_t lo, std::int64_t hi) {
  lo = std::max(lo, k + 1);
  if (lo >= hi) return;
  const double* pivot = a + k * n;
  const auto tail_bytes = static_cast<std::size_t>(n - k) * sizeof(double);
  locus::touch(pivot + k, tail_bytes, locus::access::read);
  locus::compute(static_cast<std::uint64_t>((hi - lo) * (n - k)));
  for (std::int64_t i = lo; i < hi; ++i) {
    double* row = a + i * n;
    locus::touch(row + k, tail_bytes, locus::access::write);
    const double m = row[k] / pivot[k];
    row[k] = m;
    // Vectorized for every backend, as heat's update (bench/heat/kernel.hpp):
    // each element still takes one multiply and one subtraction, in order.
#pragma omp simd
    for (std::int64_t j = k + 1; j < n; ++j) row[j] -= m * pivot[j];
  }
}

// The first `steps` steps (at most n - 1, which completes the elimination),
// each one root task tree over the rows [0, n), called from the calling
// thread.
template <class P>
void eliminate(double* a, std::int64_t n, std::int64_t steps, std::int64_t leaf, bench::row_tree shape) {
  for (std::int64_t k = 0; k < steps; ++k)
    bench::row_tree_step<P>(shape, 0, n, leaf, [&](std::int64_t lo, std::int64_t hi) { eliminate_rows(a, n, k, lo, hi); });
}

}  // namespace ge
