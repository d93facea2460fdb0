// The numa-ws policy and place hints: hints are checked and inherited;
// hinted frames reach their places; results are right under pushing (real
// threads, places = cores, and the simulator over many seeds); and pushes
// stay within a constant of the successful steals (NUMA-WS section IV).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/sanitizers.hpp"
#include "locus/locus.hpp"
#include "support/random_tree.hpp"

namespace {

locus::runtime_options numa_ws_on_cores(int workers) {
  locus::runtime_options o;
  o.policy = "numa-ws";
  o.places = "core";
  o.workers = workers;
  o.spin_us = 20;
  return o;
}

locus::runtime_options simulated_numa_ws(int workers, long long seed, const char* policy = "numa-ws") {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.policy = policy;
  o.workers = workers;
  o.seed = seed;
  return o;
}

}  // namespace

TEST(PlaceHints, OutOfRangeIsAnErrorAtTheSpawn) {
  locus::runtime rt(numa_ws_on_cores(2));
  ASSERT_EQ(locus::num_places(), 2);
  for (int bad : {2, 7, -2}) {
    try {
      locus::fork_join([&] {
        locus::task_group g;
        g.spawn([] {}, locus::at(bad));
        g.sync();
      }, [] {});
      ADD_FAILURE() << "locus::at(" << bad << ") was accepted";
    } catch (const std::out_of_range& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("place " + std::to_string(bad)), std::string::npos) << what;
      EXPECT_NE(what.find("0..1"), std::string::npos) << what;
    }
  }
  EXPECT_THROW(locus::set_hint(locus::at(5)), std::out_of_range);
  EXPECT_NO_THROW(locus::set_hint(locus::any));
}

TEST(PlaceHints, WrapTakesPlacesModuloTheirNumber) {
  setenv("LOCUS_HINT_RANGE", "wrap", 1);
  {
    locus::runtime rt(numa_ws_on_cores(2));
    int seen = -9;
    locus::fork_join([&] {
      locus::task_group g;
      g.spawn([&] { seen = locus::current_hint().place; }, locus::at(3));
      g.sync();
    }, [] {});
    EXPECT_EQ(seen, 1);
  }
  setenv("LOCUS_HINT_RANGE", "clamp", 1);
  EXPECT_THROW(locus::runtime rt(numa_ws_on_cores(2)), locus::config_error);
  unsetenv("LOCUS_HINT_RANGE");
}

TEST(PlaceHints, DescendantsInheritUntilTheySayOtherwise) {
  locus::runtime rt(numa_ws_on_cores(2));
  int child = -9, grandchild = -9, unset = -9, changed = -9, parent_after = -9, parent_first = -9;
  locus::fork_join([&] {
    EXPECT_EQ(locus::current_hint().place, -1);
    locus::task_group g;
    g.spawn([&] {
      child = locus::current_hint().place;
      locus::task_group h;
      h.spawn([&] { grandchild = locus::current_hint().place; });
      h.spawn([&] { unset = locus::current_hint().place; }, locus::any);
      h.sync();
      locus::set_hint(locus::at(0));
      changed = locus::current_hint().place;
    }, locus::at(1));
    g.spawn([&] { parent_first = locus::current_hint().place; }, locus::parent_first, locus::at(1));
    g.sync();
    parent_after = locus::current_hint().place;
  }, [] {});
  EXPECT_EQ(child, 1);
  EXPECT_EQ(grandchild, 1);
  EXPECT_EQ(unset, -1);
  EXPECT_EQ(changed, 0);
  EXPECT_EQ(parent_first, 1);
  EXPECT_EQ(parent_after, -1);
}

TEST(PlaceHints, WsRecordsHintsAndIgnoresThem) {
  locus::runtime_options o = numa_ws_on_cores(2);
  o.policy = "ws";
  locus::runtime rt(o);
  locus::reset_stats();
  int seen = -9;
  locus::fork_join([&] {
    locus::task_group g;
    g.spawn([&] { seen = locus::current_hint().place; }, locus::at(1));
    g.sync();
  }, [] {});
  EXPECT_EQ(seen, 1);
  // ws has no mailboxes: no counters of its own, and asking for numa-ws's is an error.
  EXPECT_TRUE(locus::get_stats().total().policy_counters.empty());
  EXPECT_THROW(locus::get_stats().total().counter("pushes"), std::out_of_range);
}

// Threads: 2 and 4 workers (4 oversubscribe this machine), one place per
// core, trees with random hints.
class NumaWsTrees : public ::testing::TestWithParam<int> {};

