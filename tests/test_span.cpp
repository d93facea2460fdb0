// Work and span (LOCUS_SPAN=1, include/locus/detail/span_hooks.hpp): known
// programs under the simulator, whose clock makes strands exact (compute()
// advances it by the cycles given; the scheduler's own charges are small
// beside them); serial order and exceptions on real threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "locus/locus.hpp"

namespace {

constexpr std::uint64_t leaf_cycles = 220'000;  // 100 us at numa-ws-4x8's 2.2 GHz
constexpr double leaf_s = 100e-6;

locus::runtime_options simulated(int workers) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.workers = workers;
  o.span = 1;
  return o;
}

void tree(int depth) {
  if (depth == 0) return locus::compute(leaf_cycles);
  locus::fork_join([&] { tree(depth - 1); }, [&] { tree(depth - 1); });
}

TEST(Span, BalancedTreeHasWorkOfItsLeavesAndSpanOfOnePath) {
  locus::runtime rt(simulated(8));
  locus::reset_stats();
  tree(8);
  const locus::stats st = locus::get_stats();
  ASSERT_TRUE(st.span_measured);
  EXPECT_EQ(st.span_roots, 1u);
  EXPECT_NEAR(st.work_s, 256 * leaf_s, 256 * leaf_s * 0.02);
  EXPECT_GE(st.span_s, leaf_s);
  EXPECT_LE(st.span_s, leaf_s * 1.1);
  EXPECT_NEAR(st.parallelism(), 256, 256 * 0.1);
  // One burden (5 us) per level on the path through second branches.
  EXPECT_NEAR(st.burdened_span_s - st.span_s, 8 * 5e-6, 8 * 5e-6 * 0.2);
}

TEST(Span, ChainHasSpanEqualToWork) {
  locus::runtime rt(simulated(4));
  locus::reset_stats();
  locus::fork_join([] {
    for (int i = 0; i < 16; ++i) {
      locus::task_group g;
      g.spawn([] { locus::compute(leaf_cycles); });
      g.sync();
    }
  }, [] {});
  const locus::stats st = locus::get_stats();
  EXPECT_NEAR(st.work_s, 16 * leaf_s, 16 * leaf_s * 0.02);
  EXPECT_NEAR(st.span_s, st.work_s, st.work_s * 0.02);
  EXPECT_NEAR(st.parallelism(), 1.0, 0.05);
}

TEST(Span, BalancedLoopHasParallelismOfItsPieces) {
  locus::runtime rt(simulated(8));
  locus::reset_stats();
  // 64 pieces of 16 iterations, each iteration a tenth of a leaf.
  locus::parallel_for(0, 1024, 16, [](std::int64_t lo, std::int64_t hi) {
    locus::compute(static_cast<std::uint64_t>(hi - lo) * leaf_cycles / 10);
  });
  const locus::stats st = locus::get_stats();
  EXPECT_NEAR(st.work_s, 102.4 * leaf_s, 102.4 * leaf_s * 0.02);
  EXPECT_NEAR(st.span_s, 1.6 * leaf_s, 1.6 * leaf_s * 0.1);
  EXPECT_NEAR(st.parallelism(), 64, 64 * 0.1);
}

TEST(Span, AffinityLoopPiecesAreParallelChildren) {
  locus::runtime rt(simulated(4));
  locus::loop_affinity aff;
  locus::reset_stats();
  locus::parallel_for(0, 1600, 100, [](std::int64_t lo, std::int64_t hi) {
    locus::compute(static_cast<std::uint64_t>(hi - lo) * leaf_cycles / 100);
  }, aff);
  const locus::stats st = locus::get_stats();
  EXPECT_NEAR(st.work_s, 16 * leaf_s, 16 * leaf_s * 0.02);
  EXPECT_NEAR(st.span_s, leaf_s, leaf_s * 0.1);  // 16 pieces of 100 iterations, one leaf each
}

// A pipeline's tasks run in place, each a measured child (nothing is
// queued under LOCUS_SPAN): every item passes, in order, and the items'
// parallel stages count as parallel children, not as a chain.
TEST(Span, PipelineItemsAreParallelChildren) {
  locus::runtime rt(simulated(4));
  locus::reset_stats();
  int next = 0;
  std::vector<int> taken;
  locus::pipeline(4, locus::make_stage<void, int>(locus::stage_mode::serial_in_order,
                                                  [&](locus::flow_control& fc) {
                                                    if (next == 16) fc.stop();
                                                    return next++;
                                                  }) &
                         locus::make_stage<int, int>(locus::stage_mode::parallel,
                                                     [](int v) {
                                                       locus::compute(leaf_cycles);
                                                       return v;
                                                     }) &
                         locus::make_stage<int, void>(locus::stage_mode::serial_in_order,
                                                      [&](int v) { taken.push_back(v); }));
  ASSERT_EQ(taken.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(taken[static_cast<std::size_t>(i)], i);
  const locus::stats st = locus::get_stats();
  EXPECT_NEAR(st.work_s, 16 * leaf_s, 16 * leaf_s * 0.02);
  EXPECT_GE(st.span_s, leaf_s);
  EXPECT_LE(st.span_s, 2.2 * leaf_s);  // the first item's, in the caller's strand, and one other
}

// On real threads the mode runs everything in serial order and keeps the
// usual exception rule.
TEST(Span, SerialOrderAndExceptionsOnThreads) {
  locus::runtime_options o;
  o.workers = 4;
  o.span = 1;
  locus::runtime rt(o);
  std::vector<int> order;
  locus::task_group g;
  for (int i = 0; i < 8; ++i) g.spawn([&order, i] {
    locus::fork_join([&] { order.push_back(2 * i); }, [&] { order.push_back(2 * i + 1); });
  });
  g.spawn([&order] { order.push_back(16); }, locus::parent_first);
  g.sync();
  std::vector<int> expected(17);
  for (int i = 0; i < 17; ++i) expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(order, expected);
  EXPECT_THROW(locus::fork_join([] {}, [] { throw std::runtime_error("g"); }), std::runtime_error);
  locus::task_group h;
  h.spawn([] { throw std::invalid_argument("child"); });
  EXPECT_THROW(h.sync(), std::invalid_argument);
  const locus::stats st = locus::get_stats();
  EXPECT_TRUE(st.span_measured);
  EXPECT_GT(st.work_s, 0);
  EXPECT_NE(st.to_json().find("\"parallelism\""), std::string::npos);
  EXPECT_NE(st.summary().find("parallelism"), std::string::npos);
}

TEST(Span, OffByDefaultAndBadValuesRejected) {
  {
    locus::runtime_options o;
    o.workers = 2;
    locus::runtime rt(o);
    EXPECT_FALSE(locus::get_stats().span_measured);
    EXPECT_EQ(locus::get_stats().to_json().find("\"span\""), std::string::npos);
  }
  setenv("LOCUS_SPAN", "2", 1);
  try {
    locus::runtime rt;
    ADD_FAILURE() << "LOCUS_SPAN=2 was accepted";
  } catch (const locus::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("LOCUS_SPAN"), std::string::npos) << e.what();
  }
  unsetenv("LOCUS_SPAN");
}

}  // namespace
