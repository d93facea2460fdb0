// The work-stealing deque under concurrent owner and thieves: every pushed
// frame is taken exactly once, by pop or by steal, across array growth.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "locus/detail/deque.hpp"

using locus::detail::frame;
using locus::detail::work_deque;

TEST(Deque, OwnerIsLifoThiefIsFifo) {
  work_deque d(2);
  std::vector<frame> f(5);
  for (auto& x : f) d.push(&x);
  EXPECT_EQ(d.steal(), &f[0]);
  EXPECT_EQ(d.pop(), &f[4]);
  EXPECT_EQ(d.pop(), &f[3]);
  EXPECT_EQ(d.steal(), &f[1]);
  EXPECT_EQ(d.pop(), &f[2]);
  EXPECT_EQ(d.pop(), nullptr);
  EXPECT_EQ(d.steal(), nullptr);
  EXPECT_TRUE(d.looks_empty());
}

// pop_if takes the newest frame only if it is the one asked for: a join
// never takes (and loses) a frame of other work (join.cpp take_back_parent).
TEST(Deque, PopIfNeverTakesAnotherFrame) {
  work_deque d(2);
  std::vector<frame> f(4);
  d.push(&f[0]);
  d.push(&f[1]);
  EXPECT_FALSE(d.pop_if(&f[0]));  // not the newest: left where it is
  EXPECT_FALSE(d.pop_if(&f[2]));  // never pushed
  EXPECT_TRUE(d.pop_if(&f[1]));
  EXPECT_FALSE(d.pop_if(&f[1]));  // gone
  EXPECT_EQ(d.steal(), &f[0]);
  EXPECT_FALSE(d.pop_if(&f[0]));  // its slot still holds it, but a thief took it
  for (int i = 0; i < 3; ++i) d.push(&f[static_cast<std::size_t>(i)]);  // grows the array
  d.push(&f[3]);
  EXPECT_FALSE(d.pop_if(&f[2]));
  EXPECT_TRUE(d.pop_if(&f[3]));
  EXPECT_TRUE(d.pop_if(&f[2]));
  EXPECT_EQ(d.steal(), &f[0]);
  EXPECT_TRUE(d.pop_if(&f[1]));  // the last frame, raced for with thieves
  EXPECT_TRUE(d.looks_empty());
}

// steal_if decides on the tag pushed beside the frame, and tags survive
// the array's growth.
TEST(Deque, StealIfTestsTheTagBesideTheOldestFrame) {
  work_deque d(2);
  std::vector<frame> f(6);
  for (std::uint32_t i = 0; i < f.size(); ++i) d.push_tagged(&f[i], 10 + i);  // grows twice
  auto tag_is = [](std::uint32_t want) { return [want](std::uint32_t tag) { return tag == want; }; };
  EXPECT_EQ(d.steal_if(tag_is(11)), nullptr);  // the oldest has tag 10
  EXPECT_EQ(d.steal_if(tag_is(10)), &f[0]);
  EXPECT_EQ(d.steal_if(tag_is(11)), &f[1]);
  EXPECT_EQ(d.pop(), &f[5]);
  EXPECT_EQ(d.steal_if([](std::uint32_t) { return false; }), nullptr);
  EXPECT_EQ(d.steal(), &f[2]);
  EXPECT_EQ(d.steal_if(tag_is(13)), &f[3]);
  EXPECT_EQ(d.steal_if(tag_is(14)), &f[4]);
  EXPECT_EQ(d.steal_if(tag_is(14)), nullptr);  // empty
}

