// cg over MPI: a fixed number of conjugate gradient iterations on A z = x,
// A the 2-D Poisson matrix (five points: -1 for each neighbour, zero
// boundary) of an m x m grid plus a small shift on the diagonal (4 + shift),
// N = m^2 rows in CSR. The shift bounds the condition number (about
// 8 / shift whatever m), so the fixed iteration count reaches rounding level
// at every size and the check's tolerance holds (pure Poisson, far from
// converged, amplifies the ranks' other summation order with m). The grid
// lines are split into one block per rank; each rank generates its own rows
// (bench/cg's csr_matrix, columns renumbered into its local vector) and
// multiplies them with bench/cg's multiply_rows. Per iteration a rank needs
// one grid line of p from each neighbour (the halo: m entries each way), and
// two dot products are summed over the ranks (allreduce).
//
// The iteration is bench/cg's (cg::inverse_power with one outer step: z = 0,
// r = p = x, then `iterations` CG steps), so the serial reference is that
// kernel run by the serial backend on the whole matrix, on rank 0.
#pragma once

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cg/matrix.hpp"
#include "mpi/common.hpp"

namespace mpi_bench {

struct cg_params {
  std::int64_t m, iterations, grain;
  double shift;
};

// Rows of grid lines [first_line, last_line) of the m x m Poisson matrix;
// column c of the whole matrix becomes c - first_line * m + offset (offset m:
// the halo line above comes first in the local vector).
inline cg::csr_matrix poisson_rows(std::int64_t m, double shift, std::int64_t first_line, std::int64_t last_line,
                                   std::int64_t offset) {
  cg::csr_matrix a;
  a.n = (last_line - first_line) * m;
  a.row_start.reserve(static_cast<std::size_t>(a.n + 1));
  a.column.reserve(static_cast<std::size_t>(5 * a.n));
  a.value.reserve(static_cast<std::size_t>(5 * a.n));
  a.row_start.push_back(0);
  const std::int64_t renumber = offset - first_line * m;
  auto add = [&](std::int64_t column, double value) {
    a.column.push_back(static_cast<std::int32_t>(column + renumber));
    a.value.push_back(value);
  };
  for (std::int64_t i = first_line; i < last_line; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::int64_t c = i * m + j;
      if (i > 0) add(c - m, -1.0);
      if (j > 0) add(c - 1, -1.0);
      add(c, 4.0 + shift);
      if (j < m - 1) add(c + 1, -1.0);
      if (i < m - 1) add(c + m, -1.0);
      a.row_start.push_back(static_cast<std::int64_t>(a.column.size()));
    }
  return a;
}

// The right-hand side: entries in [1, 2] varying along the grid.
inline double rhs(std::int64_t i) { return 1.0 + static_cast<double>((7 * i) % 17) / 16.0; }

class cg_problem {
 public:
  cg_problem(cg_params p, int rank, int ranks) : p_(p), rank_(rank), ranks_(ranks) {
    if (p.m < 2 * static_cast<std::int64_t>(ranks))
      throw std::invalid_argument("cg: m=" + std::to_string(p.m) + " leaves fewer than 2 grid lines for each of " +
                                  std::to_string(ranks) + " ranks");
    if (p.m * p.m > INT32_MAX) throw std::invalid_argument("cg: m=" + std::to_string(p.m) + ": m^2 must fit in 32 bits");
    mine_ = block_of(0, p.m, rank, ranks);
    a_ = poisson_rows(p.m, p.shift, mine_.first, mine_.last, p.m);
    const std::int64_t rows = a_.n;
    x_.resize(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) x_[static_cast<std::size_t>(i)] = rhs(mine_.first * p.m + i);
    z_.resize(x_.size());
    r_.resize(x_.size());
    q_.resize(x_.size());
    p_ext_.resize(x_.size() + 2 * static_cast<std::size_t>(p.m));
    if (rank == 0) {
      whole_ = poisson_rows(p.m, p.shift, 0, p.m, 0);
      const std::int64_t n = whole_.n;
      whole_x_.resize(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) whole_x_[static_cast<std::size_t>(i)] = rhs(i);
      std::vector<double> x = whole_x_, r(x.size()), pv(x.size()), q(x.size());
      reference_z_.resize(x.size());
      cg::inverse_power<bench::serial_backend>(whole_, {x.data(), reference_z_.data(), r.data(), pv.data(), q.data()},
                                               {1, p.iterations, p.grain, p.grain});
      reference_residual_ = cg::residual(whole_, whole_x_, reference_z_);
    }
  }

