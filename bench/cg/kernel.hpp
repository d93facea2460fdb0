// cg: the NAS CG computation. An inverse power method estimates the smallest
// eigenvalue of a sparse symmetric positive-definite matrix A (CSR): each
// outer step solves A z = x with a fixed number of unpreconditioned conjugate
// gradient iterations from z = 0 (NAS conj_grad), then the next right-hand
// side is x = z / ||z||. Per CG iteration: one sparse matrix-vector product (a
// loop over rows), two dot products (reductions) and three vector updates
// (loops). All outer steps sit in one region; under OpenMP every thread of
// the team runs them and computes the scalars itself from reductions that
// return the same total on every thread, so all threads take the same steps.
//
// For the simulator (README.md) every loop piece declares the entries of the
// arrays it reads and writes, and one cycle per multiply or multiply-add
// (two per nonzero in the matrix-vector product, one of them for the gather
// from the vector, which is not declared as memory).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/places.hpp"

namespace cg {

struct csr_matrix {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;  // n + 1 entries
  std::vector<std::int32_t> column;     // sorted within each row
  std::vector<double> value;
};

// out[i] = (A v)[i] for rows [lo, hi). The gathers v[column[k]] are
// declared as such (touch_indexed: independent accesses, their misses
// overlapped but not prefetched), so the serial and the parallel variants
// declare the same work.
inline void multiply_rows(const csr_matrix& a, const double* v, double* out, std::int64_t lo, std::int64_t hi) {
  const std::int64_t first = a.row_start[lo], last = a.row_start[hi];
  bench::touch_n(&a.row_start[lo], hi - lo + 1, locus::access::read);
  bench::touch_n(a.column.data() + first, last - first, locus::access::read);
  bench::touch_n(a.value.data() + first, last - first, locus::access::read);
  locus::touch_indexed(v, a.column.data() + first, static_cast<std::size_t>(last - first), sizeof(double));
  bench::touch_n(out + lo, hi - lo, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(2 * (last - first)));
  for (std::int64_t i = lo; i < hi; ++i) {
    double sum = 0.0;
    for (std::int64_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) sum += a.value[k] * v[a.column[k]];
    out[i] = sum;
  }
}

struct vectors {
  double* x;  // in: the first right-hand side; out: the last one
  double* z;  // out: the solution of the last solve
  double* r;  // residual x - A z, updated by recurrence
  double* p;  // search direction
  double* q;  // A p
};

struct schedule {
  std::int64_t outer;         // power-method steps (NAS niter)
  std::int64_t inner;         // CG iterations per solve (NAS cgitmax = 25)
  std::int64_t row_grain;     // matrix rows per loop piece
  std::int64_t vector_grain;  // vector entries per loop piece
};

// Returns 1 / (x . z) of the last solve: with ||x|| = 1 and x close to the
// eigenvector, the smallest eigenvalue of A.
template <class P>
double inverse_power(const csr_matrix& a, vectors v, schedule s) {
  const std::int64_t n = a.n;
  auto dot = [n, &s](const double* u, const double* w) {
    return bench::place_reduce<P>(0, n, s.vector_grain, [u, w](std::int64_t lo, std::int64_t hi) {
      bench::touch_n(u + lo, hi - lo, locus::access::read);
      if (w != u) bench::touch_n(w + lo, hi - lo, locus::access::read);
      locus::compute(static_cast<std::uint64_t>(hi - lo));
      double sum = 0.0;
      for (std::int64_t i = lo; i < hi; ++i) sum += u[i] * w[i];
      return sum;
    });
  };
  // body(i) for every entry i, reading the vectors `in` and writing `out`
  // with `cycles` per entry; each piece declares its entries of them.
  auto vector_loop = [n, &s](std::initializer_list<const double*> in, std::initializer_list<double*> out,
                             std::uint64_t cycles, auto&& body) {
    bench::place_loop<P>(0, n, s.vector_grain, [&](std::int64_t lo, std::int64_t hi) {
      for (const double* u : in) bench::touch_n(u + lo, hi - lo, locus::access::read);
      for (double* u : out) bench::touch_n(u + lo, hi - lo, locus::access::write);
      locus::compute(cycles * static_cast<std::uint64_t>(hi - lo));
      for (std::int64_t i = lo; i < hi; ++i) body(i);
    });
  };
  double eigenvalue = 0.0;
  P::region([&] {
    // Locals of the region: under OpenMP each thread has its own copy, and
    // all copies are equal because every reduction returns the same total on
    // every thread.
    double x_dot_z = 0.0;
    for (std::int64_t step = 0; step < s.outer; ++step) {
      if (step > 0) {
        const double scale = 1.0 / std::sqrt(dot(v.z, v.z));
        vector_loop({v.z}, {v.x}, 1, [&](std::int64_t i) { v.x[i] = scale * v.z[i]; });
      }
      vector_loop({v.x}, {v.z, v.r, v.p}, 0, [&](std::int64_t i) {
        v.z[i] = 0.0;
        v.r[i] = v.x[i];
        v.p[i] = v.x[i];
      });
      double rho = dot(v.r, v.r);
      for (std::int64_t it = 0; it < s.inner; ++it) {
        bench::place_loop<P>(0, n, s.row_grain, [&](std::int64_t lo, std::int64_t hi) { multiply_rows(a, v.p, v.q, lo, hi); });
        const double alpha = rho / dot(v.p, v.q);
        vector_loop({v.p, v.q}, {v.z, v.r}, 2, [&](std::int64_t i) {
          v.z[i] += alpha * v.p[i];
          v.r[i] -= alpha * v.q[i];
        });
        const double rho_next = dot(v.r, v.r);
        // An exactly zero residual means z is the solution; another step
        // would divide 0 by 0.
        if (rho_next == 0.0) break;
        const double beta = rho_next / rho;
        rho = rho_next;
        vector_loop({v.r}, {v.p}, 1, [&](std::int64_t i) { v.p[i] = v.r[i] + beta * v.p[i]; });
      }
      x_dot_z = dot(v.x, v.z);
    }
    P::single([&] { eigenvalue = 1.0 / x_dot_z; });
  });
  return eigenvalue;
}

}  // namespace cg
