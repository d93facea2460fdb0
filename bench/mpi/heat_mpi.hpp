// heat over MPI: the Jacobi five-point stencil of bench/heat (its kernel,
// initial grid and check) on an n x n grid whose interior lines are split
// into one block per rank. A rank keeps its lines plus one halo line above
// and one below; every step it sends its first line up and its last line
// down and receives the halos from its neighbours (the global boundary lines
// 0 and n - 1 are fixed halos of the first and last rank).
#pragma once

#include <omp.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "heat/grids.hpp"
#include "heat/kernel.hpp"
#include "mpi/common.hpp"

namespace mpi_bench {

struct heat_params {
  std::int64_t n, steps, grain;
};

class heat_problem {
 public:
  heat_problem(heat_params p, int rank, int ranks) : p_(p), rank_(rank), ranks_(ranks) {
    if (p.n - 2 < 2 * static_cast<std::int64_t>(ranks))
      throw std::invalid_argument("heat: n=" + std::to_string(p.n) + " leaves fewer than 2 interior lines for each of " +
                                  std::to_string(ranks) + " ranks");
    mine_ = block_of(1, p.n - 2, rank, ranks);
    // The initial state every rank starts from, and on rank 0 the serial
    // result every run is checked against (bench/heat: the same kernel run
    // by the serial backend on the whole grid).
    std::vector<double> even(cells()), odd(cells());
    heat::prepare_grids(even, odd, p.n);
    initial_.assign(even.begin() + (mine_.first - 1) * p.n, even.begin() + (mine_.last + 1) * p.n);
    if (rank == 0) {
      whole_initial_ = even;
      const double* final_state = heat::run_steps<bench::serial_backend>(even.data(), odd.data(), p.n, p.steps, p.grain);
      reference_.assign(final_state, final_state + cells());
    }
    even_.resize(initial_.size());
    odd_.resize(initial_.size());
  }

  void prepare() {
    even_ = initial_;
    odd_ = initial_;
    result_ = nullptr;
  }

  void run(variant v) {
    const std::int64_t n = p_.n, lines = mine_.size();
    double* even = even_.data();
    double* odd = odd_.data();
    const int count = static_cast<int>(n);
    // Local line k is global line mine_.first - 1 + k: 0 and lines + 1 are
    // the halos, 1..lines this rank's own.
    auto exchange = [&](double* src) {
      exchange_blocking(src + n, src + lines * n, src, src + (lines + 1) * n, count, rank_, ranks_);
    };
    if (v == variant::locus_tasks) {
      as_root_task([&] {
        for (std::int64_t step = 0; step < p_.steps; ++step) {
          double* src = step % 2 == 0 ? even : odd;
          double* dst = step % 2 == 0 ? odd : even;
          MPI_Request requests[4];
          exchange_post(src + n, src + lines * n, src, src + (lines + 1) * n, count, rank_, ranks_, requests);
          locus::task_group edges;
          // The first and the last own line need a halo: each is a task that
          // waits for its message; the interior lines run meanwhile.
          edges.spawn([&] {
            task_wait(requests[0]);
            heat::update_rows(src, dst, n, 1, 2);
          }, locus::parent_first);
          edges.spawn([&] {
            task_wait(requests[1]);
            heat::update_rows(src, dst, n, lines, lines + 1);
          }, locus::parent_first);
          locus::parallel_for(std::int64_t{2}, lines, p_.grain,
                              [&](std::int64_t lo, std::int64_t hi) { heat::update_rows(src, dst, n, lo, hi); });
          edges.sync();
          // The sent lines are written by the next step.
          task_wait_all(std::span(requests + 2, 2));
        }
      });
    } else if (v == variant::locus_bsp || v == variant::locus_bsp_aware) {
      // The whole time loop is one task too, so that the main thread hands
      // work to the pool once, not every step; MPI's exchange blocks its
      // worker, locus::mpi's suspends it (-aware).
      as_root_task([&] {
        for (std::int64_t step = 0; step < p_.steps; ++step) {
          double* src = step % 2 == 0 ? even : odd;
          double* dst = step % 2 == 0 ? odd : even;
          if (v == variant::locus_bsp) exchange(src);
          else exchange_aware(src + n, src + lines * n, src, src + (lines + 1) * n, count, rank_, ranks_);
          locus::parallel_for(std::int64_t{1}, lines + 1, p_.grain,
                              [&](std::int64_t lo, std::int64_t hi) { heat::update_rows(src, dst, n, lo, hi); });
        }
      });
    } else {
      for (std::int64_t step = 0; step < p_.steps; ++step) {
        double* src = step % 2 == 0 ? even : odd;
        double* dst = step % 2 == 0 ? odd : even;
        exchange(src);
        if (v == variant::mpi) {
          heat::update_rows(src, dst, n, 1, lines + 1);
        } else {
#pragma omp parallel for schedule(static)
          for (std::int64_t i = 1; i <= lines; ++i) heat::update_rows(src, dst, n, i, i + 1);
        }
      }
    }
    result_ = p_.steps % 2 == 0 ? even : odd;
  }

  // For the test of the check (--perturb): one own cell of the last rank
  // off by one part in 10^12.
  void perturb() {
    if (rank_ != ranks_ - 1 || result_ == nullptr) return;
    const_cast<double*>(result_)[p_.n + p_.n / 2] *= 1.0 + 1e-12;  // result_ points into even_ or odd_
  }

  // Collective: the own lines of every rank to rank 0, checked there against
  // the serial result, bit for bit (heat::grid_mismatch: every cell is the
  // same expression on the same values whoever computes it). Returns "" or
  // what differs, on rank 0; "" elsewhere.
  std::string verify() {
    const std::int64_t n = p_.n;
    std::vector<int> counts(static_cast<std::size_t>(ranks_)), offsets(counts.size());
    for (int r = 0; r < ranks_; ++r) {
      const block b = block_of(1, n - 2, r, ranks_);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(b.size() * n);
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(b.first * n);
    }
    std::vector<double> whole;
    if (rank_ == 0) whole = whole_initial_;  // the boundary lines 0 and n - 1 never change
    check(MPI_Gatherv(result_ + n, static_cast<int>(mine_.size() * n), MPI_DOUBLE, rank_ == 0 ? whole.data() : nullptr,
                counts.data(), offsets.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    if (rank_ != 0) return "";
    checksum_ = 0.0;
    for (const double c : whole) checksum_ += c;
    return heat::grid_mismatch(whole.data(), reference_, n);
  }

  std::string summary() const {
    std::ostringstream s;
    s.precision(12);
    s << p_.n << "x" << p_.n << ", " << p_.steps << " steps, " << ranks_ << " ranks of about " << mine_.size()
      << " lines, checksum " << checksum_;
    return s.str();
  }

  std::string tolerance() const { return "bit for bit"; }

 private:
  std::size_t cells() const { return static_cast<std::size_t>(p_.n * p_.n); }

  heat_params p_;
  int rank_, ranks_;
  block mine_{};
  std::vector<double> initial_, even_, odd_, whole_initial_, reference_;
  const double* result_ = nullptr;
  double checksum_ = 0.0;
};

}  // namespace mpi_bench
