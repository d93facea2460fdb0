// ge and ge-ub: CATS's memory-bound GE and GE-ub (seed 002, section 4):
// Gaussian elimination (LU without pivoting) of a diagonally dominant n x n
// matrix, every elimination step a recursive decomposition of all n rows
// (balanced, or Algorithm 1's unbalanced shape) run as its own root task
// tree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/array_instance.hpp"
#include "common/halo_grid.hpp"
#include "common/row_tree.hpp"
#include "ge/kernel.hpp"

namespace {

// Off the diagonal heat's pattern, in [1, 2]; on it the pattern plus 2n,
// more than the row's other n - 1 entries together (at most 2n - 2):
// strictly diagonally dominant by rows. Built serially.
std::vector<double> dominant_matrix(std::int64_t n) {
  std::vector<double> a(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      a[static_cast<std::size_t>(i * n + j)] = bench::pattern_value(i, j) + (i == j ? 2.0 * static_cast<double>(n) : 0.0);
  return a;
}

class ge_instance final : public bench::array_instance<double> {
 public:
  ge_instance(std::int64_t n, std::int64_t steps, std::int64_t leaf, bench::row_tree shape)
      : array_instance(dominant_matrix(n), "serial gives"), n_(n), steps_(steps), leaf_(leaf), shape_(shape) {
    ge::eliminate<bench::serial_backend>(expected_.data(), n_, steps_, leaf_, shape_);
  }

  void prepare() override {
    array_instance::prepare();
    bench::place_blocks(std::span(data_));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { ge::eliminate<P>(data_.data(), n_, steps_, leaf_, shape_); });
  }

  // After a complete elimination: solves A x = A 1 with the L and U found
  // (untimed) and gives the largest |x_i - 1|, a check that the result is
  // a factorization of A, beyond its agreement with the serial run.
  std::string summary() override {
    std::ostringstream s;
    s.precision(3);
    s << n_ << "x" << n_ << ", " << steps_ << " steps, leaf " << leaf_;
    if (steps_ < n_ - 1) return s.str() + " (partial elimination)";
    s << ", solve error " << solve_error();
    return s.str();
  }

 private:
  double solve_error() const {
    const auto at = [&](const std::vector<double>& m, std::int64_t i, std::int64_t j) {
      return m[static_cast<std::size_t>(i * n_ + j)];
    };
    std::vector<double> x(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i)  // b = A 1
      for (std::int64_t j = 0; j < n_; ++j) x[static_cast<std::size_t>(i)] += at(input_, i, j);
    for (std::int64_t i = 0; i < n_; ++i)  // L y = b, L unit lower triangular
      for (std::int64_t j = 0; j < i; ++j) x[static_cast<std::size_t>(i)] -= at(data_, i, j) * x[static_cast<std::size_t>(j)];
    for (std::int64_t i = n_ - 1; i >= 0; --i) {  // U x = y
      for (std::int64_t j = i + 1; j < n_; ++j)
        x[static_cast<std::size_t>(i)] -= at(data_, i, j) * x[static_cast<std::size_t>(j)];
      x[static_cast<std::size_t>(i)] /= at(data_, i, i);
    }
    double worst = 0.0;
    for (double v : x) worst = std::max(worst, std::abs(v - 1.0));
    return worst;
  }

  std::int64_t n_, steps_, leaf_;
  bench::row_tree shape_;
};

std::unique_ptr<bench::instance> make(const char* name, bench::row_tree shape, bench::size_class s,
                                      bench::params& p) {
  const auto n = p.get("n", 64, 1024, 1024, s, "matrix side (paper: 1024 x 1024)", {2, 46340});
  const auto steps = p.get("steps", 0, 0, 0, s,
                           "elimination steps, each its own root task tree; 0: all n - 1 (complete elimination)", {0});
  const auto leaf = bench::leaf_rows(s, p);
  bench::check_rows_exceed_leaf(name, "n", n, leaf);
  if (steps > n - 1)
    throw std::invalid_argument(std::string(name) + ": --param steps=" + std::to_string(steps) +
                                ": an n x n matrix has n - 1 = " + std::to_string(n - 1) + " elimination steps");
  return std::make_unique<ge_instance>(n, steps == 0 ? n - 1 : steps, leaf, shape);
}

const bench::registrar balanced{{
    "ge",
    "CATS (seed 002), section 4, Table 1 and Fig. 7: GE (Gaussian elimination), 1024 x 1024",
    "Gaussian elimination (LU, no pivoting) of a diagonally dominant n x n matrix of doubles in place; each step's "
    "row updates halve all n rows recursively with fork2 down to leaves of 8 rows, one root task tree per step. "
    "Memory bound; equal to serial bit for bit.",
    false,
    [](bench::size_class s, bench::params& p) { return make("ge", bench::row_tree::balanced, s, p); }}};

const bench::registrar unbalanced{{
    "ge-ub",
    "CATS (seed 002), section 4, Table 1 and Fig. 7: GE-ub (GE with an unbalanced DAG, built as Algorithm 1)",
    "ge with Algorithm 1's unbalanced recursion over the rows of each step (heat/heat2, the 4-way split as two "
    "nested fork2). The same work, in leaves of at most 8 rows of an unbalanced tree.",
    false,
    [](bench::size_class s, bench::params& p) { return make("ge-ub", bench::row_tree::unbalanced, s, p); }}};

}  // namespace