TEST_P(NumaWsTrees, MatchTheSerialResult) {
  locus::runtime rt(numa_ws_on_cores(GetParam()));
  const int seeds = random_tree::seeds_from("LOCUS_STRESS_SEEDS", 60);
  for (int s = 0; s < seeds; ++s) {
    random_tree::tree t{static_cast<std::uint64_t>(s) * 7777 + 5, 4 + s % 4, s % 4 == 0};
    t.hint_places = locus::num_places();
    random_tree::check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, NumaWsTrees, ::testing::Values(2, 4));

// The simulator, 32 workers on 4 sockets, many seeds: right results, and
// section IV's amortization: every push is caused by a successful steal
// (at most two pushing events per steal, one push each), and each event
// makes at most push_threshold failed attempts before giving up.
TEST(NumaWsSimulated, PushesStayWithinAConstantOfSteals) {
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
  const int seeds = random_tree::seeds_from("LOCUS_SIM_STRESS_SEEDS", 100);  // 10-50x slower
#else
  const int seeds = random_tree::seeds_from("LOCUS_SIM_STRESS_SEEDS", 300);
#endif
  constexpr int threshold = 4;  // the default LOCUS_PUSH_THRESHOLD
  std::uint64_t steals = 0, pushes = 0, attempts = 0, mailbox_hits = 0;
  for (int s = 0; s < seeds; ++s) {
    locus::runtime rt(simulated_numa_ws(8 + s % 25, s));
    random_tree::tree t{static_cast<std::uint64_t>(s) * 31337 + 1, 4 + s % 3, s % 5 == 0};
    t.hint_places = locus::num_places();
    locus::reset_stats();
    random_tree::check_tree(t, s);
    const auto total = locus::get_stats().total();
    ASSERT_LE(total.counter("pushes"), 2 * total.steals) << "seed " << s;
    ASSERT_LE(total.counter("push_attempts"), 2 * total.steals * (threshold + 1)) << "seed " << s;
    steals += total.steals;
    pushes += total.counter("pushes");
    attempts += total.counter("push_attempts");
    mailbox_hits += total.counter("mailbox_hits");
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(pushes, 0u) << "no seed pushed anything: the test does not exercise PUSHBACK";
  EXPECT_GT(mailbox_hits, 0u);
  RecordProperty("steals", std::to_string(steals));
  RecordProperty("pushes", std::to_string(pushes));
  RecordProperty("push_attempts", std::to_string(attempts));
}

// Hinted work on place-partitioned data: with numa-ws the hinted frames run
// at their places and the memory traffic stays more local than with ws.
TEST(NumaWsSimulated, HintedFramesRunAtTheirPlaces) {
  const long n = 1 << 18;
  std::vector<double> data(n, 1.0);
  auto run = [&](const char* policy) {
    locus::runtime rt(simulated_numa_ws(32, 3, policy));
    const int places = locus::num_places();
    auto sum_block = [&](long lo, long hi) {
      return locus::parallel_reduce(lo, hi, 512L, 0.0, [&](long a, long b, double acc) {
        locus::touch(&data[static_cast<std::size_t>(a)], static_cast<std::size_t>(b - a) * sizeof(double));
        // A cycle per add, as the benchmarks declare: with overlapped
        // misses a piece costs little more than the scheduling around it.
        locus::compute(static_cast<std::uint64_t>(b - a));
        for (long i = a; i < b; ++i) acc += data[static_cast<std::size_t>(i)];
        return acc;
      }, [](double x, double y) { return x + y; });
    };
    // First touch by place, then sweeps; only the sweeps are counted.
    for (int pass = 0; pass < 4; ++pass) {
      if (pass == 1) locus::reset_stats();
      locus::fork_join([&] {
        locus::task_group g;
        for (int p = 1; p < places; ++p)
          g.spawn([&, p] { sum_block(n * p / places, n * (p + 1) / places); }, locus::at(p));
        sum_block(0, n / places);
        g.sync();
      }, [] {});
    }
    return locus::get_stats().total();
  };
  const auto ws = run("ws");
  const auto numa_ws = run("numa-ws");
  EXPECT_GT(numa_ws.at_hinted_place, 2 * numa_ws.off_hinted_place);
  EXPECT_GT(numa_ws.counter("pushes"), 0u);
  EXPECT_LT(numa_ws.counter("remote_l3_hits") + numa_ws.counter("remote_dram"),
            ws.counter("remote_l3_hits") + ws.counter("remote_dram"));
}

TEST(NumaWsSettings, AreChecked) {
  for (const char* bad : {"0,1", "8,-2", "x", "8,,1"}) {
    locus::runtime_options o = numa_ws_on_cores(2);
    o.policy_options = {{"steal_weights", bad}};
    EXPECT_THROW(locus::runtime rt(o), locus::config_error) << bad;
  }
  for (const char* bad : {"0", "256", "x", ""}) {
    locus::runtime_options o = numa_ws_on_cores(2);
    o.policy_options = {{"push_threshold", bad}};
    EXPECT_THROW(locus::runtime rt(o), locus::config_error) << bad;
  }
  {
    // An option numa-ws does not have, and a numa-ws option given to ws.
    locus::runtime_options o = numa_ws_on_cores(2);
    o.policy_options = {{"push_treshold", "2"}};
    EXPECT_THROW(locus::runtime rt(o), locus::config_error);
    o.policy = "ws";
    o.policy_options = {{"push_threshold", "2"}};
    EXPECT_THROW(locus::runtime rt(o), locus::config_error);
  }
  {
    // Good values start the pool.
    locus::runtime_options o = numa_ws_on_cores(2);
    o.policy_options = {{"push_threshold", "2"}, {"steal_weights", "4,1"}};
    locus::runtime rt(o);
    EXPECT_EQ(locus::policy_name(), "numa-ws");
  }
  EXPECT_NE(std::find(locus::available_policies().begin(), locus::available_policies().end(), "numa-ws"),
            locus::available_policies().end());
}
