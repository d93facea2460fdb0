// cilksort in the suite: n random 64-bit integers sorted by the kernel and
// compared with std::sort of the same input.
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cilksort/kernel.hpp"
#include "common/array_instance.hpp"

namespace {

std::vector<cilksort::element> random_integers(std::int64_t n) {
  std::vector<cilksort::element> out(static_cast<std::size_t>(n));
  std::mt19937_64 random(20190601);
  for (auto& x : out) x = static_cast<cilksort::element>(random());
  return out;
}

class cilksort_instance final : public bench::array_instance<cilksort::element> {
 public:
  cilksort_instance(std::int64_t n, cilksort::cutoffs c)
      : array_instance(random_integers(n), "expected"), cutoffs_(c), scratch_(static_cast<std::size_t>(n)) {
    std::sort(expected_.begin(), expected_.end());
  }
  // Quarter i of both arrays on the place that sorts it (sort_top).
  void prepare() override {
    array_instance::prepare();
    bench::place_blocks(std::span(data_));
    bench::place_blocks(std::span(scratch_));
  }
  void run(const bench::variant& v) override {
    const auto n = static_cast<std::int64_t>(data_.size());
    bench::dispatch(v, [&]<class P>() {
      P::run([&] { cilksort::sort_top<P>(data_.data(), scratch_.data(), n, cutoffs_); });
    });
  }
  std::string summary() override { return "sorted " + std::to_string(data_.size()) + " 64-bit integers"; }

 private:
  cilksort::cutoffs cutoffs_;
  std::vector<cilksort::element> scratch_;
};

const bench::registrar registered{{
    "cilksort",
    "NUMA-WS (seed 000), Fig. 4 and section V (cilksort from MIT Cilk-5, 1.3e8 elements, base case 1k)",
    "Mergesort: sort four quarters in parallel, merge them in pairs with a parallel merge (split the larger input "
    "at its middle, binary-search the smaller), std::sort and std::merge below the cut-offs.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 100'000, 4'000'000, 130'000'000, s,
                           "64-bit integers to sort (full: the paper's 1.3e8)", {0});
      const auto sort_cutoff =
          p.get("sort_cutoff", 64, 1024, 1024, s,
                "below this many elements a quarter is sorted sequentially (paper: 1k; four non-empty quarters)", {4});
      const auto merge_cutoff =
          p.get("merge_cutoff", 64, 1024, 1024, s, "merges of at most this many elements run sequentially", {1});
      return std::make_unique<cilksort_instance>(n, cilksort::cutoffs{sort_cutoff, merge_cutoff});
    }}};

}  // namespace
