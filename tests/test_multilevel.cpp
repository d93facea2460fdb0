// Multi-level scheduling (seed 003, sections 4 and 5): the tree of caches
// built from a topology, and the tying of task groups to caches (figure
// 13) under both multi-level policies, ml-ws and ml-adws, on threads and
// under the simulator.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "locus/locus.hpp"
#include "support/containment_tree.hpp"
#include "policy/multilevel/cache_tree.hpp"
#include "support/random_tree.hpp"
#include "topology/topology.hpp"

namespace {

using locus::detail::cache_tree;
using random_tree::mix;

cache_tree tree_of(const char* topo, int workers) {
  const auto t = locus::detail::parse_topology(topo);
  const auto p = locus::detail::make_placement(t, locus::detail::place_kind::core, workers, 64);
  return cache_tree(t, p);
}

// ---------------------------------------------------------------- tree

TEST(CacheTree, TwoSocketsAreMemoryOverTwoL3sOverTheWorkers) {
  const cache_tree t = tree_of("2x4:L3=16M,L2=1M", 8);
  const auto& memory = t.at(cache_tree::root);
  EXPECT_EQ(memory.capacity, cache_tree::unbounded);
  ASSERT_EQ(memory.children.size(), 2u);
  for (int s = 0; s < 2; ++s) {
    const auto& l3 = t.at(memory.children[static_cast<std::size_t>(s)]);
    EXPECT_EQ(l3.level, 1);
    EXPECT_EQ(l3.capacity, std::size_t{16} << 20);
    ASSERT_EQ(l3.children.size(), 4u);
    for (int k = 0; k < 4; ++k) {
      const int leaf = l3.children[static_cast<std::size_t>(k)];
      EXPECT_TRUE(t.is_leaf(leaf));
      EXPECT_EQ(t.at(leaf).worker, 4 * s + k);
      EXPECT_EQ(t.leaf_of(4 * s + k), leaf);
      EXPECT_EQ(t.at(leaf).level, 2);
    }
  }
  // Bottom-up election: worker 0 leads memory, worker 4 the second L3,
  // every other worker its own leaf.
  EXPECT_EQ(t.initial_lead(0), cache_tree::root);
  EXPECT_EQ(t.initial_lead(4), memory.children[1]);
  for (int w : {1, 2, 3, 5, 6, 7}) EXPECT_EQ(t.initial_lead(w), t.leaf_of(w)) << "worker " << w;
  EXPECT_EQ(t.child_toward(cache_tree::root, 6), memory.children[1]);
}

TEST(CacheTree, OneL3HoldingEveryWorkerIsMemorysOnlyChild) {
  const cache_tree t = tree_of("1x4:L3=32M,L2=1M", 4);
  ASSERT_EQ(t.at(cache_tree::root).children.size(), 1u);
  const int l3 = t.at(cache_tree::root).children[0];
  EXPECT_EQ(t.at(l3).capacity, std::size_t{32} << 20);
  EXPECT_EQ(t.at(l3).children.size(), 4u);
  EXPECT_EQ(t.initial_lead(0), cache_tree::root);
  EXPECT_EQ(t.initial_lead(1), t.leaf_of(1));
}

TEST(CacheTree, SharedL2sAddALevel) {
  // Two workers per core: each core's L2 is shared by two workers, so the
  // tree is memory > L3 > L2s > workers.
  const cache_tree t = tree_of("1x2:L3=8M,L2=1M", 4);
  const int l3 = t.at(cache_tree::root).children[0];
  ASSERT_EQ(t.at(l3).children.size(), 2u);
  for (int l2 : t.at(l3).children) {
    EXPECT_EQ(t.at(l2).level, 2);
    EXPECT_EQ(t.at(l2).capacity, std::size_t{1} << 20);
    EXPECT_EQ(t.at(l2).children.size(), 2u);
  }
}

// Figure 15's rule on a tree whose branches differ in depth: workers 0-1
// and 2-3 share an L2 each, workers 4 and 5 have their own, one L3 holds
// all six. So memory > L3 > {L2, L2, leaf 4, leaf 5}, and the L2s hold
// leaves 0-3 one level further down.
TEST(CacheTree, FlatteningGoesDownWhileTheTotalCapacityHoldsTheGroup) {
  auto topo = locus::detail::parse_topology("1x6:L3=12M,L2=1M");
  std::erase_if(topo.caches, [](const auto& c) { return c.level == 2; });
  for (std::vector<int> cores : {std::vector<int>{0, 1}, {2, 3}, {4}, {5}}) {
    locus::detail::cache_info l2;
    l2.level = 2;
    l2.size_bytes = std::size_t{1} << 20;
    l2.cores = cores;
    topo.caches.push_back(l2);
  }
  locus::detail::sort_caches(topo.caches);
  const cache_tree t(topo, locus::detail::make_placement(topo, locus::detail::place_kind::core, 6, 64));
  EXPECT_EQ(t.max_level(), 3);
  const int l3 = t.at(cache_tree::root).children[0];
  const auto& mid = t.at(l3).children;
  ASSERT_EQ(mid.size(), 4u);
  EXPECT_EQ(mid[2], t.leaf_of(4));
  EXPECT_EQ(t.at(t.leaf_of(4)).capacity, std::size_t{1} << 20) << "a leaf holds its private L2";
  // D(C, l): the nodes at level l below C, and the leaves above it.
  EXPECT_EQ(t.below(l3, 2), mid);
  EXPECT_EQ(t.below(l3, 3),
            (std::vector<int>{t.leaf_of(0), t.leaf_of(1), t.leaf_of(2), t.leaf_of(3), t.leaf_of(4), t.leaf_of(5)}));
  EXPECT_EQ(t.below(t.leaf_of(4), 3), std::vector<int>{t.leaf_of(4)});
  const std::size_t mb = std::size_t{1} << 20;
  const int memory[] = {cache_tree::root};
  const int the_l3[] = {l3};
  // 20 MiB does not fit the L3: no level below it.
  EXPECT_EQ(t.flatten_level(the_l3, 20 * mb), 1);
  // 6 MiB fits the L3 (12) but not its children together (4 x 1 MiB): the
  // L3's children, figure 13's tie.
  EXPECT_EQ(t.flatten_level(the_l3, 6 * mb), 2);
  // 3 MiB fits the children too: down to the deepest level.
  EXPECT_EQ(t.flatten_level(the_l3, 3 * mb), 3);
  // Memory holds anything; then as for the L3.
  EXPECT_EQ(t.flatten_level(memory, 20 * mb), 1);
  EXPECT_EQ(t.flatten_level(memory, 6 * mb), 2);
  const int two_l2s[] = {mid[0], mid[1]};
  EXPECT_EQ(t.flatten_level(two_l2s, 2 * mb), 3) << "two L2s hold what one does not";
  EXPECT_EQ(t.flatten_level(two_l2s, 3 * mb), 2);
}

// ---------------------------------------------------------------- ml-ws
// A tree of task groups with declared footprints (locus::footprint); the
// leaves only compute, so the declared bytes cost the simulator nothing.
// Each node records the worker that ran it.
struct sized_tree {
  struct node {
    std::size_t bytes = 0;  // declared footprint of the node's group
    std::vector<int> children;
    long value = 0;         // a leaf's
  };
  std::vector<node> nodes;
  int throw_at = -1;  // a leaf that throws, or -1

