// Work hints (locus/hints.hpp): bad values are rejected, the built-in
// policies ignore them, and a policy that asks for them (hook_work_hints)
// receives each child's share of its group's work as ADWS's figure 7
// assigns it: from the top of what is left, the child's hint over the
// group's total (1 without a hint: equal shares, section 6.4), or half of
// what is left in a group without a total.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "locus/locus.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {
namespace {

// Records the shares it is given, on one worker; runs every child here.
std::vector<std::pair<double, double>> g_shares;

class share_recorder final : public policy_base {
 public:
  explicit share_recorder(policy_context& c) : policy_base(c) {
    for (int i = 0; i < c.num_workers(); ++i) c.worker_at(i).hooks |= hook_work_hints;
  }
  worker_view* choose_victim(worker_view&) override { return nullptr; }  // one worker: no one to steal from
  share_route share_work(worker_view&, const task_context&, task_context&, double lo, double hi) override {
    g_shares.emplace_back(lo, hi);
    return share_route::local;
  }
};

const bool registered = (register_policy({.name = "share-recorder", .make = &make_policy_of<share_recorder>}), true);

locus::runtime_options one_worker(const char* policy) {
  locus::runtime_options o;
  o.workers = 1;
  o.policy = policy;
  return o;
}

void expect_shares(const std::vector<std::pair<double, double>>& expected) {
  ASSERT_EQ(g_shares.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_DOUBLE_EQ(g_shares[i].first, expected[i].first) << "share " << i << " low end";
    EXPECT_DOUBLE_EQ(g_shares[i].second, expected[i].second) << "share " << i << " high end";
  }
}

TEST(WorkHints, SharesFromTheTopOfWhatIsLeft) {
  ASSERT_TRUE(registered);
  locus::runtime rt(one_worker("share-recorder"));
  int ran = 0;
  g_shares.clear();
  locus::fork_join([&] {
    locus::task_group g(locus::work(4));
    g.spawn([&] { ++ran; }, locus::work(1));
    g.spawn([&] { ++ran; }, locus::work(2), locus::label("second"));
    g.spawn([&] { ++ran; }, locus::parent_first, locus::work(1));
    g.sync();
  }, [] {});
  EXPECT_EQ(ran, 3);
  // The outer fork_join's probe first (no hints: 1:1), then the group's.
  expect_shares({{0.5, 1.0}, {0.75, 1.0}, {0.25, 0.75}, {0.0, 0.25}});
}

// A group without a total does not know its count: each unhinted child takes
// half of what is left.
TEST(WorkHints, WithoutATotalEachChildTakesHalfOfWhatIsLeft) {
  locus::runtime rt(one_worker("share-recorder"));
  g_shares.clear();
  locus::fork_join([&] {
    locus::task_group g;
    for (int i = 0; i < 3; ++i) g.spawn([] {});
    g.sync();
  }, [] {});
  expect_shares({{0.5, 1.0}, {0.5, 1.0}, {0.25, 0.5}, {0.125, 0.25}});
}

// Section 6.4's guess: every child has the same work. In a group given its
// total an unhinted child counts 1, so four children of a group of work 4
// take a quarter each (halving gave 1/2, 1/4, 1/8, 1/16), and one among
// hinted children takes 1 of the total.
TEST(WorkHints, UnhintedChildrenOfAGroupWithItsTotalCountOneEach) {
  locus::runtime rt(one_worker("share-recorder"));
  g_shares.clear();
  locus::fork_join([&] {
    locus::task_group g(locus::work(4));
    for (int i = 0; i < 4; ++i) g.spawn([] {});
    g.sync();
    locus::task_group h(locus::work(4));
    h.spawn([] {}, locus::work(2));
    h.spawn([] {});
    h.spawn([] {}, locus::work(1));
    h.sync();
  }, [] {});
  expect_shares({{0.5, 1.0},
                 {0.75, 1.0}, {0.5, 0.75}, {0.25, 0.5}, {0.0, 0.25},
                 {0.5, 1.0}, {0.25, 0.5}, {0.0, 0.25}});
}

TEST(WorkHints, ForkJoinBranchesCarryTheirWork) {
  locus::runtime rt(one_worker("share-recorder"));
  g_shares.clear();
  int ran = 0;
  // f's share is taken first, from the top: 3 of 4.
  locus::fork_join(locus::with([&] { ++ran; }, locus::work(3)), locus::with([&] { ++ran; }, locus::work(1)));
  EXPECT_EQ(ran, 2);
  expect_shares({{0.25, 1.0}});
}

TEST(WorkHints, BadHintsAreRejectedWithTheValue) {
  EXPECT_THROW(locus::work(-1.0), std::invalid_argument);
  EXPECT_THROW(locus::work(std::nan("")), std::invalid_argument);
  EXPECT_THROW(locus::work(INFINITY), std::invalid_argument);
  try {
    locus::work(-2.5);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-2.5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 0"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(locus::work(0));
}

// ws ignores them: the serial order on one worker, whatever the hints.
TEST(WorkHints, IgnoredByWs) {
  locus::runtime rt(one_worker("ws"));
  std::vector<int> order;
  locus::task_group g(locus::work(10), locus::footprint(1 << 20));
  g.spawn([&] { order.push_back(1); }, locus::work(9));
  g.spawn([&] { order.push_back(2); }, locus::work(1), locus::at(0));
  order.push_back(3);
  g.sync();
  locus::fork_join(locus::with([&] { order.push_back(4); }, locus::work(5)), [&] { order.push_back(5); });
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
}

// The same with parent-first and labeled children inside a root: the order
// on one worker is the serial elision's.
TEST(WorkHints, IgnoredByWsSerialOrderOnOneWorker) {
  locus::runtime rt(one_worker("ws"));
  std::vector<int> order;
  locus::fork_join([&] {
    locus::task_group g(locus::work(10), locus::footprint(1 << 20));
    g.spawn([&] { order.push_back(1); }, locus::work(3));
    g.spawn([&] { order.push_back(2); }, locus::work(3), locus::label("two"));
    g.spawn([&] { order.push_back(3); }, locus::parent_first, locus::work(4));
    order.push_back(4);
    g.sync();
    locus::fork_join(locus::with([&] { order.push_back(5); }, locus::work(1)),
                     locus::with([&] { order.push_back(6); }, locus::work(2), locus::at(0)));
  }, [] {});
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 3, 5, 6}));
}

}  // namespace
}  // namespace locus::detail
