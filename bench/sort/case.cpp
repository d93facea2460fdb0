// parallel_sort in the suite: each library's own sort of n random doubles,
// checked against std::sort of the input. serial: std::sort; locus:
// locus::parallel_sort; tbb: tbb::parallel_sort; omp: libstdc++'s parallel
// mode (__gnu_parallel::sort, OpenMP). The user-API sort of issue 45, next
// to the sorts a user would otherwise reach for.
#include <parallel/algorithm>

#include <oneapi/tbb/parallel_sort.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/sort.hpp>

#include "common/array_instance.hpp"

namespace {

class sort_instance final : public bench::array_instance<double> {
 public:
  explicit sort_instance(std::int64_t n) : array_instance(bench::random_doubles(n, 20261128, 0.0, 1.0), "std::sort") {
    std::sort(expected_.begin(), expected_.end());
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      if constexpr (std::is_same_v<P, bench::serial_backend>) std::sort(data_.begin(), data_.end());
      else if constexpr (std::is_same_v<P, bench::locus_backend>) locus::parallel_sort(data_.begin(), data_.end());
      else if constexpr (std::is_same_v<P, bench::tbb_backend>) tbb::parallel_sort(data_.begin(), data_.end());
      else __gnu_parallel::sort(data_.begin(), data_.end());
    });
  }
  std::string summary() override { return "sorted " + std::to_string(data_.size()) + " doubles"; }
};

const bench::registrar registered{{
    "sort",
    "the user API (issue 45): locus::parallel_sort against std::sort, tbb::parallel_sort and __gnu_parallel::sort",
    "Each library's own sort of random doubles (not the suite's quicksort kernel): a parallel quicksort with a "
    "ninther pivot and serial partitions for locus.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 100'000, 10'000'000, 100'000'000, s, "doubles to sort", {2});
      return std::make_unique<sort_instance>(n);
    },
    /*simulated=*/false}};

}  // namespace
