// locus::mutex: mutual exclusion between tasks and threads, holding across
// spawn and sync, a waiting task that suspends instead of blocking its
// worker, try_lock, and release by a guard when an exception leaves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "locus/locus.hpp"

namespace {

locus::runtime_options workers(int n) {
  locus::runtime_options o;
  o.workers = n;
  return o;
}

// Shared state that only the holder of `m` may touch. `holders` counts
// tasks inside; a second one inside is a broken mutual exclusion.
struct guarded {
  locus::mutex m;
  std::atomic<int> holders{0};
  std::atomic<int> overlaps{0};
  std::int64_t count = 0;  // plain: the mutex orders every access (TSan checks)

  void enter() {
    if (holders.fetch_add(1, std::memory_order_relaxed) != 0) overlaps.fetch_add(1, std::memory_order_relaxed);
  }
  void leave() { holders.fetch_sub(1, std::memory_order_relaxed); }
};

}  // namespace

class MutexOnWorkers : public ::testing::TestWithParam<int> {};

// Many tasks, some holding the lock across a fork_join or a task_group sync
// (where they may suspend and resume on another worker), and two threads
// outside the pool, which block.
TEST_P(MutexOnWorkers, ExcludesEveryOtherHolderUnderContention) {
  locus::runtime rt(workers(GetParam()));
  guarded g;
  constexpr std::int64_t tasks = 3000;
  constexpr int thread_rounds = 1000;
  std::atomic<std::int64_t> nested{0};

  auto outside = [&] {
    for (int i = 0; i < thread_rounds; ++i) {
      locus::mutex_guard lock(g.m);
      g.enter();
      ++g.count;
      g.leave();
    }
  };
  std::thread t1(outside), t2(outside);
  locus::parallel_for(std::int64_t{0}, tasks, 1, [&](std::int64_t i) {
    locus::mutex_guard lock(g.m);
    g.enter();
    ++g.count;
    if (i % 7 == 0) {
      locus::fork_join([&] { nested.fetch_add(1, std::memory_order_relaxed); },
                       [&] { nested.fetch_add(1, std::memory_order_relaxed); });
    } else if (i % 11 == 0) {
      locus::task_group tg;
      tg.spawn([&] { nested.fetch_add(1, std::memory_order_relaxed); });
      tg.sync();
    }
    g.leave();
  });
  t1.join();
  t2.join();
  EXPECT_EQ(g.overlaps.load(), 0);
  EXPECT_EQ(g.count, tasks + 2 * thread_rounds);
  EXPECT_EQ(nested.load(), 2 * ((tasks + 6) / 7) + [] {
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < tasks; ++i) n += (i % 7 != 0 && i % 11 == 0);
    return n;
  }());
}

// 8 workers on a 2-core machine are oversubscribed: holders get preempted.
INSTANTIATE_TEST_SUITE_P(Workers, MutexOnWorkers, ::testing::Values(1, 2, 8),
                         [](const auto& info) { return std::to_string(info.param) + "_workers"; });