  // `exact`: a group declares the sum of its children's footprints;
  // otherwise a random one (wrong hints must not change the result).
  int build(std::uint64_t id, int depth, bool exact) {
    const int me = static_cast<int>(nodes.size());
    nodes.emplace_back();
    const int fanout = depth >= 6 ? 0 : 2 + static_cast<int>(mix(id) % 2);
    if (fanout == 0) {
      nodes[static_cast<std::size_t>(me)].bytes = (1 + mix(id ^ 3) % 4) << 20;  // 1 to 4 MiB
      nodes[static_cast<std::size_t>(me)].value = static_cast<long>(mix(id ^ 7) % 1000);
      return me;
    }
    std::size_t sum = 0;
    for (int i = 0; i < fanout; ++i) {
      const int c = build(id * 4 + static_cast<std::uint64_t>(i) + 1, depth + 1, exact);
      nodes[static_cast<std::size_t>(me)].children.push_back(c);
      sum += nodes[static_cast<std::size_t>(c)].bytes;
    }
    nodes[static_cast<std::size_t>(me)].bytes = exact ? sum : (mix(id ^ 11) % 256) << 20;
    return me;
  }

  long serial(int n) const {
    const node& me = nodes[static_cast<std::size_t>(n)];
    long sum = me.value;
    for (int c : me.children) sum += serial(c);
    return sum;
  }

  long run(int n, std::vector<std::atomic<int>>& ran_on) const {
    const node& me = nodes[static_cast<std::size_t>(n)];
    ran_on[static_cast<std::size_t>(n)].store(locus::worker_id(), std::memory_order_relaxed);
    if (me.children.empty()) {
      if (n == throw_at) throw std::runtime_error("leaf " + std::to_string(n));
      return me.value;
    }
    std::vector<long> sums(me.children.size());
    locus::task_group g(locus::footprint(me.bytes));
    for (std::size_t i = 0; i < me.children.size(); ++i)
      g.spawn([&, i] { sums[i] = run(me.children[i], ran_on); });
    g.sync();
    long sum = 0;
    for (long s : sums) sum += s;
    return sum;
  }
};

struct ml_run {
  long result = 0;
  bool threw = false;
  std::vector<int> ran_on;
  std::uint64_t ties = 0, overlapping = 0, steals = 0, migrated = 0, flattened = 0;
};

ml_run run_tree(const sized_tree& t) {
  std::vector<std::atomic<int>> ran_on(t.nodes.size());
  locus::reset_stats();
  ml_run r;
  try {
    locus::task_group root;
    root.spawn([&] { r.result = t.run(0, ran_on); });
    root.sync();
  } catch (const std::runtime_error&) {
    r.threw = true;
  }
  for (auto& a : ran_on) r.ran_on.push_back(a.load());
  for (const auto& w : locus::get_stats().workers) {
    r.steals += w.steals;
    for (const auto& c : w.policy_counters) {
      if (c.name == "ties" || c.name == "anchored") r.ties += c.value;  // ml-* tie, sb anchors
      if (c.name == "overlapping_ties") r.overlapping += c.value;
      if (c.name == "migrated") r.migrated += c.value;
      if (c.name == "flattened") r.flattened += c.value;
    }
  }
  return r;
}

// Every node of the subtree at g ran on the socket where g ran (28 workers
// per socket on adws-cascadelake-2x28); returns that socket.
int expect_one_socket(const sized_tree& t, const ml_run& r, int g, const std::string& what) {
  const int socket = r.ran_on[static_cast<std::size_t>(g)] / 28;
  std::vector<int> stack{g};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    EXPECT_EQ(r.ran_on[static_cast<std::size_t>(n)] / 28, socket) << "node " << n << " below node " << g << ", " << what;
    for (int c : t.nodes[static_cast<std::size_t>(n)].children) stack.push_back(c);
  }
  return socket;
}

