// The tbb-std policy (standard TBB's scheduling, the baseline of TBB-NUMA,
// seed 001): a mailbox per worker, loop_affinity sub-ranges present both on
// the poster's deque and in their recipient's mailbox (oneTBB's task
// proxies), the affinity partitioner replaying the workers that ran each
// sub-range, and uniformly random stealing. Loops and random programs match
// their serial result on threads and under the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "locus/locus.hpp"
#include "policy/tbb_std/tbb_std.hpp"
#include "support/random_tree.hpp"

namespace {

locus::runtime_options tbb_std_on_threads(int workers) {
  locus::runtime_options o;
  o.policy = "tbb-std";
  o.workers = workers;
  o.spin_us = 20;
  return o;
}

// The paper's 4 x 8-core Westmere (tbb-numa-westmere-4x8), simulated.
locus::runtime_options simulated_tbb_std(int workers, long long seed) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "tbb-numa-westmere-4x8";
  o.policy = "tbb-std";
  o.workers = workers;
  o.seed = seed;
  return o;
}

// Every mailed sub-range ran exactly once, by one of the three ways.
void expect_each_proxy_ran_once(const locus::worker_stats& total, const std::string& where) {
  EXPECT_EQ(total.counter("mailed"), total.counter("received") + total.counter("revoked") + total.counter("stolen"))
      << where;
}

// Steps of an affinity loop and of an affinity reduction over the same
// object, checked against their serial values.
void affinity_steps(int steps, std::int64_t n, std::int64_t grain) {
  locus::loop_affinity aff, aff_reduce;
  std::vector<std::int64_t> a(static_cast<std::size_t>(n), 0);
  for (int step = 1; step <= steps; ++step) {
    locus::parallel_for(std::int64_t{0}, n, grain, [&](std::int64_t i) { a[static_cast<std::size_t>(i)] += i; }, aff);
    const std::int64_t sum = locus::parallel_reduce(
        std::int64_t{0}, n, grain, std::int64_t{0},
        [&](std::int64_t lo, std::int64_t hi, std::int64_t acc) {
          for (std::int64_t i = lo; i < hi; ++i) acc += a[static_cast<std::size_t>(i)];
          return acc;
        },
        [](std::int64_t x, std::int64_t y) { return x + y; }, aff_reduce);
    ASSERT_EQ(sum, step * (n * (n - 1) / 2)) << "step " << step;
  }
}

}  // namespace

TEST(TbbStdThreads, AffinityLoopsMatchSerialOnOneToEightThreads) {
  for (int workers = 1; workers <= 8; ++workers) {
    locus::runtime rt(tbb_std_on_threads(workers));
    locus::reset_stats();
    affinity_steps(12, 20000, 64);
    expect_each_proxy_ran_once(locus::get_stats().total(), std::to_string(workers) + " workers");
    if (::testing::Test::HasFailure()) return;
  }
}

// Affinity loops inside parent-first children of a task group, and one in
// the parent while those children wait on its deque: proxies, parent-first
// jobs and the loops' joins share deques in every order.
void nested_affinity_loops(int rounds) {
  constexpr int children = 6;
  constexpr std::int64_t n = 3000;
  std::vector<locus::loop_affinity> affs(children + 1);
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::int64_t> sums(children + 1, 0);
    locus::task_group g;
    for (int c = 0; c < children; ++c)
      g.spawn([&, c] {
        sums[static_cast<std::size_t>(c)] = locus::parallel_reduce(
            std::int64_t{0}, n, 7, std::int64_t{0},
            [&](std::int64_t lo, std::int64_t hi, std::int64_t acc) {
              for (std::int64_t i = lo; i < hi; ++i) acc += i * (c + 1);
              return acc;
            },
            [](std::int64_t x, std::int64_t y) { return x + y; }, affs[static_cast<std::size_t>(c)]);
      });
    sums[children] = locus::parallel_reduce(
        std::int64_t{0}, n, 5, std::int64_t{0},
        [](std::int64_t lo, std::int64_t hi, std::int64_t acc) {
          for (std::int64_t i = lo; i < hi; ++i) acc += i;
          return acc;
        },
        [](std::int64_t x, std::int64_t y) { return x + y; }, affs[children]);
    g.sync();
    for (int c = 0; c <= children; ++c)
      ASSERT_EQ(sums[static_cast<std::size_t>(c)], (c == children ? 1 : c + 1) * (n * (n - 1) / 2))
          << "round " << round << ", loop " << c;
  }
}

