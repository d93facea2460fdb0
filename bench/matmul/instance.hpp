// The instance behind matmul, matmul-z (case.cpp here) and strassen,
// strassen-z (strassen/case.cpp): random A and B, the output C in the
// kernel's storage, and a plain triple-loop reference for the checked rows.
//
// A Kernel provides
//   template <class P, class M> static void run(M a, M b, M c, n, block);
//   static constexpr double initial_c;   // C before every run
//   static constexpr double tolerance;   // allowed |C - reference| / max |reference|
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/zmorton.hpp>

#include "common/harness.hpp"
#include "matmul/kernel.hpp"
#include "common/places.hpp"

namespace matmul {

// Uniform doubles in [-1, 1) from splitmix64: the same inputs on every
// machine and standard library.
inline void fill_random(std::vector<double>& v, std::uint64_t seed) {
  for (double& x : v) {
    seed += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x = static_cast<double>(z >> 11) * 0x1p-52 - 1.0;
  }
}

template <class Kernel, class M>
class product_instance final : public bench::instance {
  static constexpr bool z_order = std::is_same_v<M, zmorton>;

 public:
  // check_rows: rows of C compared with the reference (0: all). Checked row
  // r is r * stride + r % stride, so the rows sit at every position within a
  // block as well as all over C.
  product_instance(std::size_t n, std::size_t block, std::size_t check_rows)
      : n_(n), block_(block), layout_(n, block), a_(n * n), b_(n * n), c_(n * n) {
    if (check_rows > n)
      throw std::invalid_argument("check_rows = " + std::to_string(check_rows) + ": accepted are 0 (all rows) to n = " +
                                  std::to_string(n));
    const std::size_t rows = check_rows == 0 ? n : check_rows, stride = n / rows;
    for (std::size_t r = 0; r < rows; ++r) checked_.push_back(r * stride + r % stride);
    fill_random(a_, 1);
    fill_random(b_, 2);
    compute_reference();
    if constexpr (z_order) {
      std::vector<double> in_z(n * n);
      for (auto* m : {&a_, &b_}) {
        layout_.from_row_major(m->data(), in_z.data());
        m->swap(in_z);
      }
    }
  }

  // The matrices' quarters on the places (with Z-Morton storage, quarter k
  // is quadrant k, which the hinted top level computes at place k).
  void prepare() override {
    std::fill(c_.begin(), c_.end(), Kernel::initial_c);
    for (auto* m : {&a_, &b_, &c_}) bench::place_blocks(std::span(*m));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      Kernel::template run<P>(M::whole(a_.data(), n_), M::whole(b_.data(), n_), M::whole(c_.data(), n_), n_, block_);
    });
  }

  std::string verify() override {
    const double tolerance = Kernel::tolerance * reference_max_;
    max_error_ = 0.0;
    for (std::size_t r = 0; r < checked_.size(); ++r)
      for (std::size_t j = 0; j < n_; ++j) {
        const std::size_t i = checked_[r];
        const double got = c_[at(i, j)], want = reference_[r * n_ + j], error = std::fabs(got - want);
        if (!(error <= tolerance)) {  // also catches NaN: an element never written
          char msg[256];
          std::snprintf(msg, sizeof msg, "C(%zu, %zu) = %.17g, reference %.17g: |difference| %.3g > tolerance %.3g "
                        "(%.0e x max |C| %.6g)", i, j, got, want, error, tolerance, Kernel::tolerance, reference_max_);
          return msg;
        }
        max_error_ = std::max(max_error_, error);
      }
    return "";
  }

  std::string summary() override {
    char msg[200];
    std::snprintf(msg, sizeof msg, "n=%zu, block %zu, max |C| %.6g, max |C - reference| %.3g%s", n_, block_,
                  reference_max_, max_error_, max_error_ == 0.0 ? " (identical)" : "");
    std::string s = msg;
    if (checked_.size() < n_) s += ", " + std::to_string(checked_.size()) + " rows checked";
    return s;
  }

 private:
  std::size_t at(std::size_t i, std::size_t j) const { return z_order ? layout_.offset(i, j) : i * n_ + j; }

  // The plain triple loop, i-k-j, on the row-major inputs, for the checked
  // rows only: every element sums its products in increasing k.
  void compute_reference() {
    reference_.assign(checked_.size() * n_, 0.0);
    for (std::size_t r = 0; r < checked_.size(); ++r) {
      double* out = &reference_[r * n_];
      for (std::size_t k = 0; k < n_; ++k) {
        const double a_ik = a_[checked_[r] * n_ + k];
        for (std::size_t j = 0; j < n_; ++j) out[j] += a_ik * b_[k * n_ + j];
      }
    }
    for (double x : reference_) reference_max_ = std::max(reference_max_, std::fabs(x));
  }

  std::size_t n_, block_;
  locus::zmorton_layout layout_;  // also checks n and block for both storages
  std::vector<double> a_, b_, c_;
  std::vector<std::size_t> checked_;
  std::vector<double> reference_;  // checked_.size() rows of n
  double reference_max_ = 0.0;
  double max_error_ = 0.0;
};

// Defaults of a parameter for the tiny, quick and full sizes.
struct defaults {
  std::int64_t tiny, quick, full;
};

// The registrars' factory: reads n, block and check_rows.
template <class Kernel, class M>
std::unique_ptr<bench::instance> make_instance(bench::params& p, bench::size_class s, defaults n,
                                               const std::string& n_meaning, defaults block,
                                               std::int64_t check_rows_full) {
  // n * n elements must be addressable.
  const auto side = p.get("n", n.tiny, n.quick, n.full, s, n_meaning, {1, INT32_MAX});
  const auto base = p.get("block", block.tiny, block.quick, block.full, s,
                          "base case: one block x block product by a serial loop (in the -z version the Z-Morton "
                          "block); a power of two, n = block * 2^k",
                          {1, INT32_MAX});
  const auto check_rows =
      p.get("check_rows", 0, 0, check_rows_full, s,
            "rows of C compared with the plain triple-loop reference, spread over C (0: all), at most n", {0});
  return std::make_unique<product_instance<Kernel, M>>(static_cast<std::size_t>(side), static_cast<std::size_t>(base),
                                                       static_cast<std::size_t>(check_rows));
}

}  // namespace matmul
