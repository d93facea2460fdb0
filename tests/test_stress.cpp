// Random fork-join trees: random fan-out, depth, work, constructs and thrown
// exceptions, under every registered policy (the built-in ones and the
// example policy of tests/policies/example) on 1 to 8 workers
// (oversubscribed on small machines), over many seeds. Each run must give the serially computed result: the sum over
// all nodes, or an exception when some node throws, with every node run.
//
// LOCUS_STRESS_SEEDS sets the number of seeds per policy and worker count
// (default 60; under a sanitizer 60 shared among the policies).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>

#include "fiber/sanitizers.hpp"
#include "locus/locus.hpp"
#include "support/random_tree.hpp"

namespace {

using random_tree::check_tree;
using random_tree::seeds_from;
using random_tree::tree;

int seeds_per_count() {
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
  // A sanitizer's memory grows with the work one process runs (TSan: about
  // 3 GB for 5 x 60 trees), and CI runs two of these programs at once:
  // under a sanitizer the policies share the seeds a single policy had.
  const int policies = static_cast<int>(locus::available_policies().size());
  return seeds_from("LOCUS_STRESS_SEEDS", std::max(10, 60 / policies));
#else
  return seeds_from("LOCUS_STRESS_SEEDS", 60);
#endif
}

}  // namespace

class RandomTrees : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RandomTrees, MatchTheSerialResult) {
  const auto& [policy, workers] = GetParam();
  locus::runtime_options o;
  o.policy = policy;
  o.workers = workers;
  o.spin_us = 20;
  locus::runtime rt(o);
  const int seeds = seeds_per_count();
  int threw = 0;
  for (int s = 0; s < seeds; ++s) {
    const tree t{static_cast<std::uint64_t>(s) * 1000003 + static_cast<std::uint64_t>(workers), 5 + s % 5,
                 s % 3 == 0};
    threw += check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
  if (seeds >= 30) {
    EXPECT_GT(threw, 0) << "no seed exercised an exception";
  }
}

// The policies are read when the tests are registered, after every static
// registration (the example policy's) has run.
INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, RandomTrees,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()),
                                            ::testing::Values(1, 2, 3, 4, 8)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// The same trees under the simulator, one simulated run per seed: the seed
// drives every worker's victim choice, so each explores another
// interleaving, deterministically; the seeds take the policies in turn. 1 to 12 workers on the 8 cores of the
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
  const auto policies = locus::available_policies();
  for (int s = 0; s < seeds; ++s) {
    locus::runtime_options o;
    o.policy = policies[static_cast<std::size_t>(s) % policies.size()];
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