TEST(TbbStdThreads, AffinityLoopsInsideTaskGroupsMatchSerial) {
  for (int workers = 1; workers <= 6; ++workers) {
    locus::runtime rt(tbb_std_on_threads(workers));
    locus::reset_stats();
    locus::fork_join([] { nested_affinity_loops(8); }, [] {});
    expect_each_proxy_ran_once(locus::get_stats().total(), std::to_string(workers) + " workers");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(TbbStdSimulated, AffinityLoopsInsideTaskGroupsMatchSerial) {
  for (int s = 0; s < 12; ++s) {
    locus::runtime rt(simulated_tbb_std(2 + 5 * s % 31, s));
    locus::reset_stats();
    locus::fork_join([] { nested_affinity_loops(3); }, [] {});
    expect_each_proxy_ran_once(locus::get_stats().total(), "seed " + std::to_string(s));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(TbbStdThreads, RandomTreesMatchSerialOnOneToEightThreads) {
#if defined(LOCUS_TSAN)
  const int seeds = random_tree::seeds_from("LOCUS_STRESS_SEEDS", 20);
#else
  const int seeds = random_tree::seeds_from("LOCUS_STRESS_SEEDS", 60);
#endif
  for (int s = 0; s < seeds; ++s) {
    locus::runtime rt(tbb_std_on_threads(1 + s % 8));
    random_tree::tree t{static_cast<std::uint64_t>(s) * 7919 + 5, 4 + s % 2, s % 4 == 0};
    t.hint_places = locus::num_places();  // hints are ignored: standard TBB has no places
    random_tree::check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(TbbStdSimulated, AffinityLoopsAndRandomTreesMatchSerial) {
  std::uint64_t mailed = 0, received = 0;
  for (int s = 0; s < 40; ++s) {
    locus::runtime rt(simulated_tbb_std(1 + s % 32, s));
    locus::reset_stats();
    affinity_steps(3, 4000 + 97 * s, 1 + s % 7);
    random_tree::tree t{static_cast<std::uint64_t>(s) * 31337 + 1, 4 + s % 3, s % 5 == 0};
    random_tree::check_tree(t, s);
    const auto total = locus::get_stats().total();
    expect_each_proxy_ran_once(total, "seed " + std::to_string(s));
    mailed += total.counter("mailed");
    received += total.counter("received");
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(mailed, 0u);
  EXPECT_GT(received, 0u);
}

// oneTBB's affinity_partitioner: the first run posts sub-range i to worker
// i * P / pieces (linear_affinity_mode), each recipient takes its proxies
// from its mailbox, and the loop records the worker that started each one
// (note_affinity), checked after every run. A few sub-ranges move in the
// first runs (a worker that is done early steals the proxy of a busy
// recipient, a poster at its join revokes one not yet received), as in
// TBB; the mapping settles within a few runs. From then on, under no
// contention (every worker awake and free, equal work per sub-range), the
// next run starts every sub-range on the worker that ran it in the run
// before: counted exactly, for every sub-range.
TEST(TbbStdSimulated, NextRunStartsEverySubRangeWhereTheRunBeforeRanIt) {
  for (int workers : {4, 8, 32}) {
    locus::runtime_options o = simulated_tbb_std(workers, 3);
    o.spin_us = 1000000;  // nobody sleeps: no recipient is late for its mail
    locus::runtime rt(o);
    const std::int64_t n = 64 * workers;
    std::vector<std::int32_t> started(static_cast<std::size_t>(n), -1);
    locus::loop_affinity aff;
    const auto first_iteration = [&](std::size_t i) {
      return started[static_cast<std::size_t>(n * static_cast<std::int64_t>(i) / static_cast<std::int64_t>(aff.pieces()))];
    };
    std::vector<int> before;
    std::size_t same = 0, caller_pieces = 0;
    int settled_after = -1;
    locus::fork_join([&] {
      for (int run = 0; run < 10 && settled_after < 0; ++run) {
        before.assign(static_cast<std::size_t>(aff.pieces()), -1);
        for (std::size_t i = 0; i < aff.pieces(); ++i) before[i] = aff.worker_of(i);
        const int caller = locus::worker_id();
        caller_pieces = static_cast<std::size_t>(std::count(before.begin(), before.end(), caller));
        locus::reset_stats();
        // Sub-ranges of 16 iterations (the grain): the worker that starts
        // one runs its first iteration.
        locus::parallel_for(std::int64_t{0}, n, 16, [&](std::int64_t i) {
          started[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(locus::worker_id());
          locus::compute(20000);
        }, aff);
        ASSERT_EQ(aff.pieces(), static_cast<std::size_t>(4 * workers));
        for (std::size_t i = 0; i < aff.pieces(); ++i)
          ASSERT_EQ(aff.worker_of(i), first_iteration(i)) << "run " << run << ", sub-range " << i;  // recorded exactly
        if (run > 0 && aff.moved_last_time() == 0) settled_after = run;
      }
      for (std::size_t i = 0; i < aff.pieces(); ++i) same += first_iteration(i) == before[i];
    }, [] {});
    ASSERT_GT(settled_after, 0) << workers << " workers: the mapping never settled";
    const std::size_t pieces = aff.pieces();
    EXPECT_EQ(same, pieces) << workers << " workers";
    // The caller runs its own sub-ranges; every other one was mailed and
    // received by its recipient.
    const auto total = locus::get_stats().total();
    EXPECT_EQ(total.counter("mailed"), pieces - caller_pieces);
    EXPECT_EQ(total.counter("received"), total.counter("mailed"));
    EXPECT_EQ(total.counter("revoked") + total.counter("stolen"), 0u);
    RecordProperty("settled_after_w" + std::to_string(workers), std::to_string(settled_after));
    std::printf("%d workers: settled after %d runs; then %zu of %zu sub-ranges started where the run before ran them\n",
                workers, settled_after, same, pieces);
  }
}

// A recipient that is busy when its proxies arrive does not get them: they
// are revoked by the poster or stolen, and the loop records the worker that
// did run them, with no cap of a share per worker (oneTBB records every
// move). Here one worker runs a long task through the whole first run, so
// none of the sub-ranges mailed to it starts there, and the next run
// mails them to whoever took them.
TEST(TbbStdSimulated, SubRangesOfABusyWorkerFollowWhoRanThem) {
  locus::runtime rt(simulated_tbb_std(8, 5));
  locus::loop_affinity aff;
  std::atomic<int> busy_worker{-1};
  std::size_t at_busy = 0;
  locus::worker_stats total;
  locus::fork_join([&] {
    locus::task_group long_task;
    long_task.spawn([&] {
      busy_worker.store(locus::worker_id());
      locus::compute(200'000'000);  // ~0.1 s: longer than the loop
    });
    locus::compute(100'000);  // a thief takes the long task
    ASSERT_GE(busy_worker.load(), 0);
    ASSERT_NE(busy_worker.load(), locus::worker_id());
    locus::reset_stats();
    locus::parallel_for(std::int64_t{0}, std::int64_t{512}, 16, [&](std::int64_t) { locus::compute(20000); }, aff);
    total = locus::get_stats().total();
    for (std::size_t i = 0; i < aff.pieces(); ++i) at_busy += aff.worker_of(i) == busy_worker.load();
    long_task.sync();
  }, [] {});
  expect_each_proxy_ran_once(total, "first run");
  EXPECT_EQ(at_busy, 0u);
  EXPECT_GT(total.counter("revoked") + total.counter("stolen"), 0u);
  RecordProperty("revoked", std::to_string(total.counter("revoked")));
  RecordProperty("stolen", std::to_string(total.counter("stolen")));
}

// Standard TBB steals from a victim chosen uniformly at random: the
// workers of the victim's own socket win no more often than their number
// says. The caller keeps handing out one task at a time; whoever steals it
// first runs it. Over 32 simulated workers on 4 sockets of 8, the winners
// from each socket are close to its share of the 31 thieves (7 of 31 for
// the caller's socket, 8 of 31 for each other one).
TEST(TbbStdSimulated, StealsAreNotBiasedTowardsTheVictimsSocket) {
  locus::runtime_options o = simulated_tbb_std(32, 7);
  o.spin_us = 1000000;  // no thief sleeps: each keeps choosing victims
  locus::runtime rt(o);
  int stolen = 0;
  std::vector<int> won(4, 0);
  int home = -1;
  locus::fork_join([&] {
    home = locus::current_place();
    const int me = locus::worker_id();
    for (int k = 0; k < 400; ++k) {
      std::atomic<int> ran_on{-1}, place{-1};
      locus::task_group g;
      g.spawn([&] {
        ran_on.store(locus::worker_id());
        place.store(locus::current_place());
      });
      locus::compute(40000);  // thieves look meanwhile
      g.sync();
      if (ran_on.load() != me) {
        ++stolen;
        ++won[static_cast<std::size_t>(place.load())];
      }
    }
  }, [] {});
  ASSERT_GT(stolen, 300);
  for (int p = 0; p < 4; ++p) {
    const double share = static_cast<double>(won[static_cast<std::size_t>(p)]) / stolen;
    const double uniform = (p == home ? 7.0 : 8.0) / 31;
    EXPECT_NEAR(share, uniform, 0.08) << "socket " << p << (p == home ? " (the victim's)" : "");
    std::printf("socket %d%s: %.3f of the steals (uniform: %.3f)\n", p, p == home ? " (the victim's)" : "", share,
                uniform);
    RecordProperty("share_socket" + std::to_string(p), std::to_string(share));
  }
}

// The proxy's deque tag names its recipient; other frames carry 0.
TEST(TbbStdRules, ProxyTagsNameTheirRecipient) {
  using locus::detail::std_proxy_recipient;
  using locus::detail::std_proxy_tag;
  for (int w : {0, 1, 31, 4095}) EXPECT_EQ(std_proxy_recipient(std_proxy_tag(w)), w);
  EXPECT_EQ(std_proxy_recipient(0), -1);
}
