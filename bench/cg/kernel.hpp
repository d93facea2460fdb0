// cg: unpreconditioned conjugate gradient on A x = b with a sparse symmetric
// positive-definite A in CSR form, as in the inner loop (conj_grad) of NAS CG.
// Per iteration: one sparse matrix-vector product (a loop over rows), two dot
// products (reductions) and three vector updates (loops). The iteration loop
// sits in one region; under OpenMP every thread of the team runs it and
// computes the scalars itself from reductions that return the same total on
// every thread, so all threads take the same steps.
#pragma once

#include <cstdint>
#include <vector>

namespace cg {

struct csr_matrix {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_start;  // n + 1 entries
  std::vector<std::int32_t> column;     // sorted within each row
  std::vector<double> value;
};

// out[i] = (A v)[i] for rows [lo, hi).
inline void multiply_rows(const csr_matrix& a, const double* v, double* out, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t i = lo; i < hi; ++i) {
    double sum = 0.0;
    for (std::int64_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) sum += a.value[k] * v[a.column[k]];
    out[i] = sum;
  }
}

// Work vectors of length n; their contents on entry do not matter.
struct work_vectors {
  double* r;  // residual b - A x, updated by recurrence
  double* p;  // search direction
  double* q;  // A p
};

// `iterations` steps of CG from x = 0. Rows of A are split into pieces of
// `row_grain` rows, vectors into pieces of `vector_grain` entries.
template <class P>
void solve(const csr_matrix& a, const double* b, double* x, work_vectors w, std::int64_t iterations,
           std::int64_t row_grain, std::int64_t vector_grain) {
  const std::int64_t n = a.n;
  auto dot = [n, vector_grain](const double* u, const double* v) {
    return P::reduce(0, n, vector_grain, [u, v](std::int64_t lo, std::int64_t hi) {
      double sum = 0.0;
      for (std::int64_t i = lo; i < hi; ++i) sum += u[i] * v[i];
      return sum;
    });
  };
  P::region([&] {
    P::loop(0, n, vector_grain, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        x[i] = 0.0;
        w.r[i] = b[i];
        w.p[i] = b[i];
      }
    });
    // Locals of the region: under OpenMP each thread has its own copy, and
    // all copies are equal because every reduction returns the same total on
    // every thread.
    double rho = dot(w.r, w.r);
    for (std::int64_t it = 0; it < iterations; ++it) {
      P::loop(0, n, row_grain, [&](std::int64_t lo, std::int64_t hi) { multiply_rows(a, w.p, w.q, lo, hi); });
      const double alpha = rho / dot(w.p, w.q);
      P::loop(0, n, vector_grain, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) {
          x[i] += alpha * w.p[i];
          w.r[i] -= alpha * w.q[i];
        }
      });
      const double rho_next = dot(w.r, w.r);
      // An exactly zero residual means x is the solution; another step would
      // divide 0 by 0.
      if (rho_next == 0.0) break;
      const double beta = rho_next / rho;
      rho = rho_next;
      P::loop(0, n, vector_grain, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) w.p[i] = w.r[i] + beta * w.p[i];
      });
    }
  });
}

}  // namespace cg
