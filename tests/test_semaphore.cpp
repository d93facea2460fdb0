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
