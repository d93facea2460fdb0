// cg: conjugate gradient on a NAS-CG-shaped sparse matrix (cg/matrix.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cg/kernel.hpp"
#include "cg/matrix.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"

namespace {

class cg_instance final : public bench::instance {
 public:
  cg_instance(cg::csr_matrix a, cg::schedule s)
      : a_(std::move(a)),
        schedule_(s),
        x_(static_cast<std::size_t>(a_.n)),
        z_(x_.size()),
        r_(x_.size()),
        p_(x_.size()),
        q_(x_.size()) {
    prepare();
    run(bench::parse_variant("serial"));
    reference_z_ = z_;
    reference_residual_ = residual();
  }

  // x = (1, ..., 1), NAS CG's starting vector.
  // Block p of the rows (matrix and vectors) on place p, where the hinted
  // loops of the kernel run it.
  void prepare() override {
    std::fill(x_.begin(), x_.end(), 1.0);
    for (auto* v : {&x_, &z_, &r_, &p_, &q_}) bench::place_blocks(std::span(*v));
    bench::place_blocks(std::span(a_.row_start));
    bench::place_blocks(std::span(a_.column));
    bench::place_blocks(std::span(a_.value));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      eigenvalue_ = cg::inverse_power<P>(a_, {x_.data(), z_.data(), r_.data(), p_.data(), q_.data()}, schedule_);
    });
  }

  // The tolerance and why: cg::solve_mismatch (matrix.hpp).
  std::string verify() override {
    return cg::solve_mismatch(a_, x_, z_, reference_residual_, reference_z_, z_deviation_);
  }

  std::string summary() override {
    std::ostringstream s;
    s.precision(3);
    s << a_.n << " rows, " << a_.column.size() << " nonzeros, " << schedule_.outer << " x " << schedule_.inner
      << " iterations, residual " << residual() << ", z off serial by " << z_deviation_;
    s.precision(12);
    s << ", smallest eigenvalue " << eigenvalue_;
    return s.str();
  }

 private:
  // ||x - A z|| / ||x|| of the last solve, from z (not the recurrence's r).
  double residual() const { return cg::residual(a_, x_, z_); }

  cg::csr_matrix a_;
  cg::schedule schedule_;
  std::vector<double> x_, z_, r_, p_, q_;
  std::vector<double> reference_z_;
  double eigenvalue_ = 0.0, reference_residual_ = 0.0;
  double z_deviation_ = 0.0;
};

const bench::registrar registered{{
    "cg",
    "NUMA-WS (seed 000), section V, Figure 7: cg from NAS, 75k rows x 75 steps (class B); "
    "TBB-NUMA (seed 001), section 5.1, Table 2: cg, NAS input size C",
    "NAS CG: inverse power method on a random sparse symmetric positive-definite matrix (CSR); each step "
    "solves with `inner` (25) conjugate gradient iterations: a sparse matrix-vector product over rows, two "
    "dot products and three vector updates each.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const cg::problem problem = cg::read_problem(s, p);
      const auto row_grain = p.get("row_grain", 32, 64, 64, s, "matrix rows per loop piece", {1});
      const auto vector_grain = p.get("vector_grain", 256, 2048, 4096, s, "vector entries per loop piece", {1});
      return std::make_unique<cg_instance>(problem.matrix(),
                                           cg::schedule{problem.outer, problem.inner, row_grain, vector_grain});
    }}};

}  // namespace
