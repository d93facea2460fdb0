// Prefix sums in the suite: each library's own inclusive scan of n doubles,
// checked against std::inclusive_scan within a relative 1e-9 (a parallel
// scan adds in another grouping). serial: std::inclusive_scan; locus:
// locus::inclusive_scan; tbb: tbb::parallel_scan (its functional form);
// omp: libstdc++'s parallel mode (__gnu_parallel::partial_sum, OpenMP).
#include <parallel/numeric>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_scan.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/scan.hpp>

#include "common/array_instance.hpp"

namespace {

class scan_instance final : public bench::instance {
 public:
  explicit scan_instance(std::int64_t n)
      : input_(bench::random_doubles(n, 20261129, -1.0, 1.0)), output_(input_.size()), expected_(input_.size()) {
    std::inclusive_scan(input_.begin(), input_.end(), expected_.begin());
  }
  void prepare() override { std::fill(output_.begin(), output_.end(), 0.0); }
  void run(const bench::variant& v) override {
    const double* in = input_.data();
    double* out = output_.data();
    const auto n = static_cast<std::int64_t>(input_.size());
    bench::dispatch(v, [&]<class P>() {
      if constexpr (std::is_same_v<P, bench::serial_backend>) {
        std::inclusive_scan(in, in + n, out);
      } else if constexpr (std::is_same_v<P, bench::locus_backend>) {
        locus::inclusive_scan(in, in + n, out);
      } else if constexpr (std::is_same_v<P, bench::tbb_backend>) {
        tbb::parallel_scan(
            tbb::blocked_range<std::int64_t>(0, n), 0.0,
            [&](const tbb::blocked_range<std::int64_t>& r, double sum, bool is_final) {
              for (auto i = r.begin(); i < r.end(); ++i) {
                sum += in[i];
                if (is_final) out[i] = sum;
              }
              return sum;
            },
            std::plus<>());
      } else {
        __gnu_parallel::partial_sum(in, in + n, out);
      }
    });
  }
  std::string verify() override {
    for (std::size_t i = 0; i < output_.size(); ++i)
      if (!(std::abs(output_[i] - expected_[i]) <= 1e-9 * (1.0 + std::abs(expected_[i])))) {
        std::ostringstream s;
        s.precision(17);
        s << "element " << i << " is " << output_[i] << ", std::inclusive_scan " << expected_[i];
        return s.str();
      }
    return "";
  }
  std::string summary() override { return "scanned " + std::to_string(input_.size()) + " doubles"; }

 private:
  std::vector<double> input_, output_, expected_;
};

const bench::registrar registered{{
    "scan",
    "the user API (issue 45): locus::inclusive_scan against std::inclusive_scan, tbb::parallel_scan and "
    "__gnu_parallel::partial_sum",
    "Each library's own inclusive prefix sum of random doubles; locus reduces then scans over workers + 1 blocks.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 100'000, 20'000'000, 200'000'000, s, "doubles to scan", {2});
      return std::make_unique<scan_instance>(n);
    },
    /*simulated=*/false}};

}  // namespace
