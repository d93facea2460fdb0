// RRM in the suite: an array of random doubles mapped by the kernel and
// compared bit for bit with the serial backend's result. Each element goes
// through the same sequence of maps in every implementation (the recursion
// only depends on the sizes), so the results are identical.
#include <algorithm>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/array_instance.hpp"
#include "common/places.hpp"
#include "rrm/kernel.hpp"

namespace {

class rrm_instance final : public bench::array_instance<double> {
 public:
  rrm_instance(std::int64_t n, rrm::shape s)
      : array_instance(bench::random_doubles(n, 20210322, 1.0, 2.0), "serial gives"), shape_(s) {
    rrm::repeated_map<bench::serial_backend>(expected_.data(), n, shape_);
  }
  // The variant's data layout (bench::place_blocks): half the array per
  // place on two places, as the ADWS policies split it; or the pages
  // interleaved, the ADWS paper's setting (section 6.1).
  void prepare() override {
    array_instance::prepare();
    bench::place_blocks(std::span(data_));
  }
  void run(const bench::variant& v) override {
    const auto n = static_cast<std::int64_t>(data_.size());
    bench::dispatch(v, [&]<class P>() { P::run([&] { rrm::repeated_map<P>(data_.data(), n, shape_); }); });
  }
  std::string summary() override {
    std::ostringstream s;
    s << "mapped " << data_.size() << " doubles, alpha " << shape_.alpha;
    return s.str();
  }

 private:
  rrm::shape shape_;
};

const bench::registrar registered{{
    "rrm",
    "ADWS (seed 003), section 6.2 (Recursive Repeated Map) and Fig. 19 (work ratio alpha)",
    "Each call maps its range three times (x += c x, each map a parallel loop), then splits it 1 : alpha and "
    "recurses on both parts in parallel, down to a leaf size.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 65'536, 8'388'608, 268'435'456, s,
                           "doubles in the array (full: 2^28 = 2 GB; the paper gives no largest RRM size, 2 GB is "
                           "its largest for Quicksort and KDTree, Fig. 20b)",
                           {0});
      const double alpha = p.get_real("alpha", 1.0, 1.0, 1.0, s,
                                      "work ratio: a range splits as 1 : alpha (paper: 1.0; Fig. 19 varies it)",
                                      {0, std::numeric_limits<double>::max()});
      const auto leaf = p.get("leaf", 512, 4096, 4096, s,
                              "ranges shorter than this are not divided (4096 doubles = the paper's 32 KB)", {2});
      const auto map_grain =
          p.get("map_grain", 2048, 16384, 16384, s,
                "a map stops splitting at this many elements (16384 doubles = the paper's 128 KB)", {1});
      const auto hints = p.get("hints", 1, 1, 1, s,
                               "1: each part's size is its work hint (the paper's 1 : alpha), 0: none (ADWS "
                               "guesses 1 : 1; Fig. 19's filled markers)",
                               {0, 1});
      return std::make_unique<rrm_instance>(n, rrm::shape{alpha, leaf, map_grain, hints == 1});
    }}};

}  // namespace
