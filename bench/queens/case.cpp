// Queens in the suite: the solution count of n queens, verified against the
// serial search (run once per instance, off the pool) and that against the
// published count (OEIS A000170).
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "cpu_common/checks.hpp"
#include "cpu_common/rounds.hpp"
#include "queens/kernel.hpp"

namespace {

// Solutions of n queens for n = 0 .. 18 (OEIS A000170; n = 0 unused).
constexpr std::array<std::uint64_t, 19> known{0,     1,      0,       0,        2,         10,       4,
                                              40,    92,     352,     724,      2680,      14200,    73712,
                                              365596, 2279184, 14772512, 95815104, 666090624};

class queens_instance final : public cpu_common::value_instance<std::uint64_t> {
 public:
  queens_instance(int n, int depth, std::int64_t rounds)
      : value_instance("solutions", "expected"), n_(n), depth_(depth), rounds_(rounds) {
    queens::tally t;
    queens::search((1u << n) - 1, {0, 0, 0}, t);
    expected_ = t.solutions;
    nodes_ = t.nodes;
    if (expected_ != known[static_cast<std::size_t>(n)])
      problem_ = "the serial search counts " + std::to_string(expected_) + " solutions of " + std::to_string(n) +
                 " queens, the published count is " + std::to_string(known[static_cast<std::size_t>(n)]);
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      for (std::int64_t r = 0; r < rounds_; ++r) {
        std::uint64_t solutions = 0;
        P::run([&] { solutions = queens::count<P>(n_, depth_); });
        record(solutions);
      }
    });
  }
  std::string summary() override {
    return std::to_string(n_) + " queens: " + value_instance::summary() + " (" + std::to_string(nodes_) +
           " search nodes), " + std::to_string(rounds_) + " rounds";
  }

 private:
  int n_, depth_;
  std::int64_t rounds_;
  std::uint64_t nodes_ = 0;
};

const bench::registrar registered{{
    "queens",
    "CATS (seed 002), Table 1 (Queens(15)) and section 4.3: CPU-bound control",
    "N-queens solution count by backtracking over rows with bit masks; the free squares of each of the first "
    "`depth` rows are split in halves by fork2, the rest of the board is searched serially.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 8, 13, 15, s, "queens on an n x n board (paper: 15)", {1, 18});
      const auto depth =
          p.get("depth", 2, 3, 4, s, "rows searched in parallel; the rest of the board is searched serially", {0, 18});
      return std::make_unique<queens_instance>(static_cast<int>(n), static_cast<int>(depth), cpu_common::rounds(s, p));
    }}};

}  // namespace