// A random tree's run: thrown where it should, else the serial result,
// and no cache tied twice. Returns how many groups were flattened.
std::uint64_t check_random_tree(const sized_tree& t, int workers, int seed) {
  const ml_run r = run_tree(t);
  EXPECT_EQ(r.threw, t.throw_at >= 0) << workers << " workers, seed " << seed;
  if (!r.threw) {
    EXPECT_EQ(r.result, t.serial(0)) << workers << " workers, seed " << seed;
  }
  EXPECT_EQ(r.overlapping, 0u);
  return r.flattened;
}

locus::runtime_options simulated(const std::string& policy, int workers, int seed) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "adws-cascadelake-2x28";  // 2 sockets of 28 cores, 38.5 MiB L3 each
  o.policy = policy;
  o.workers = workers;
  o.seed = static_cast<std::uint64_t>(seed);
  return o;
}

// Figure 13 on the paper's machine: a group that fits an L3 (38.5 MiB) but
// whose parent does not is tied to the L3 of the leader that opens it, so
// the whole subtree runs on that socket's workers; nothing is ever tied to
// a cache that has a group already; and both sockets get groups. Under sb
// the same group is anchored to the L3 of the worker that opens it (if
// the groups anchored there leave room), so it stays on one socket too.
class Multilevel : public ::testing::TestWithParam<std::string> {};

TEST_P(Multilevel, GroupsThatFitAnL3RunWithinOneSocket) {
  sized_tree t;
  t.build(5, 0, true);
  const std::size_t l3 = 40370176;
  std::vector<int> level1_leaves;  // fits, parent does not
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    for (int c : t.nodes[n].children)
      if (t.nodes[static_cast<std::size_t>(c)].bytes <= l3 && t.nodes[n].bytes > l3 &&
          !t.nodes[static_cast<std::size_t>(c)].children.empty())
        level1_leaves.push_back(c);
  ASSERT_GE(level1_leaves.size(), 4u) << "the tree should have several L3-sized groups";
  for (int seed : {1, 2, 3}) {
    locus::runtime rt(simulated(GetParam(), 56, seed));
    const ml_run r = run_tree(t);
    if (GetParam() == "ml-adws") {
      EXPECT_GT(r.migrated, 0u) << "ml-adws distributed nothing, seed " << seed;
    }
    ASSERT_FALSE(r.threw);
    EXPECT_EQ(r.result, t.serial(0)) << "seed " << seed;
    // ml-*: every level-1 leaf and the root group; sb: some of them.
    EXPECT_GT(r.ties, GetParam() == "sb" ? 0u : level1_leaves.size()) << "seed " << seed;
    EXPECT_EQ(r.overlapping, 0u) << "two groups tied to one cache, seed " << seed;
    // sb anchors a group only where the groups anchored already leave
    // room, so which stay on one socket depends on timing (SbAnchors below).
    if (GetParam() == "sb") continue;
    std::vector<bool> socket_used(2);
    for (int g : level1_leaves) {
      socket_used[static_cast<std::size_t>(expect_one_socket(t, r, g, "seed " + std::to_string(seed)))] = true;
    }
    EXPECT_TRUE(socket_used[0] && socket_used[1]) << "one socket took every L3-sized group, seed " << seed;
    if (::testing::Test::HasFailure()) return;
  }
}

