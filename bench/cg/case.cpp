// cg: conjugate gradient on a NAS-CG-shaped sparse matrix (see make_matrix).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cg/kernel.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"

namespace {

// A symmetric positive-definite n x n matrix with the sparsity of NAS CG's
// makea (our own generator, not a port of it): the sum over k = 0..n-1 of
// s_k v_k v_k^T, where v_k has `nonzer` random entries in (0, 1) at distinct
// random positions plus 0.5 at position k, and s_k falls geometrically from 1
// to 0.1 (NAS's rcond). A row then holds about (nonzer + 1)^2 entries, as in
// NAS. Unlike NAS, which adds (rcond - shift) to the diagonal, the diagonal is
// set to the row's off-diagonal sum plus `shift`: strict diagonal dominance
// with a positive diagonal makes A positive definite (Gershgorin), so CG
// converges at every size.
cg::csr_matrix make_matrix(std::int64_t n, std::int64_t nonzer, double shift, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  auto uniform = [&random] { return static_cast<double>(random() >> 11) * 0x1.0p-53; };  // [0, 1)
  const std::int64_t width = nonzer + 1;

  // The sparse vectors v_k, `width` entries each.
  std::vector<std::int32_t> position(static_cast<std::size_t>(n * width));
  std::vector<double> entry(position.size());
  for (std::int64_t k = 0; k < n; ++k) {
    std::int32_t* pos = &position[static_cast<std::size_t>(k * width)];
    double* val = &entry[static_cast<std::size_t>(k * width)];
    pos[0] = static_cast<std::int32_t>(k);
    val[0] = 0.5;
    for (std::int64_t e = 1; e < width;) {
      const auto candidate = static_cast<std::int32_t>(random() % static_cast<std::uint64_t>(n));
      if (std::find(pos, pos + e, candidate) != pos + e) continue;
      pos[e] = candidate;
      val[e] = uniform();
      ++e;
    }
  }

  // Scatter the outer products into rows (duplicates kept for now).
  std::vector<std::int64_t> start(static_cast<std::size_t>(n + 1), 0);
  for (const std::int32_t row : position) start[static_cast<std::size_t>(row) + 1] += width;
  for (std::int64_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<std::pair<std::int32_t, double>> scattered(static_cast<std::size_t>(start[n]));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int32_t* pos = &position[static_cast<std::size_t>(k * width)];
    const double* val = &entry[static_cast<std::size_t>(k * width)];
    const double scale = std::pow(0.1, static_cast<double>(k) / static_cast<double>(n));
    for (std::int64_t a = 0; a < width; ++a)
      for (std::int64_t c = 0; c < width; ++c)
        // scale * (v_a v_c), not (scale v_a) v_c: the product is then the
        // same for entry (a, c) and entry (c, a), so A is exactly symmetric.
        scattered[static_cast<std::size_t>(fill[pos[a]]++)] = {pos[c], scale * (val[a] * val[c])};
  }

  // Per row: sort by column (stably, so duplicates of (i, j) and (j, i) are
  // summed in the same order, keeping A exactly symmetric), merge duplicates,
  // and set the diagonal.
  cg::csr_matrix a;
  a.n = n;
  a.row_start.assign(1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto first = scattered.begin() + start[i], last = scattered.begin() + start[i + 1];
    std::stable_sort(first, last, [](const auto& l, const auto& r) { return l.first < r.first; });
    std::size_t diagonal = 0;  // every row has one: v_i holds position i
    double off_diagonal_sum = 0.0;
    for (auto e = first; e != last; ++e) {
      if (a.column.size() > static_cast<std::size_t>(a.row_start.back()) && a.column.back() == e->first) {
        a.value.back() += e->second;
        continue;
      }
      if (e->first == i) diagonal = a.column.size();
      a.column.push_back(e->first);
      a.value.push_back(e->second);
    }
    for (auto k = static_cast<std::size_t>(a.row_start.back()); k < a.column.size(); ++k)
      if (k != diagonal) off_diagonal_sum += std::abs(a.value[k]);
    a.value[diagonal] = off_diagonal_sum + shift;
    a.row_start.push_back(static_cast<std::int64_t>(a.column.size()));
  }
  return a;
}

double norm(const std::vector<double>& v) {
  double sum = 0.0;
  for (const double e : v) sum += e * e;
  return std::sqrt(sum);
}

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