TEST(Deque, ConcurrentOwnerAndThievesTakeEachFrameOnce) {
  constexpr int items = 200000;
  constexpr int thieves = 3;
  constexpr int left_for_thieves = 64;  // the last frames, which the owner never pops
  std::vector<frame> frames(items + left_for_thieves);
  std::vector<std::atomic<int>> taken(items + left_for_thieves);
  work_deque d(4);  // small, so it grows while thieves read it
  std::atomic<bool> done{false};
  std::atomic<long> stolen{0};
  std::atomic<long> accounted{0};  // frames taken and counted, by anyone

  auto index_of = [&](frame* f) { return static_cast<int>(f - frames.data()); };
  std::vector<std::thread> ts;
  for (int t = 0; t < thieves; ++t)
    ts.emplace_back([&] {
      while (!done.load(std::memory_order_acquire)) {
        if (frame* f = d.steal()) {
          taken[index_of(f)].fetch_add(1);
          stolen.fetch_add(1);
          accounted.fetch_add(1);
        }
      }
    });

  // Owner: bursts of pushes followed by some pops, like a recursion.
  int next = 0;
  while (next < items) {
    const int burst = 1 + next % 17;
    for (int k = 0; k < burst && next < items; ++k) d.push(&frames[next++]);
    for (int k = 0; k < burst / 2; ++k)
      if (frame* f = d.pop()) {
        taken[index_of(f)].fetch_add(1);
        accounted.fetch_add(1);
      }
  }
  while (frame* f = d.pop()) {
    taken[index_of(f)].fetch_add(1);
    accounted.fetch_add(1);
  }
  // Thieves may still hold the last items in flight; let them finish.
  while (accounted.load() < items) std::this_thread::yield();
  const long stolen_while_owner_popped = stolen.load();

  // How many of the frames above thieves got depends on the OS giving them a
  // turn, so nothing is asserted about it. What the protocol does guarantee:
  // frames the owner leaves alone are all taken by thieves. The owner waits
  // for that (no timeout: a thief eventually runs, however loaded the machine).
  for (int k = 0; k < left_for_thieves; ++k) d.push(&frames[items + k]);
  while (accounted.load() < items + left_for_thieves) std::this_thread::yield();
  done.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();

  for (int i = 0; i < items + left_for_thieves; ++i) ASSERT_EQ(taken[i].load(), 1) << "frame " << i;
  EXPECT_EQ(stolen.load() - stolen_while_owner_popped, left_for_thieves);
}

// The same stress with the asymmetric fence (membarrier) where the kernel has
// it. Owners fence only while some thread is stealing: one thief stops
// stealing (end_stealing) after every attempt, so its registration and
// membarrier straddle the owner's pops again and again; the other after
// every 64.
#include "core/fences.hpp"
TEST(Deque, ConcurrentWithAsymmetricFence) {
  if (!locus::detail::enable_asymmetric_fence()) GTEST_SKIP() << "kernel has no membarrier(PRIVATE_EXPEDITED)";
  constexpr int items = 100000;
  std::vector<frame> frames(items);
  std::vector<std::atomic<int>> taken(items);
  work_deque d(4);
  std::atomic<bool> done{false};
  auto thief = [&](int attempts_per_session) {
    for (int attempt = 1; !done.load(std::memory_order_acquire); ++attempt) {
      if (frame* f = d.steal()) taken[f - frames.data()].fetch_add(1);
      if (attempt % attempts_per_session == 0) locus::detail::end_stealing();
    }
    locus::detail::end_stealing();
  };
  std::thread thieves[] = {std::thread(thief, 1), std::thread(thief, 64)};
  int next = 0;
  while (next < items) {
    for (int k = 0; k < 5 && next < items; ++k) d.push(&frames[next++]);
    for (int k = 0; k < 4; ++k)
      if (frame* f = d.pop()) taken[f - frames.data()].fetch_add(1);
  }
  while (frame* f = d.pop()) taken[f - frames.data()].fetch_add(1);
  while (!d.looks_empty()) std::this_thread::yield();
  done.store(true, std::memory_order_release);
  for (auto& t : thieves) t.join();
  locus::detail::use_symmetric_fence();
  for (int i = 0; i < items; ++i) ASSERT_EQ(taken[i].load(), 1) << "frame " << i;
}

// Steal sessions end with the pool: once a pool has stopped, no thread is
// counted as stealing, so the pops of the next pool start fence-free. A
// leaked session would not break correctness, only make every later pop
// fence. Oversubscribed (6 workers) so that steals are likely; the test
// does not need them to happen.
#include "locus/locus.hpp"
namespace {
long fib_for_sessions(long n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib_for_sessions(n - 1); }, [&] { b = fib_for_sessions(n - 2); });
  return a + b;
}
}  // namespace

TEST(Deque, StealSessionsEndWhenThePoolStops) {
  for (int round = 0; round < 3; ++round) {
    {
      locus::runtime_options o;
      o.workers = 6;
      o.fence = "asymmetric";
      locus::runtime rt(o);
      if (!locus::detail::asymmetric_fence_active()) GTEST_SKIP() << "kernel has no membarrier(PRIVATE_EXPEDITED)";
      long sum = 0;
      locus::fork_join([&] { sum = fib_for_sessions(22); }, [] {});
      ASSERT_EQ(sum, 17711);
    }
    EXPECT_EQ(locus::detail::g_pop_fence_requests.load(), 0u) << "round " << round;
  }
}
