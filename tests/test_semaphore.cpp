// locus::semaphore: permits bound the tasks inside, a waiting task suspends
// instead of blocking its worker (so one worker suffices for a release by
// another task), threads outside the pool block, and bad counts are errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "locus/locus.hpp"

namespace {

locus::runtime_options workers(int n) {
  locus::runtime_options o;
  o.workers = n;
  return o;
}

}  // namespace

class SemaphoreOnWorkers : public ::testing::TestWithParam<int> {};

// Many tasks, some holding a permit across a fork_join (where they may
// suspend and resume on another worker), and two threads outside the pool:
// never more holders than permits, and every task gets through.
TEST_P(SemaphoreOnWorkers, NeverMoreHoldersThanPermits) {
  locus::runtime rt(workers(GetParam()));
  constexpr int permits = 3;
  locus::semaphore s(permits);
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  std::atomic<std::int64_t> done{0};
  auto hold = [&](bool across_a_fork) {
    s.acquire();
    const int now = inside.fetch_add(1, std::memory_order_relaxed) + 1;
    int seen = most.load(std::memory_order_relaxed);
    while (now > seen && !most.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
    if (across_a_fork) locus::fork_join([&] { done.fetch_add(0); }, [&] { done.fetch_add(0); });
    inside.fetch_sub(1, std::memory_order_relaxed);
    s.release();
    done.fetch_add(1, std::memory_order_relaxed);
  };
  auto outside = [&] {
    for (int i = 0; i < 300; ++i) hold(false);
  };
  std::thread t1(outside), t2(outside);
  locus::parallel_for(std::int64_t{0}, std::int64_t{3000}, 1, [&](std::int64_t i) { hold(i % 7 == 0); });
  t1.join();
  t2.join();
  EXPECT_LE(most.load(), permits);
  EXPECT_EQ(done.load(), 3000 + 600);
  // Every permit is back.
  for (int i = 0; i < permits; ++i) EXPECT_TRUE(s.try_acquire());
  EXPECT_FALSE(s.try_acquire());
}

// A task that waits for a permit another task gives: on one worker this
// only finishes if the waiter suspends and the worker runs the releaser.
TEST_P(SemaphoreOnWorkers, ReleasedByAnotherTask) {
  locus::runtime rt(workers(GetParam()));
  for (int round = 0; round < 200; ++round) {
    locus::semaphore s(0);
    int got = 0;
    locus::fork_join([&] {
      s.acquire();
      s.acquire();
      got = 2;
    },
                     [&] { s.release(2); });
    EXPECT_EQ(got, 2);
    EXPECT_FALSE(s.try_acquire());
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, SemaphoreOnWorkers, ::testing::Values(1, 2, 4, 8));

TEST(Semaphore, TryAcquireTakesOnlyWhatIsFree) {
  locus::semaphore s(1);
  EXPECT_TRUE(s.try_acquire());
  EXPECT_FALSE(s.try_acquire());
  s.release();
  EXPECT_TRUE(s.try_acquire());
  s.release(0);
  EXPECT_FALSE(s.try_acquire());
}

TEST(Semaphore, BadCountsAreErrorsNamingTheValue) {
  try {
    locus::semaphore s(-1);
    FAIL() << "a negative initial count was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("locus::semaphore(-1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 0"), std::string::npos) << e.what();
  }
  locus::semaphore s(0);
  try {
    s.release(-2);
    FAIL() << "a negative release was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("release(-2)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(s.try_acquire());  // the bad release changed nothing
}

// The last user may destroy a semaphore as soon as it holds the permit it
// waited for, as with std::mutex after unlock: release must not touch the
// semaphore once a permit can be seen. Each round takes the permit the
// moment it appears (a tight try_acquire loop against a releaser on
// another thread) and deletes the semaphore at once; under
// AddressSanitizer a release still at work on it would be a
// heap-use-after-free (caught in about 6% of runs of 20,000 rounds before
// the fix), under ThreadSanitizer a race between the free and release's
// unlock, which the permit does not order, whichever comes first in time.
// 2,000 rounds: on a loaded machine a round can cost a time slice. Without a sanitizer the test
// still checks that every permit arrives.
TEST(Semaphore, MayBeDestroyedAsSoonAsAPermitIsTaken) {
  std::atomic<locus::semaphore*> to_release{nullptr};
  std::atomic<bool> stop{false};
  std::thread releaser([&] {
    for (std::uint64_t idle = 1; !stop.load(std::memory_order_acquire); ++idle)
      if (locus::semaphore* s = to_release.exchange(nullptr, std::memory_order_acq_rel))
        s->release();
      else if (idle % 4096 == 0)
        std::this_thread::yield();  // a loaded machine: let the other side run
  });
  for (int round = 0; round < 2000; ++round) {
    auto* s = new locus::semaphore(0);
    to_release.store(s, std::memory_order_release);
    for (std::uint64_t spins = 1; !s->try_acquire(); ++spins)
      if (spins % 4096 == 0) std::this_thread::yield();  // a loaded machine: let the releaser run
    delete s;
  }
  stop.store(true, std::memory_order_release);
  releaser.join();
}


// A semaphore on a task's stack that waits for other tasks' releases, the
// way a task waits for work it handed to another arena: the waiter
// destroys it as soon as its last acquire returns, while the releasing
// tasks may still be inside release(); on threads and in the simulator
// (where every worker shares one thread, so a release still at work can
// only finish once the engine runs its worker again: a destructor that
// waited for it would hang). One release of two permits, so that release
// has more to do after it hands the first, and three of one.
TEST(Semaphore, OnAWaitersStackWhileOthersRelease) {
  for (const char* engine : {"threaded", "sim"}) {
    locus::runtime_options o = workers(4);
    o.engine = engine;
    if (std::string(engine) == "sim") o.machine = "tbb-numa-westmere-4x8";
    locus::runtime rt(o);
    for (int round = 0; round < 200; ++round) {
      int got = 0;
      locus::fork_join(
          [&] {
            locus::task_group releasers;
            {
              locus::semaphore s(0);
              releasers.spawn([&] { s.release(2); });
              for (int k = 0; k < 3; ++k) releasers.spawn([&] { s.release(); });
              for (; got < 5; ++got) s.acquire();
            }
            releasers.sync();
          },
          [] {});
      EXPECT_EQ(got, 5) << engine << " round " << round;
    }
  }
}