// With one worker, a task waiting for a mutex held by a thread outside the
// pool must leave the worker free: another root task runs meanwhile. If
// the waiter blocked its worker, the second root task could never run and
// the unlock below would never be reached.
TEST(Mutex, AWaitingTaskSuspendsAndLeavesItsWorkerFree) {
  locus::runtime rt(workers(1));
  locus::mutex m;
  m.lock();  // by the main thread, not a worker
  std::atomic<bool> about_to_wait{false};
  int waiter_got_it = 0;
  std::thread waiter([&] {
    locus::fork_join(
        [&] {
          about_to_wait.store(true);
          m.lock();
          ++waiter_got_it;
          m.unlock();
        },
        [] {});
  });
  while (!about_to_wait.load()) std::this_thread::yield();
  // The only worker is running the waiter (or it has suspended in lock());
  // this root task can run only once it has suspended.
  bool other_ran = false;
  locus::fork_join([&] { other_ran = true; }, [] {});
  EXPECT_TRUE(other_ran);
  m.unlock();  // hands the mutex to the suspended task, from outside the pool
  waiter.join();
  EXPECT_EQ(waiter_got_it, 1);
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

// The parent locks on one worker, spawns a child that waits until the
// parent's continuation runs, which happens only on the other worker (a
// thief took it); the parent unlocks there.
TEST(Mutex, HeldAcrossASpawnAndUnlockedOnAnotherWorker) {
  locus::runtime rt(workers(2));
  locus::mutex m;
  int locked_on = -1, unlocked_on = -1;
  bool parent_saw_child = false;
  locus::fork_join(
      [&] {
        std::atomic<bool> parent_continued{false};
        m.lock();
        locked_on = locus::worker_id();
        locus::task_group g;
        g.spawn([&] {
          while (!parent_continued.load()) std::this_thread::yield();
        });
        parent_continued.store(true);
        unlocked_on = locus::worker_id();
        m.unlock();
        g.sync();
        parent_saw_child = true;
      },
      [] {});
  EXPECT_TRUE(parent_saw_child);
  EXPECT_NE(locked_on, unlocked_on);
  EXPECT_TRUE(m.try_lock());  // released, wherever it was unlocked
  m.unlock();
}

// The same across a sync that suspends: the lock is held while the parent
// waits for a child that another worker runs, and a second task waiting for
// the mutex meanwhile gets it after the parent's unlock.
TEST(Mutex, HeldAcrossASuspendingSyncWhileAnotherTaskWaits) {
  locus::runtime rt(workers(2));
  guarded g;
  for (int round = 0; round < 200; ++round) {
    locus::fork_join(
        [&] {
          locus::mutex_guard lock(g.m);
          g.enter();
          locus::task_group tg;
          std::atomic<bool> continued{false};
          tg.spawn([&] {
            while (!continued.load()) std::this_thread::yield();
          });
          continued.store(true);  // on the thief: the child still runs on the other worker
          tg.sync();
          ++g.count;
          g.leave();
        },
        [&] {
          locus::mutex_guard lock(g.m);
          g.enter();
          ++g.count;
          g.leave();
        });
  }
  EXPECT_EQ(g.overlaps.load(), 0);
  EXPECT_EQ(g.count, 400);
}

TEST(Mutex, TryLockFailsWhileHeldAndSucceedsWhenFree) {
  locus::runtime rt(workers(2));
  locus::mutex m;
  EXPECT_TRUE(m.try_lock());
  bool task_got_it = true;
  locus::fork_join([&] { task_got_it = m.try_lock(); }, [] {});
  EXPECT_FALSE(task_got_it);
  EXPECT_FALSE(m.try_lock());
  m.unlock();
  locus::fork_join(
      [&] {
        task_got_it = m.try_lock();
        if (task_got_it) m.unlock();
      },
      [] {});
  EXPECT_TRUE(task_got_it);
  std::unique_lock lock(m, std::try_to_lock);
  EXPECT_TRUE(lock.owns_lock());
}

TEST(Mutex, AGuardReleasesWhenAnExceptionLeavesATask) {
  locus::runtime rt(workers(2));
  locus::mutex m;
  int after = 0;
  auto throwing = [&] {
    locus::mutex_guard lock(m);
    locus::fork_join([] {}, [] { throw std::runtime_error("inside the critical section"); });
  };
  EXPECT_THROW(locus::fork_join(throwing, [] {}), std::runtime_error);
  EXPECT_TRUE(m.try_lock());
  m.unlock();
  // And under contention: every task throws while holding it.
  locus::task_group g;
  for (int i = 0; i < 100; ++i)
    g.spawn([&] {
      std::lock_guard lock(m);
      ++after;
      throw std::runtime_error("holder throws");
    });
  EXPECT_THROW(g.sync(), std::runtime_error);
  EXPECT_EQ(after, 100);
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

TEST(MutexDeathTest, UnlockingAFreeMutexNamesTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        locus::mutex m;
        m.unlock();
      },
      "locus::mutex::unlock: the mutex is not locked");
}
