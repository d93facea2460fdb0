// Knapsack in the suite: a random strongly correlated instance (value =
// weight + range / 10, the kind branch and bound finds hard), solved by the
// kernel and verified against the optimum of a dynamic program over the
// capacities (made once per instance).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu_common/checks.hpp"
#include "cpu_common/rounds.hpp"
#include "knapsack/kernel.hpp"

namespace {

using knapsack::item;

// n items, weights uniform in [1, range], values weight + range / 10, sorted
// densest first (ties: lighter first, then by value, so the order is fixed).
std::vector<item> make_items(std::int64_t n, std::int64_t range, std::uint64_t seed) {
  std::vector<item> items(static_cast<std::size_t>(n));
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> weight(1, range);
  for (auto& it : items) {
    it.weight = weight(random);
    it.value = it.weight + range / 10;
  }
  std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
    // a.value / a.weight > b.value / b.weight, exactly.
    const auto left = static_cast<__int128>(a.value) * b.weight, right = static_cast<__int128>(b.value) * a.weight;
    return left != right ? left > right : a.weight != b.weight ? a.weight < b.weight : a.value < b.value;
  });
  return items;
}

// The optimum by dynamic programming: best[c], the most value in weight c.
std::int64_t dynamic_optimum(const std::vector<item>& items, std::int64_t capacity) {
  std::vector<std::int64_t> best(static_cast<std::size_t>(capacity + 1), 0);
  for (const item& it : items)
    for (std::int64_t c = capacity; c >= it.weight; --c)
      best[static_cast<std::size_t>(c)] =
          std::max(best[static_cast<std::size_t>(c)], best[static_cast<std::size_t>(c - it.weight)] + it.value);
  return best[static_cast<std::size_t>(capacity)];
}

class knapsack_instance final : public cpu_common::value_instance<std::int64_t> {
 public:
  knapsack_instance(std::int64_t n, std::int64_t range, int depth, std::uint64_t probe, std::int64_t rounds)
      : value_instance("optimum", "dynamic programming gives"), items_(make_items(n, range, 19930516)),
        depth_(depth), probe_(probe), rounds_(rounds) {
    std::int64_t total = 0;
    for (const item& it : items_) total += it.weight;
    capacity_ = total / 2;
    expected_ = dynamic_optimum(items_, capacity_);
  }
  void prepare() override {
    value_instance::prepare();
    last_ = {};
  }
  void run(const bench::variant& v) override {
    const auto n = static_cast<std::int64_t>(items_.size());
    bench::dispatch(v, [&]<class P>() {
      for (std::int64_t r = 0; r < rounds_; ++r) {
        P::run([&] { last_ = knapsack::optimum<P>(items_.data(), n, capacity_, depth_, probe_); });
        record(last_.optimum);
      }
    });
  }
  std::string summary() override {
    return std::to_string(items_.size()) + " items, capacity " + std::to_string(capacity_) + ": " +
           value_instance::summary() + "; the probe found " + std::to_string(last_.probed) + ", then " +
           std::to_string(last_.nodes) + " nodes searched (last of " + std::to_string(rounds_) + " rounds)";
  }

 private:
  std::vector<item> items_;
  std::int64_t capacity_ = 0;
  int depth_;
  std::uint64_t probe_;
  std::int64_t rounds_;
  knapsack::outcome last_{};
};

const bench::registrar registered{{
    "knapsack",
    "CATS (seed 002), Table 1 (Knapsack: 0-1 knapsack problem) and section 4.3: CPU-bound control",
    "0-1 knapsack by branch and bound (items densest first, bound: the rest of the capacity at the next "
    "item's density): a serial probe seeds the best value, then both choices run in parallel in the first "
    "`depth` levels, sharing one best value.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 24, 56, 64, s, "items (capacity: half their total weight)", {1, 1000});
      const auto range = p.get("range", 1000, 1000, 1000, s,
                               "weights are uniform in [1, range]; values are weight + range / 10", {10, 1'000'000});
      const auto depth =
          p.get("depth", 4, 10, 12, s, "levels (items) decided in parallel; below, the search is serial", {0, 1000});
      const auto probe = p.get("probe", 1024, 65536, 65536, s,
                               "nodes of the serial probe that seeds the best value before the parallel search",
                               {0});
      return std::make_unique<knapsack_instance>(n, range, static_cast<int>(depth), static_cast<std::uint64_t>(probe),
                                                 cpu_common::rounds(s, p));
    }}};

}  // namespace
