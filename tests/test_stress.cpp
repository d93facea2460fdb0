// Random fork-join trees: random fan-out, depth, work, constructs and thrown
// exceptions, on 1 to 8 workers (oversubscribed on small machines), over
// many seeds. Each run must give the serially computed result: the sum over
// all nodes, or an exception when some node throws, with every node run.
//
// LOCUS_STRESS_SEEDS sets the number of seeds per worker count (default 60).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "core/sanitizers.hpp"
#include "locus/locus.hpp"

namespace {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

struct tree_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct tree {
  std::uint64_t seed;
  int max_depth;
  bool allow_throw;

  int fanout(std::uint64_t id, int depth) const {
    return depth >= max_depth ? 0 : static_cast<int>(mix(id ^ seed) % 6);
  }
  bool throws(std::uint64_t id) const { return allow_throw && mix(id * 7 + seed) % 1999 == 0; }
  int construct(std::uint64_t id) const { return static_cast<int>(mix(id + 3 * seed) % 4); }
  long value(std::uint64_t id) const {
    volatile long v = 0;
    const int spin = static_cast<int>(mix(id ^ (seed << 1)) % 200);
    for (int i = 0; i < spin; ++i) v = v + i;
    locus::compute(static_cast<std::uint64_t>(spin) * 50);  // its duration under the simulator
    return static_cast<long>(mix(id) % 1000);
  }
  static std::uint64_t child(std::uint64_t id, int i) { return id * 8 + static_cast<std::uint64_t>(i) + 1; }

  // Serial reference: sum of values; counts nodes; notes whether any throws.
  long serial(std::uint64_t id, int depth, long& nodes, bool& any_throw) const {
    ++nodes;
    long sum = value(id);
    for (int i = 0; i < fanout(id, depth); ++i) sum += serial(child(id, i), depth + 1, nodes, any_throw);
    if (throws(id)) any_throw = true;
    return sum;
  }

  long parallel(std::uint64_t id, int depth, std::atomic<long>& nodes) const {
    nodes.fetch_add(1, std::memory_order_relaxed);
    const int n = fanout(id, depth);
    std::vector<long> part(static_cast<std::size_t>(n), 0);
    auto run_child = [&](int i) { part[static_cast<std::size_t>(i)] = parallel(child(id, i), depth + 1, nodes); };
    switch (construct(id)) {
      case 0: {  // work-first spawns
        locus::task_group g;
        for (int i = 0; i < n; ++i) g.spawn([&, i] { run_child(i); });
        g.sync();
        break;
      }
      case 1: {  // parent-first spawns
        locus::task_group g;
        for (int i = 0; i < n; ++i) g.spawn([&, i] { run_child(i); }, locus::parent_first);
        g.sync();
        break;
      }
      case 2:  // a loop
        locus::parallel_for(0, n, 1, [&](std::int64_t i) { run_child(static_cast<int>(i)); });
        break;
      default:  // nested binary fork_join
        fork_range(0, n, run_child);
        break;
    }
    long sum = value(id);
    for (long p : part) sum += p;
    if (throws(id)) throw tree_error("node " + std::to_string(id));
    return sum;
  }

  template <class F>
  static void fork_range(int lo, int hi, F& f) {
    if (hi - lo == 0) return;
    if (hi - lo == 1) return f(lo);
    const int mid = (lo + hi) / 2;
    locus::fork_join([&] { fork_range(lo, mid, f); }, [&] { fork_range(mid, hi, f); });
  }
};

int seeds_from(const char* variable, int fallback) {
  const char* s = std::getenv(variable);
  return s != nullptr ? std::max(1, std::atoi(s)) : fallback;
}

int seeds_per_count() { return seeds_from("LOCUS_STRESS_SEEDS", 60); }

// Runs tree t from outside the pool and checks it against the serial run;
// returns whether it threw.
bool check_tree(const tree& t, int s) {
  long expect_nodes = 0;
  bool expect_throw = false;
  const long expect = t.serial(1, 0, expect_nodes, expect_throw);
  std::atomic<long> nodes{0};
  long got = -1;
  bool caught = false;
  try {
    locus::fork_join([&] { got = t.parallel(1, 0, nodes); }, [] {});
  } catch (const tree_error&) {
    caught = true;
  }
  EXPECT_EQ(caught, expect_throw) << "seed " << s;
  if (!caught) EXPECT_EQ(got, expect) << "seed " << s;
  EXPECT_EQ(nodes.load(), expect_nodes) << "seed " << s << ": every node runs, exception or not";
  return caught;
}

}  // namespace

class RandomTrees : public ::testing::TestWithParam<int> {};

TEST_P(RandomTrees, MatchTheSerialResult) {
  locus::runtime_options o;
  o.workers = GetParam();
  o.spin_us = 20;
  locus::runtime rt(o);
  const int seeds = seeds_per_count();
  int threw = 0;
  for (int s = 0; s < seeds; ++s) {
    const tree t{static_cast<std::uint64_t>(s) * 1000003 + static_cast<std::uint64_t>(GetParam()), 5 + s % 5,
                 s % 3 == 0};
    threw += check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
  if (seeds >= 30) {
    EXPECT_GT(threw, 0) << "no seed exercised an exception";
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, RandomTrees, ::testing::Values(1, 2, 3, 4, 8));

// The same trees under the simulator, one simulated run per seed: the seed
// drives every worker's victim choice, so each explores another
// interleaving, deterministically. 1 to 12 workers on the 8 cores of the
// Nehalem preset (oversubscribed above 8). LOCUS_SIM_STRESS_SEEDS sets the
// number of seeds (default 2000; 400 under a sanitizer, which is 10 to 50
// times slower and checks memory and races rather than interleavings).
TEST(SimulatedRandomTrees, MatchTheSerialResult) {
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
  const int seeds = seeds_from("LOCUS_SIM_STRESS_SEEDS", 400);
#else
  const int seeds = seeds_from("LOCUS_SIM_STRESS_SEEDS", 2000);
#endif
  int threw = 0;
  for (int s = 0; s < seeds; ++s) {
    locus::runtime_options o;
    o.engine = "sim";
    o.machine = "tbb-numa-nehalem-2x4";
    o.workers = 1 + s % 12;
    o.seed = s;
    locus::runtime rt(o);
    const tree t{static_cast<std::uint64_t>(s) * 7919 + 17, 3 + s % 3, s % 3 == 0};
    threw += check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
  if (seeds >= 30) {
    EXPECT_GT(threw, 0) << "no seed exercised an exception";
  }
}