  void prepare() { result_ready_ = false; }

  void run(variant v) {
    const std::int64_t rows = a_.n, m = p_.m;
    double* p = p_ext_.data() + m;  // own entries; p[-m..-1] and p[rows..rows+m-1] are the halos
    double* x = x_.data();
    double* z = z_.data();
    double* r = r_.data();
    double* q = q_.data();
    const std::int64_t grain = p_.grain;
    const int count = static_cast<int>(m);
    const bool aware = v == variant::locus_bsp_aware;
    auto allreduce = [aware](double local) {
      if (aware) return task_allreduce_sum(local);
      double sum = 0.0;
      check(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      return sum;
    };

    // The loops of one iteration, for each way of running a loop.
    //   start:   z = 0, r = p = x; returns r.r (this rank's part)
    //   spmv:    q = A p on rows [lo, hi)
    //   dot_pq:  p.q
    //   update:  z += alpha p, r -= alpha q; returns r.r
    //   direct:  p = r + beta p
    auto start = [&](std::int64_t lo, std::int64_t hi) {
      double s = 0.0;
      for (std::int64_t i = lo; i < hi; ++i) {
        z[i] = 0.0;
        r[i] = x[i];
        p[i] = x[i];
        s += r[i] * r[i];
      }
      return s;
    };
    auto spmv = [&](std::int64_t lo, std::int64_t hi) { cg::multiply_rows(a_, p - m, q, lo, hi); };
    auto dot_pq = [&](std::int64_t lo, std::int64_t hi) {
      double s = 0.0;
      for (std::int64_t i = lo; i < hi; ++i) s += p[i] * q[i];
      return s;
    };
    auto update = [&](double alpha, std::int64_t lo, std::int64_t hi) {
      double s = 0.0;
      for (std::int64_t i = lo; i < hi; ++i) {
        z[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        s += r[i] * r[i];
      }
      return s;
    };
    auto direct = [&](double beta, std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) p[i] = r[i] + beta * p[i];
    };

    if (v == variant::locus_tasks) {
      auto reduce = [&](auto&& body) {
        return locus::parallel_reduce(std::int64_t{0}, rows, grain, 0.0, [&](std::int64_t lo, std::int64_t hi, double acc) {
          return acc + body(lo, hi);
        }, std::plus<>());
      };
      as_root_task([&] {
        double rho = task_allreduce_sum(reduce(start));
        for (std::int64_t it = 0; it < p_.iterations; ++it) {
          MPI_Request requests[4];
          exchange_post(p, p + rows - m, p - m, p + rows, count, rank_, ranks_, requests);
          // The first and the last grid line need a halo: each is a task that
          // waits for its message; the lines between run meanwhile.
          locus::task_group edges;
          edges.spawn([&] {
            task_wait(requests[0]);
            spmv(0, m);
          }, locus::parent_first);
          edges.spawn([&] {
            task_wait(requests[1]);
            spmv(rows - m, rows);
          }, locus::parent_first);
          locus::parallel_for(m, rows - m, grain, spmv);
          edges.sync();
          const double alpha = rho / task_allreduce_sum(reduce(dot_pq));
          const double rho_next = task_allreduce_sum(reduce([&](std::int64_t lo, std::int64_t hi) {
            return update(alpha, lo, hi);
          }));
          // The sent lines of p are overwritten below.
          task_wait_all(std::span(requests + 2, 2));
          if (rho_next == 0.0) break;
          const double beta = rho_next / rho;
          rho = rho_next;
          locus::parallel_for(std::int64_t{0}, rows, grain, [&](std::int64_t lo, std::int64_t hi) { direct(beta, lo, hi); });
        }
      });
    } else {
      // How one loop runs: serially, as an OpenMP static loop, as a locus loop.
      auto loop = [&](auto&& body) {
        switch (v) {
          case variant::omp: {
            // One block of whole pieces per thread, in order.
            const std::int64_t pieces = (rows + grain - 1) / grain;
#pragma omp parallel for schedule(static)
            for (std::int64_t k = 0; k < pieces; ++k) body(k * grain, std::min(rows, (k + 1) * grain));
            break;
          }
          case variant::locus_bsp:
          case variant::locus_bsp_aware:
            locus::parallel_for(std::int64_t{0}, rows, grain, body);
            break;
          default:
            body(std::int64_t{0}, rows);
        }
      };
      auto reduce = [&](auto&& body) {
        switch (v) {
          case variant::omp: {
            const std::int64_t pieces = (rows + grain - 1) / grain;
            double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s)
            for (std::int64_t k = 0; k < pieces; ++k) s += body(k * grain, std::min(rows, (k + 1) * grain));
            return s;
          }
          case variant::locus_bsp:
          case variant::locus_bsp_aware:
            return locus::parallel_reduce(std::int64_t{0}, rows, grain, 0.0, [&](std::int64_t lo, std::int64_t hi, double acc) {
              return acc + body(lo, hi);
            }, std::plus<>());
          default:
            return body(std::int64_t{0}, rows);
        }
      };
      auto iterate = [&] {
        double rho = allreduce(reduce(start));
        for (std::int64_t it = 0; it < p_.iterations; ++it) {
          if (aware) exchange_aware(p, p + rows - m, p - m, p + rows, count, rank_, ranks_);
          else exchange_blocking(p, p + rows - m, p - m, p + rows, count, rank_, ranks_);
          loop(spmv);
          const double alpha = rho / allreduce(reduce(dot_pq));
          const double rho_next =
              allreduce(reduce([&](std::int64_t lo, std::int64_t hi) { return update(alpha, lo, hi); }));
          if (rho_next == 0.0) break;
          const double beta = rho_next / rho;
          rho = rho_next;
          loop([&](std::int64_t lo, std::int64_t hi) { direct(beta, lo, hi); });
        }
      };
      // mpi+locus-bsp: the whole solve is one task, so that the main thread
      // hands work to the pool once, not every loop; the exchange and the
      // allreduces block its worker (MPI's) or suspend the task (-aware).
      if (v == variant::locus_bsp || aware) as_root_task(iterate);
      else iterate();
    }
    result_ready_ = true;
  }