  // The backends sum the dot products in different orders (serial: left to
  // right; locus and oneTBB: a tree over pieces; OpenMP: per thread, then in
  // thread order), so alpha, beta and the norms differ from the serial ones
  // in their last bits and so does every iterate after them. CG corrects such
  // perturbations in later iterations, and the power method contracts towards
  // the eigenvector, so the final z stays within a few rounding errors of the
  // serial z: we measured 4e-16 to 1.6e-15 relative at the tiny, quick and
  // full sizes, for every variant and worker count we ran. We accept 1e-11:
  // room for longer sums on other inputs, yet far below what a lost or
  // repeated loop piece does (pieces that each skipped one entry gave
  // residuals above 1e3). Each solve ends with its residual at rounding level
  // (about 1e-15 relative), where its value depends on the summation order
  // too: we accept up to twice the serial residual, plus 1e-13.
  std::string verify() override {
    const double res = residual();
    std::vector<double> diff(z_.size());
    for (std::size_t i = 0; i < z_.size(); ++i) diff[i] = z_[i] - reference_z_[i];
    z_deviation_ = norm(diff) / norm(reference_z_);
    std::ostringstream why;
    why.precision(3);
    if (!(std::abs(res - reference_residual_) <= reference_residual_ + residual_floor))
      why << "residual " << res << ", serial " << reference_residual_;
    else if (!(z_deviation_ <= z_tolerance))
      why << "z differs from the serial z by " << z_deviation_ << " (relative, 2-norm)";
    return why.str();
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
  static constexpr double residual_floor = 1e-13;
  static constexpr double z_tolerance = 1e-11;

  // ||x - A z|| / ||x|| of the last solve, from z (not the recurrence's r).
  double residual() const {
    std::vector<double> az(z_.size());
    cg::multiply_rows(a_, z_.data(), az.data(), 0, a_.n);
    for (std::size_t i = 0; i < az.size(); ++i) az[i] = x_[i] - az[i];
    return norm(az) / norm(x_);
  }

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
      const auto n = p.get("na", 2000, 14000, 75000, s, "matrix rows (NAS na: class A 14000, B 75000, C 150000)",
                           {2, INT32_MAX});
      const auto nonzer =
          p.get("nonzer", 7, 11, 13, s, "random entries per generating vector (NAS nonzer), fewer than na", {1});
      const auto shift = p.get_real("shift", 10, 20, 60, s, "diagonal = off-diagonal row sum + shift",
                                    {0, std::numeric_limits<double>::max()});
      const auto outer =
          p.get("outer", 2, 15, 40, s, "power-method steps (NAS niter: class A 15, B and C 75)", {1});
      const auto inner = p.get("inner", 25, 25, 25, s, "CG iterations per step (NAS cgitmax 25)", {1});
      const auto row_grain = p.get("row_grain", 32, 64, 64, s, "matrix rows per loop piece", {1});
      const auto vector_grain = p.get("vector_grain", 256, 2048, 4096, s, "vector entries per loop piece", {1});
      const auto seed = p.get("seed", 314159265, 314159265, 314159265, s, "random seed of the matrix", {0});
      if (nonzer >= n)
        throw std::invalid_argument("nonzer=" + std::to_string(nonzer) + ", na=" + std::to_string(n) +
                                    ": nonzer must be less than na (distinct positions in a row)");
      return std::make_unique<cg_instance>(make_matrix(n, nonzer, shift, static_cast<std::uint64_t>(seed)),
                                           cg::schedule{outer, inner, row_grain, vector_grain});
    }}};

}  // namespace