// Random trees with wrong footprints and a leaf that throws match their
// serial result, one runtime for all seeds (a tie undone by an exception
// must leave the leaders as they were): simulated on 1 to 56 workers.
TEST_P(Multilevel, RandomFootprintsMatchSerialSimulated) {
  std::uint64_t flattened = 0;
  for (int workers : {1, 2, 3, 8, 29, 56}) {
    locus::runtime rt(simulated(GetParam(), workers, workers));
    for (int seed = 0; seed < 6; ++seed) {
      sized_tree t;
      t.build(static_cast<std::uint64_t>(seed) * 977 + static_cast<std::uint64_t>(workers), 0, seed % 2 == 0);
      if (seed % 3 == 2) t.throw_at = static_cast<int>(t.nodes.size()) - 1;
      flattened += check_random_tree(t, workers, seed);
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_EQ(flattened > 0, GetParam() == "ml-adws") << flattened << " groups flattened";
}

// The same on threads: 1 to 8 workers on this machine's caches (the host's
// tree; 3, 4 and 8 workers share its cores, so its L2s are shared caches
// too, unevenly for 3), many seeds. ml-adws flattens some of the groups.
TEST_P(Multilevel, RandomFootprintsMatchSerialOnThreads) {
  std::uint64_t flattened = 0;
  for (int workers : {1, 2, 3, 4, 8}) {
    locus::runtime_options o;
    o.policy = GetParam();
    o.workers = workers;
    o.spin_us = 20;
    locus::runtime rt(o);
    for (int seed = 0; seed < 20; ++seed) {
      sized_tree t;
      t.build(static_cast<std::uint64_t>(seed) * 131 + static_cast<std::uint64_t>(workers), 0, seed % 2 == 0);
      if (seed % 4 == 3) t.throw_at = static_cast<int>(t.nodes.size()) / 2;
      while (t.throw_at >= 0 && !t.nodes[static_cast<std::size_t>(t.throw_at)].children.empty()) ++t.throw_at;
      flattened += check_random_tree(t, workers, seed);
      if (::testing::Test::HasFailure()) return;
    }
  }
  if (GetParam() == "ml-adws") {
    EXPECT_GT(flattened, 0u) << "no group was flattened";
  } else {
    EXPECT_EQ(flattened, 0u);
  }
}

// ---------------------------------------------------------------- flattening
// Figure 15 on the paper's machine (2 x 28 workers, 38.5 MiB per L3): a
// group of 56 equal children, opened by a task whose range covers both
// L3s, that fits the two L3s together but not one is flattened, as one
// level over the 56 workers: child i runs on worker 55 - i (SL-ADWS's mapping:
// each child takes its share from the top of what is left,
// a pure function of the hints). The same group opened by a task that
// covers [0, 1.5) of the two L3s is not (the L3 that its range ends in is
// left out, footnote 5), and one that does not fit both L3s is not either.
struct flat_probe {
  std::size_t bytes;
  double first_share;  // the opener's share of the group above it (1: both L3s)
};

std::vector<int> run_flat_probe(const flat_probe& p, std::uint64_t& flattened) {
  std::vector<int> ran_on(56, -1);
  const std::size_t huge = std::size_t{1} << 40;
  locus::reset_stats();
  locus::task_group root;
  root.spawn([&] {
    // A group that fits nothing below memory: tied to memory, its children
    // ranged over the two L3s. A child takes its share from the top of
    // what is left, so the probe, spawned last, gets [0, 2 first_share).
    locus::task_group top(locus::work(1.0), locus::footprint(huge));
    if (p.first_share < 1.0) top.spawn([] {}, locus::work(1.0 - p.first_share));
    top.spawn(
        [&] {
          locus::task_group g(locus::work(56), locus::footprint(p.bytes));
          for (int i = 0; i < 56; ++i)
            g.spawn([&ran_on, i] { ran_on[static_cast<std::size_t>(i)] = locus::worker_id(); }, locus::work(1));
          g.sync();
        },
        locus::work(p.first_share));
    top.sync();
  });
  root.sync();
  flattened = 0;
  for (const auto& w : locus::get_stats().workers) flattened += w.counter("flattened");
  return ran_on;
}

TEST(Flattening, AGroupThatFitsBothL3sRunsAsOneLevelOverEveryWorker) {
  const std::size_t mb = std::size_t{1} << 20;
  for (int seed : {1, 2}) {
    locus::runtime rt(simulated("ml-adws", 56, seed));
    std::uint64_t flattened = 0;
    const std::vector<int> flat = run_flat_probe({60 * mb, 1.0}, flattened);
    EXPECT_EQ(flattened, 1u) << "seed " << seed;
    for (int i = 0; i < 56; ++i) EXPECT_EQ(flat[static_cast<std::size_t>(i)], 55 - i) << "child " << i << ", seed " << seed;
    // Range [0, 1.5): only the first L3 counts, and 60 MiB does not fit it.
    const std::vector<int> partial = run_flat_probe({60 * mb, 0.75}, flattened);
    EXPECT_EQ(flattened, 0u) << "seed " << seed;
    // 100 MiB fits neither the L3s together nor one.
    const std::vector<int> big = run_flat_probe({100 * mb, 1.0}, flattened);
    EXPECT_EQ(flattened, 0u) << "seed " << seed;
    for (const auto& ran : {partial, big})
      for (int w : ran) EXPECT_GE(w, 0) << "seed " << seed;
  }
}

// The root group itself: one that fits the sum of the L3s runs over every
// worker (the root case of figure 15, memory flattened down to the
// workers); ml-ws does not flatten, and the same group ties to memory and
// then to the L3s.
TEST(Flattening, ARootGroupThatFitsTheL3sSpreadsOverBothSockets) {
  const std::size_t mb = std::size_t{1} << 20;
  for (const std::string policy : {"ml-adws", "ml-ws"}) {
    locus::runtime rt(simulated(policy, 56, 3));
    std::vector<int> ran_on(56, -1);
    locus::reset_stats();
    locus::task_group root;
    root.spawn([&] {
      locus::task_group g(locus::work(56), locus::footprint(20 * mb));
      for (int i = 0; i < 56; ++i)
        g.spawn([&ran_on, i] { ran_on[static_cast<std::size_t>(i)] = locus::worker_id(); }, locus::work(1));
      g.sync();
    });
    root.sync();
    std::uint64_t flattened = 0, ties = 0;
    for (const auto& w : locus::get_stats().workers) {
      if (policy == "ml-adws") flattened += w.counter("flattened");
      ties += w.counter("ties");
    }
    if (policy == "ml-adws") {
      EXPECT_EQ(flattened, 1u);
      EXPECT_EQ(ties, 0u);
      for (int i = 0; i < 56; ++i) EXPECT_EQ(ran_on[static_cast<std::size_t>(i)], 55 - i) << "child " << i;
    } else {
      EXPECT_EQ(ties, 1u) << "ml-ws ties the group to memory";
    }
  }
}

// Section 4.2: a cache's leader "can be absent", and work sent to it must
// not wait for one. Two sockets of two cores, each core's L2 shared by two
// workers (workers 0-3 on the first socket, 4-7 on the second): memory >
// 2 L3s > 4 L2s > 8 workers. A task T whose range covers both L3s first
// sends a long task A to the second L3's leader (worker 4) and waits until
// A runs, then opens a group G of 6 MiB, which fits the L3s but not the
// L2s together: figure 15 flattens both L3s down to the four L2s, and G's
// four equal children get one L2 each, from the top. Worker 4 is to lead
// its own L2, but settles only when it next looks for work, after A; until
// then that L2 has no leader. G's child for it (the second, [2, 3)) is
// woken for: the other worker of that L2, asleep, leads a child of it,
// comes up to lead it (a claim) and runs the child before A ends. Before,
// the send woke no one: the child waited until a thief of the flattened
// level took it once the group dominated (in these runs the leader of the
// other L2 of that socket, after its own child, or a worker of the first
// socket), or for A.
TEST(Flattening, WorkSentToACacheWithNoLeaderDoesNotWaitForIt) {
  const std::string machine = ::testing::TempDir() + "locus_ml_adws_shared_l2.machine";
  {
    std::ofstream out(machine);
    out << "base = adws-cascadelake-2x28\nname = shared-l2-2x2x2\ntopology = 2x2:L3=8M,L2=1M\n";
  }
  const std::size_t mb = std::size_t{1} << 20;
  const std::size_t huge = std::size_t{1} << 40;
  for (int seed : {1, 2, 3}) {
    locus::runtime_options o = simulated("ml-adws", 8, seed);
    o.machine = machine;
    locus::runtime rt(o);
    std::atomic<bool> a_started{false}, a_done{false};
    int a_ran_on = -1;
    std::vector<int> ran_on(4, -1), before_a_ended(4, -1);
    locus::reset_stats();
    locus::task_group root;
    root.spawn([&] {
      locus::task_group top(locus::work(1.0), locus::footprint(huge));  // tied to memory
      top.spawn(
          [&] {  // T: [0, 2) of the two L3s
            locus::task_group h(locus::work(2.0), locus::footprint(huge));  // fits neither L3: not tied
            h.spawn(
                [&] {  // A: [1, 2), the second L3's
                  a_ran_on = locus::worker_id();
                  a_started = true;
                  locus::compute(50'000'000);
                  a_done = true;
                },
                locus::work(1.0));
            while (!a_started) locus::compute(1000);
            locus::task_group g(locus::work(4), locus::footprint(6 * mb));
            for (int i = 0; i < 4; ++i)
              g.spawn([&, i] {
                locus::compute(10000);
                ran_on[static_cast<std::size_t>(i)] = locus::worker_id();
                before_a_ended[static_cast<std::size_t>(i)] = a_done ? 0 : 1;
              });
            g.sync();
            h.sync();
          },
          locus::work(1.0));
      top.sync();
    });
    root.sync();
    std::uint64_t flattened = 0, claims = 0;
    for (const auto& w : locus::get_stats().workers) {
      flattened += w.counter("flattened");
      claims += w.counter("claims");
    }
    const std::string what = "seed " + std::to_string(seed);
    const auto socket = [](int w) { return w / 4; };
    EXPECT_EQ(a_ran_on, 4) << what;
    EXPECT_EQ(flattened, 1u) << what;
    EXPECT_EQ(claims, 1u) << what;
    EXPECT_NE(ran_on[1], a_ran_on) << "the child for worker 4's L2, " << what;
    EXPECT_EQ(socket(ran_on[1]), 1) << "the child for worker 4's L2, " << what;
    EXPECT_EQ(before_a_ended[1], 1) << "the child for worker 4's L2, " << what;
    EXPECT_EQ(socket(ran_on[0]), 1) << what;
    EXPECT_NE(ran_on[1], ran_on[0]) << "the child for worker 4's L2 ran on a worker with a child of its own, " << what;
    EXPECT_EQ(socket(ran_on[2]), 0) << what;
    EXPECT_EQ(ran_on[3], 0) << what;
  }
}

// Steal containment (section 3.2, figure 11 lines 44-50) in ml-adws's
// SL-ADWS among the workers, as test_adws.cpp's
// NoStealLeavesTheTopmostDominantGroup: a root group that fits the L3s
// together runs as one level over the 56 workers (figure 15), [0, 56) at
// depth 0. Its children: U = [3.7, 56) (long, on worker 3), S = [3.5, 3.7)
// (short; not cross-worker, so it stays on the spawner's deque, worker 0),
// T = [0.5, 3.5) and V = [0, 0.5) (long, on worker 0 after T's children
// are out). T's group G, one depth below F, has C2 = [2.5, 3.5) (long, on
// worker 2) and C0 = [0.5, 2.5) (short, on worker 0); once C0 is done G
// dominates workers 0 to 2, and worker 1, idle, steals from workers 0, 2
// and 3. S is F's, not G's: worker 1 must leave it. When the threshold was
// T's own depth, which is S's, it took S from worker 0's deque.
TEST(MlAdwsLoadBalancing, NoStealLeavesTheTopmostDominantGroup) {
  const std::size_t mb = std::size_t{1} << 20;
  containment::tree t;
  t.workers = 56;
  const int f = t.add(-1, 0, 0);
  t.add(f, 56 - 3.7, 2e7);           // U
  t.add(f, 0.2, 1e5);                // S
  const int g = t.add(f, 3.0, 0);    // T, whose group is G
  t.add(g, 1.0, 2e7);                // C2
  t.add(g, 2.0, 1e5);                // C0
  t.add(f, 0.5, 2e7);                // V
  t.place(f, 0, 56);
  for (int seed = 1; seed <= 8; ++seed) {
    locus::runtime rt(simulated("ml-adws", 56, seed));
    locus::reset_stats();
    containment::run_state s(t);
    s.root_footprint = 20 * mb;
    s.spawner_keeps = true;
    locus::task_group root;
    root.spawn([&] { s.run(0); });
    root.sync();
    std::uint64_t flattened = 0;
    for (const auto& w : locus::get_stats().workers) flattened += w.counter("flattened");
    ASSERT_EQ(flattened, 1u) << "seed " << seed;
    ASSERT_EQ(s.checksum.load(), s.expected()) << "seed " << seed;
    EXPECT_EQ(s.escapes.load(), 0) << "seed " << seed;
  }
}

// Figure 8's per-depth primary queues in ml-adws (as adws's set-aside,
// test_adws.cpp ThievesReachChildrenUnderAShallowerFrame): a root group
// that fits the L3s together is flattened over the 56 workers (depth 0);
// its one child, [0, 56) on worker 0, opens rounds of a group at depth 1
// whose first child, [1, 56), ends at once on worker 1 and makes the group
// dominant, and whose other 32 children (parent-first) are all in [0, 1),
// worker 0's. Worker 0's deque holds the root group's continuation (depth
// 0) above them. The other workers may steal at depth 1 and up: they must
// get past it. When ml-adws looked only at the oldest frame (a miss
// "shallow"), worker 0 ran all 128 children.
TEST(MlAdwsLoadBalancing, ThievesReachChildrenUnderAShallowerFrame) {
  const std::size_t mb = std::size_t{1} << 20;
  constexpr int workers = 56;
  for (int seed : {1, 2, 3}) {
    locus::runtime rt(simulated("ml-adws", workers, seed));
    locus::reset_stats();
    std::vector<std::atomic<int>> ran(workers);
    auto child = [&ran] {
      locus::compute(400000);  // simulated cycles
      ran[static_cast<std::size_t>(locus::worker_id())].fetch_add(1, std::memory_order_relaxed);
    };
    locus::task_group root;
    root.spawn([&] {
      locus::task_group top(locus::work(1.0), locus::footprint(20 * mb));
      top.spawn(
          [&] {
            for (int round = 0; round < 4; ++round) {
              locus::task_group g(locus::work(workers));
              g.spawn([] {}, locus::work(workers - 1));
              for (int i = 0; i < 32; ++i) g.spawn(child, locus::parent_first, locus::work(1.0 / 32));
              g.sync();
            }
          },
          locus::work(1.0));
      top.sync();
    });
    root.sync();
    int total = 0;
    for (auto& n : ran) total += n.load();
    ASSERT_EQ(total, 128) << "seed " << seed;
    std::uint64_t flattened = 0, set_aside = 0;
    for (const auto& w : locus::get_stats().workers) {
      flattened += w.counter("flattened");
      set_aside += w.counter("set_aside");
    }
    ASSERT_EQ(flattened, 1u) << "seed " << seed;
    // An even split is about 2 per worker; with nothing stolen worker 0
    // runs all 128. Half of them elsewhere is far from both.
    EXPECT_GE(total - ran[0].load(), 64) << "seed " << seed;
    EXPECT_GT(set_aside, 0u) << "seed " << seed;
  }
}

// Flattenings while leaders step down and up: top-level children with
// uneven hints (the first one's range covers both L3s, the others' one),
// each opening a group of 40 to 70 MiB with smaller groups inside, on
// seeds 1 to 12. Matches the serial sum and never ties a cache twice. (A
// lock held across a wake, which under the simulator may switch fibers,
// hung the benchmarks' smoke run, bench_sim_determinism, not this test.)
TEST(Flattening, ManyAtOnceMatchSerialSimulated) {
  const std::size_t mb = std::size_t{1} << 20;
  std::uint64_t flattened = 0;
  for (int seed = 1; seed <= 12; ++seed) {
    locus::runtime rt(simulated("ml-adws", 56, seed));
    locus::reset_stats();
    std::atomic<long> sum{0};
    long expected = 0;
    const int tops = 3 + seed % 4;
    locus::task_group root;
    root.spawn([&] {
      locus::task_group top(locus::work(100.0 * tops), locus::footprint(std::size_t{1} << 40));
      for (int t = 0; t < tops; ++t) {
        const auto id = static_cast<std::uint64_t>(seed * 100 + t);
        // The first takes the top 55 to 70% of [0, 2): its range covers
        // both L3s (figure 15), the others' one.
        const double share = t == 0 ? (55.0 + static_cast<double>(mix(id) % 16)) * tops
                                    : 20.0 + static_cast<double>(mix(id) % 160);
        const std::size_t bytes = (40 + mix(id ^ 5) % 31) * mb;
        top.spawn(
            [&sum, id, bytes, mb] {
              locus::task_group g(locus::work(8), locus::footprint(bytes));
              for (int i = 0; i < 8; ++i)
                g.spawn(
                    [&sum, id, i, mb] {
                      locus::task_group inner(locus::footprint((1 + mix(id + static_cast<std::uint64_t>(i)) % 8) * mb));
                      for (int k = 0; k < 4; ++k) inner.spawn([&sum, i, k] { sum.fetch_add(i * 4 + k + 1); });
                      inner.sync();
                    },
                    locus::work(1));
              g.sync();
            },
            locus::work(share));
        expected += 8 * 4 * (8 * 4 + 1) / 2;
      }
      top.sync();
    });
    root.sync();
    EXPECT_EQ(sum.load(), expected) << "seed " << seed;
    std::uint64_t overlapping = 0;
    for (const auto& w : locus::get_stats().workers) {
      overlapping += w.counter("overlapping_ties");
      flattened += w.counter("flattened");
    }
    EXPECT_EQ(overlapping, 0u) << "seed " << seed;
  }
  EXPECT_GE(flattened, 12u);
}

// sb: one group that befits an L3 (at most sigma = 0.5 of its 38.5 MiB)
// is anchored to the L3 of the worker that opens it (nothing else is
// anchored, so there is room), and its whole subtree runs on that socket;
// the room is given back at its sync, so the next run anchors again.
TEST(SbAnchors, AGroupThatFitsAnL3StaysOnItsSocket) {
  sized_tree t;
  t.build(9, 0, true);
  // The root's group spans the machine; its first child's befits an L3.
  const int g = t.nodes[0].children[0];
  t.nodes[0].bytes = std::size_t{1} << 40;
  t.nodes[static_cast<std::size_t>(g)].bytes = std::size_t{18} << 20;
  locus::runtime rt(simulated("sb", 56, 1));
  for (int run = 0; run < 3; ++run) {
    const ml_run r = run_tree(t);
    EXPECT_EQ(r.result, t.serial(0));
    EXPECT_GE(r.ties, 1u) << "run " << run;
    expect_one_socket(t, r, g, "run " + std::to_string(run));
  }
}

// The footprints of fork_join branches and of parallel_for reach the
// policy: sb anchors only groups that declare one (a group without it runs
// where its task is anchored), so its `anchored` counter tells.
TEST(SbAnchors, ForkAndLoopFootprintsReachThePolicy) {
  locus::runtime rt(simulated("sb", 56, 1));
  auto anchored_by = [](auto&& body) {
    locus::reset_stats();
    locus::task_group root;
    root.spawn(body);
    root.sync();
    std::uint64_t n = 0;
    for (const auto& w : locus::get_stats().workers) n += w.counter("anchored");
    return n;
  };
  std::atomic<long> sum{0};
  auto leaf = [&](long v) { sum.fetch_add(v, std::memory_order_relaxed); };
  const std::size_t mb = std::size_t{1} << 20;
  EXPECT_EQ(anchored_by([&] { locus::fork_join([&] { leaf(1); }, [&] { leaf(2); }); }), 0u);
  EXPECT_EQ(anchored_by([&] {
              locus::fork_join(locus::with([&] { leaf(1); }, locus::footprint(5 * mb)),
                               locus::with([&] { leaf(2); }, locus::footprint(5 * mb)));
            }),
            1u);
  // One branch without a footprint: the fork's is unknown.
  EXPECT_EQ(anchored_by([&] {
              locus::fork_join(locus::with([&] { leaf(1); }, locus::footprint(5 * mb)), [&] { leaf(2); });
            }),
            0u);
  auto body = [&](std::int64_t lo, std::int64_t hi) { leaf(hi - lo); };
  EXPECT_EQ(anchored_by([&] { locus::parallel_for(0, 1024, 16, body); }), 0u);
  EXPECT_GE(anchored_by([&] { locus::parallel_for(0, 1024, 16, body, locus::footprint(8 * mb)); }), 1u);
  EXPECT_EQ(sum.load(), 1 + 2 + 1 + 2 + 1 + 2 + 1024 + 1024);
}

// sb's dilation (SB-D, seed 003 section 6.1: sigma = 0.5): a group is
// anchored to a cache only if its footprint is at most sigma times the
// cache's capacity. On the paper's machine (38.5 MiB L3s, 1 MiB L2s) a
// 25 MiB group fits an L3 but is not anchored by default (the next cache
// up is memory); with sigma = 1 it is; a 15 MiB group is, by default; a
// 0.5 MiB group befits a worker's L2 and is anchored there (its tasks then
// run on that worker alone).
TEST(SbParameters, SigmaDecidesWhichCacheAGroupBefits) {
  const std::size_t mb = std::size_t{1} << 20;
  auto counted = [](const char* name) {
    std::uint64_t n = 0;
    for (const auto& w : locus::get_stats().workers) n += w.counter(name);
    return n;
  };
  std::atomic<long> sum{0};
  auto fork_of = [&](std::size_t bytes) {
    locus::reset_stats();
    locus::task_group root;
    root.spawn([&] {
      locus::fork_join(locus::with([&] { sum.fetch_add(1); }, locus::footprint(bytes / 2)),
                       locus::with([&] { sum.fetch_add(2); }, locus::footprint(bytes - bytes / 2)));
    });
    root.sync();
  };
  {
    locus::runtime rt(simulated("sb", 56, 1));
    fork_of(25 * mb);
    EXPECT_EQ(counted("anchored"), 0u) << "25 MiB > 0.5 x 38.5 MiB";
    fork_of(15 * mb);
    EXPECT_EQ(counted("anchored"), 1u);
    EXPECT_EQ(counted("private_anchored"), 0u);
    fork_of(mb / 2);
    EXPECT_EQ(counted("anchored"), 1u);
    EXPECT_EQ(counted("private_anchored"), 1u) << "0.5 MiB <= 0.5 x 1 MiB: a worker's L2";
  }
  {
    locus::runtime_options o = simulated("sb", 56, 1);
    o.policy_options = {{"sigma", "1"}};
    locus::runtime rt(o);
    fork_of(25 * mb);
    EXPECT_EQ(counted("anchored"), 1u) << "sigma = 1: 25 MiB fits an L3";
  }
  EXPECT_EQ(sum.load(), 4 * 3);
}

// sb's mu (SB-D: 0.2): a group anchored below a cache that its task
// skipped (its task anchored above that cache) charges the cache min(mu x
// capacity, footprint). Two workers under one 2 MiB L3 with 1 MiB L2s,
// sigma = 1: group A (1 MiB, opened by a task anchored to memory) is
// anchored to its worker's L2 and charges the L3 0.4 MiB (mu = 0.2) or
// 1 MiB (mu = 1); while A is open, the other worker opens group B
// (1.5 MiB, befits the L3), which has room beside 0.4 MiB but not beside
// 1 MiB.
TEST(SbParameters, MuCapsWhatASkippedCacheIsCharged) {
  for (const char* mu : {"0.2", "1"}) {
    locus::runtime_options o;
    o.policy = "sb";
    o.workers = 2;
    o.topology = "1x2:L3=2M,L2=1M";
    o.policy_options = {{"sigma", "1"}, {"mu", mu}};
    locus::runtime rt(o);
    locus::reset_stats();
    std::atomic<bool> a_open{false}, b_tried{false};
    const std::size_t kb = 1024;
    locus::task_group root;  // no footprint: its children stay anchored to memory
    root.spawn([&] {
      locus::task_group a(locus::footprint(1024 * kb));
      a.spawn([&] {
        a_open = true;
        while (!b_tried) std::this_thread::yield();
      });
      a.sync();
    });
    root.spawn([&] {
      while (!a_open) std::this_thread::yield();
      locus::task_group b(locus::footprint(1536 * kb));
      b.spawn([&] { b_tried = true; });
      b.sync();
    });
    root.sync();
    std::uint64_t anchored = 0, private_anchored = 0, no_room = 0;
    for (const auto& w : locus::get_stats().workers) {
      anchored += w.counter("anchored");
      private_anchored += w.counter("private_anchored");
      no_room += w.counter("no_room");
    }
    EXPECT_EQ(private_anchored, 1u) << "mu " << mu;
    if (std::string(mu) == "0.2") {
      EXPECT_EQ(anchored, 2u) << "B fits beside A's 0.4 MiB";
      EXPECT_EQ(no_room, 0u);
    } else {
      EXPECT_EQ(anchored, 1u) << "B does not fit beside A's 1 MiB";
      EXPECT_EQ(no_room, 1u);
    }
  }
}

// The options are checked: sigma in (0, 1], mu in [0, 1].
TEST(SbParameters, OptionsOutsideTheirRangeAreRejected) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"sigma", "0"}, {"sigma", "1.5"}, {"mu", "-0.1"}, {"mu", "x"}}) {
    locus::runtime_options o;
    o.policy = "sb";
    o.workers = 1;
    o.policy_options = {{name, value}};
    EXPECT_THROW(locus::runtime rt(o), locus::config_error) << name << "=" << value;
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, Multilevel, ::testing::Values("ml-ws", "ml-adws", "sb"), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
});

}  // namespace