  // For the test of the check (--perturb): one entry of z on the last rank
  // off by one part in 10^6.
  void perturb() {
    if (rank_ == ranks_ - 1) z_[z_.size() / 2] *= 1.0 + 1e-6;
  }

  // Collective: z of every rank to rank 0, checked there against the serial
  // solve with bench/cg's tolerances (cg::solve_mismatch: z within 1e-11 of
  // the serial z, relative in the 2-norm, and the residual ||x - A z|| / ||x||
  // within twice the serial one plus 1e-13). The dot products are summed in
  // another order (per rank, per piece, then over ranks), so z differs from
  // the serial z in its last bits. Returns "" or what differs, on rank 0.
  std::string verify() {
    if (!result_ready_) return rank_ == 0 ? "no result" : "";
    std::vector<int> counts(static_cast<std::size_t>(ranks_)), offsets(counts.size());
    for (int r = 0; r < ranks_; ++r) {
      const block b = block_of(0, p_.m, r, ranks_);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(b.size() * p_.m);
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(b.first * p_.m);
    }
    std::vector<double> z;
    if (rank_ == 0) z.resize(whole_x_.size());
    check(MPI_Gatherv(z_.data(), static_cast<int>(z_.size()), MPI_DOUBLE, rank_ == 0 ? z.data() : nullptr, counts.data(),
                offsets.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    if (rank_ != 0) return "";
    residual_ = cg::residual(whole_, whole_x_, z);
    return cg::solve_mismatch(whole_, whole_x_, z, reference_residual_, reference_z_, deviation_);
  }

  std::string summary() const {
    std::ostringstream s;
    s.precision(3);
    s << p_.m << "x" << p_.m << " Poisson + " << p_.shift << " I (" << p_.m * p_.m << " rows), " << p_.iterations << " CG iterations, "
      << ranks_ << " ranks of about " << mine_.size() << " grid lines; residual " << residual_ << " (serial "
      << reference_residual_ << "), z off the serial z by " << deviation_;
    return s.str();
  }

  std::string tolerance() const { return "z within 1e-11 of the serial z (relative 2-norm)"; }

 private:
  cg_params p_;
  int rank_, ranks_;
  block mine_{};
  cg::csr_matrix a_, whole_;
  std::vector<double> x_, z_, r_, q_, p_ext_, whole_x_, reference_z_;
  double reference_residual_ = 0.0, residual_ = 0.0, deviation_ = 0.0;
  bool result_ready_ = false;
};

}  // namespace mpi_bench
