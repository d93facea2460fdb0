// FFT in the suite: 2^log2n random complex points transformed once per
// round, each round transforming the previous round's output (two buffers
// in turn), so the last output depends on every round; it is compared bit
// for bit with the serial rounds' (made once per instance). The serial
// transform itself is checked once against a direct DFT at a few
// frequencies.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_common/checks.hpp"
#include "cpu_common/rounds.hpp"
#include "fft/kernel.hpp"

namespace {

using fft::cplx;

// tw[h + k] = exp(-i pi k / h) for h = 1, 2, 4, ..., n/2 and k < h.
std::vector<cplx> twiddles(std::int64_t n) {
  std::vector<cplx> tw(static_cast<std::size_t>(std::max<std::int64_t>(n, 2)), cplx{0.0, 0.0});
  for (std::int64_t h = 1; h < n; h *= 2)
    for (std::int64_t k = 0; k < h; ++k) {
      const double angle = -std::numbers::pi * static_cast<double>(k) / static_cast<double>(h);
      tw[static_cast<std::size_t>(h + k)] = {std::cos(angle), std::sin(angle)};
    }
  return tw;
}

// Bins the direct DFT checks: 0, 1, n/2, n - 1 and four more from a fixed seed.
std::vector<std::int64_t> checked_bins(std::int64_t n) {
  std::vector<std::int64_t> bins{0, 1 % n, n / 2, n - 1};
  std::mt19937_64 random(7);
  for (int i = 0; i < 4; ++i) bins.push_back(static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(n)));
  return bins;
}

class fft_instance final : public bench::instance {
 public:
  fft_instance(int log2n, std::int64_t leaf, std::int64_t grain, std::int64_t rounds)
      : n_(std::int64_t{1} << log2n), rounds_(rounds), input_(static_cast<std::size_t>(n_)), even_(input_.size()),
        odd_(input_.size()), tw_(twiddles(n_)) {
    std::mt19937_64 random(20100913);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (auto& x : input_) x = {uniform(random), uniform(random)};
    const std::int64_t m = std::min(leaf, n_);
    for (std::int64_t j = 0; j < m; ++j) gather_.push_back(j * (n_ / m));
    plan_ = {tw_.data(), leaf, grain, gather_.data()};
    prepare();
    run_rounds<bench::serial_backend>(1);
    check_serial(odd_);
    prepare();
    run_rounds<bench::serial_backend>(rounds_);
    expected_ = output();
  }
  // Round r reads one buffer and writes the other: even_ (the input) to
  // odd_, odd_ to even_, ... An element a round does not write keeps the
  // input or an earlier round's value, or stays a NaN.
  void prepare() override {
    std::copy(input_.begin(), input_.end(), even_.begin());
    std::fill(odd_.begin(), odd_.end(), cplx{nan, nan});
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { run_rounds<P>(rounds_); });
  }
  std::string verify() override {
    if (!problem_.empty()) return problem_;
    return cpu_common::first_difference<cplx>(output(), expected_, "serial gives");
  }
  std::string summary() override {
    std::ostringstream s;
    s.precision(3);
    s << n_ << " points, " << rounds_ << " rounds; serial against a direct DFT at " << checked_bins(n_).size()
      << " bins: largest difference " << dft_error_ << " (bound " << bound_ << ")";
    return s.str();
  }

 private:
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

  // exp(-2 pi i m / n) from the table's top level: its first half holds m <
  // n/2, and the second half of the circle is the first negated.
  cplx root(std::int64_t m) const {
    const std::int64_t h = n_ / 2;
    const cplx w = tw_[static_cast<std::size_t>(h + m % h)];
    return m < h ? w : cplx{-w.re, -w.im};
  }

  template <class P>
  void run_rounds(std::int64_t rounds) {
    for (std::int64_t r = 0; r < rounds; ++r) {
      const cplx* from = (r % 2 == 0 ? even_ : odd_).data();
      cplx* to = (r % 2 == 0 ? odd_ : even_).data();
      P::run([&] { fft::transform<P>(from, 1, to, n_, plan_); });
    }
  }
  // The buffer the last round wrote.
  const std::vector<cplx>& output() const { return rounds_ % 2 == 1 ? odd_ : even_; }

  // The serial transform (of the input) against the direct sum at a few bins. Rounding in
  // either grows about as sqrt(n) times the unit roundoff; a wrong transform
  // is off by about sqrt(n) (the size of a bin), so 1e-9 sqrt(n) separates
  // them with room on both sides.
  void check_serial(const std::vector<cplx>& transformed) {
    bound_ = 1e-9 * std::sqrt(static_cast<double>(n_));
    if (n_ < 2) return;
    for (const std::int64_t k : checked_bins(n_)) {
      double re = 0.0, im = 0.0;
      for (std::int64_t j = 0; j < n_; ++j) {
        const cplx w = root(j * k % n_);
        const cplx x = input_[static_cast<std::size_t>(j)];
        re += x.re * w.re - x.im * w.im;
        im += x.re * w.im + x.im * w.re;
      }
      const cplx got = transformed[static_cast<std::size_t>(k)];
      const double error = std::hypot(got.re - re, got.im - im);
      dft_error_ = std::max(dft_error_, error);
      if (!(error <= bound_) && problem_.empty()) {
        std::ostringstream s;
        s.precision(17);
        s << "the serial transform's bin " << k << " is " << got << ", the direct DFT gives (" << re << ", " << im
          << ")";
        problem_ = s.str();
      }
    }
  }

  std::int64_t n_, rounds_;
  std::vector<cplx> input_, even_, odd_, tw_, expected_;
  std::vector<std::int64_t> gather_;
  fft::plan plan_{};
  double dft_error_ = 0.0, bound_ = 0.0;
  std::string problem_;
};

bool power_of_two(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

const bench::registrar registered{{
    "fft",
    "CATS (seed 002), Table 1 (FFT) and section 4.3: CPU-bound control",
    "Recursive radix-2 Cooley-Tukey FFT (decimation in time, out of place) of random complex points: the two "
    "half transforms in parallel above a leaf size, the combine's butterflies split in parallel pieces; each "
    "round transforms the previous round's output.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto log2n = p.get("log2n", 10, 20, 24, s, "points: 2^log2n complex doubles", {1, 28});
      const auto leaf = p.get("leaf", 64, 1024, 1024, s,
                              "transforms of at most this many points run serially (a power of two)", {2, 1 << 28});
      const auto grain = p.get("grain", 64, 4096, 4096, s, "butterflies per parallel piece of a combine", {1});
      if (!power_of_two(leaf))
        throw std::invalid_argument("--param leaf=" + std::to_string(leaf) + ": the leaf size must be a power of two");
      // Two rounds multiply the values by n (the transform of a transform is
      // n times the input reversed): 64 rounds of 2^28 points reach 2^896.
      return std::make_unique<fft_instance>(static_cast<int>(log2n), leaf, grain, cpu_common::rounds(s, p, 64));
    }}};

}  // namespace
