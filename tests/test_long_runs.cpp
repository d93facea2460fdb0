// Long runs: a million spawn/sync pairs and a million fork_joins on one
// worker and on two. Every spawn reuses a pooled fiber, so these catch state
// that grows with each reuse (ThreadSanitizer once kept each finished run's
// frames on a reused fiber's shadow call stack and crashed after about
// 2^16 to 2^17 reuses). They run in the normal suite and under both
// sanitizers (make test-asan, make test-tsan).
#include <gtest/gtest.h>

#include <cstdint>

#include "locus/locus.hpp"

namespace {

constexpr std::int64_t pairs = 1'000'000;

locus::runtime_options workers(int n) {
  locus::runtime_options o;
  o.workers = n;
  return o;
}

// Runs body on a worker of the pool (the main thread is not one).
template <class Body>
void on_pool(Body&& body) {
  locus::fork_join(body, [] {});
}

}  // namespace

class LongRuns : public ::testing::TestWithParam<int> {};

TEST_P(LongRuns, MillionSpawnSyncPairsWithATrivialChild) {
  locus::runtime rt(workers(GetParam()));
  std::int64_t children = 0;
  on_pool([&] {
    for (std::int64_t i = 0; i < pairs; ++i) {
      locus::task_group g;
      g.spawn([&] { ++children; });
      g.sync();  // the child's write happens before the sync returns
    }
  });
  EXPECT_EQ(children, pairs);
}

TEST_P(LongRuns, MillionForkJoins) {
  locus::runtime rt(workers(GetParam()));
  std::int64_t left = 0, right = 0;
  on_pool([&] {
    for (std::int64_t i = 0; i < pairs; ++i) locus::fork_join([&] { ++left; }, [&] { ++right; });
  });
  EXPECT_EQ(left, pairs);
  EXPECT_EQ(right, pairs);
}

INSTANTIATE_TEST_SUITE_P(Workers, LongRuns, ::testing::Values(1, 2),
                         [](const auto& info) { return std::to_string(info.param) + "_workers"; });
