// Quicksort in the suite: n random doubles sorted by the kernel (with a
// scratch buffer of the same size) and compared with std::sort of the input.
#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/array_instance.hpp"
#include "common/places.hpp"
#include "quicksort/kernel.hpp"

namespace {

class quicksort_instance final : public bench::array_instance<double> {
 public:
  quicksort_instance(std::int64_t n, quicksort::cutoffs c)
      : array_instance(bench::random_doubles(n, 20200114, 0.0, 1.0), "expected"),
        cutoffs_(c),
        scratch_(static_cast<std::size_t>(n)) {
    std::sort(expected_.begin(), expected_.end());
  }
  // Both buffers in the variant's data layout (bench::place_blocks).
  void prepare() override {
    array_instance::prepare();
    bench::place_blocks(std::span(data_));
    bench::place_blocks(std::span(scratch_));
  }
  void run(const bench::variant& v) override {
    const auto n = static_cast<std::int64_t>(data_.size());
    bench::dispatch(v, [&]<class P>() {
      // The sorted result ends in data_ (home); scratch_ is the second buffer.
      P::run([&] { quicksort::sort<P>(data_.data(), scratch_.data(), n, true, cutoffs_); });
    });
  }
  std::string summary() override { return "sorted " + std::to_string(data_.size()) + " doubles"; }

 private:
  quicksort::cutoffs cutoffs_;
  std::vector<double> scratch_;
};

const bench::registrar registered{{
    "quicksort",
    "ADWS (seed 003), section 6.2 (Quicksort; largest working set 2.0 GB, Fig. 20b)",
    "Quicksort on random doubles, pivot the median of the first three; the partition is parallel over blocks "
    "(count, prefix sums, scatter into a second buffer) and both sides recurse in parallel.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 100'000, 4'000'000, 134'217'728, s,
                           "doubles to sort (full: 2^27 = 1 GB, a 2 GB working set with the second buffer, as the "
                           "paper's largest)",
                           {0});
      const auto sort_cutoff = p.get("sort_cutoff", 512, 8192, 8192, s,
                                     "at most this many elements are sorted sequentially (8192 doubles = the "
                                     "paper's 64 KB; the pivot is a median of three)",
                                     {3});
      const auto block = p.get("block", 256, 8192, 8192, s,
                               "elements per partition block (8192 doubles = the paper's 64 KB)", {1});
      const auto hints = p.get("hints", 1, 1, 1, s,
                               "1: each side's size is its work hint (the paper's), 0: none (ADWS guesses 1 : 1, "
                               "Fig. 20's hatched bars)",
                               {0, 1});
      return std::make_unique<quicksort_instance>(n, quicksort::cutoffs{sort_cutoff, block, hints == 1});
    }}};

}  // namespace
