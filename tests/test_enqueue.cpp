// Enqueued tasks (TBB-NUMA section 4.4.3, figure 7 rules 5', 5'', 5'''):
// the shared queues are taken in the paper's order; task_group::enqueue
// runs a child at its place, detached from the spawner's deque, and joins
// it with its exceptions; locus::enqueue runs detached tasks that the pool
// finishes before it stops.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime_state.hpp"
#include "locus/locus.hpp"

namespace {

locus::runtime_options on_cores(int workers, const char* policy = "ws") {
  locus::runtime_options o;
  o.policy = policy;
  o.places = "core";
  o.workers = workers;
  o.spin_us = 20;
  return o;
}

}  // namespace

TEST(SharedQueues, TakenOwnPlaceThenUnhintedThenOtherPlaces) {
  using locus::detail::frame;
  locus::detail::shared_queues q;
  q.init(3, 1);  // one lane: FIFO within each queue
  std::vector<frame> frames(5);
  const int places[] = {2, -1, 0, 1, 2};  // frame i hinted at places[i]
  for (std::size_t i = 0; i < frames.size(); ++i) {
    frames[i].ctx.place = places[i];
    q.push(&frames[i]);
  }
  EXPECT_FALSE(q.empty());
  // A worker of place 1: its own place's (5'), the unhinted (5''), then
  // places 2 and 0 from the next one on (5'''), oldest first in each.
  const std::vector<frame*> expect = {&frames[3], &frames[1], &frames[0], &frames[4], &frames[2]};
  for (frame* f : expect) EXPECT_EQ(q.try_pop(1), f);
  EXPECT_EQ(q.try_pop(1), nullptr);
  EXPECT_TRUE(q.empty());
}

// With lanes the order within a queue is only roughly FIFO, but the order
// of the queues (rules 5', 5'' and 5''') holds, and every frame comes out once.
TEST(SharedQueues, LanesKeepThePlaceOrderAndLoseNothing) {
  using locus::detail::frame;
  locus::detail::shared_queues q;
  q.init(2, 4);
  std::vector<frame> frames(300);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    frames[i].ctx.place = static_cast<std::int16_t>(static_cast<int>(i % 3) - 1);  // -1, 0, 1 in turn
    q.push(&frames[i]);
  }
  std::vector<int> seen(frames.size(), 0);
  int last_rank = 0;  // a worker of place 1: place 1 first, then unhinted, then place 0
  for (std::size_t n = 0; n < frames.size(); ++n) {
    frame* f = q.try_pop(1);
    ASSERT_NE(f, nullptr) << "after " << n << " of " << frames.size();
    const int rank = f->ctx.place == 1 ? 0 : f->ctx.place == -1 ? 1 : 2;
    EXPECT_GE(rank, last_rank) << "a frame of a later queue came before one of an earlier queue";
    last_rank = rank;
    ++seen[static_cast<std::size_t>(f - frames.data())];
  }
  EXPECT_EQ(q.try_pop(1), nullptr);
  EXPECT_TRUE(q.empty());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "frame " << i;
}

// Producers and consumers at once on a queue with lanes: each frame is taken
// exactly once, and none is left (ThreadSanitizer checks the locking).
TEST(SharedQueues, ConcurrentPushAndPopTakeEachFrameOnce) {
  using locus::detail::frame;
  locus::detail::shared_queues q;
  q.init(1, 4);
  constexpr int producers = 3, consumers = 3, per_producer = 20000;
  std::vector<frame> frames(static_cast<std::size_t>(producers * per_producer));
  std::vector<std::atomic<int>> taken(frames.size());
  std::atomic<int> total_taken{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      for (int i = 0; i < per_producer; ++i) q.push(&frames[static_cast<std::size_t>(p * per_producer + i)]);
    });
  for (int c = 0; c < consumers; ++c)
    threads.emplace_back([&] {
      while (total_taken.load() < static_cast<int>(frames.size())) {
        if (frame* f = q.try_pop(0)) {
          taken[static_cast<std::size_t>(f - frames.data())].fetch_add(1);
          total_taken.fetch_add(1);
        } else {
          std::this_thread::yield();
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(q.empty());
  for (std::size_t i = 0; i < taken.size(); ++i) ASSERT_EQ(taken[i].load(), 1) << "frame " << i;
}

// The spawner keeps its worker busy until the children have run: enqueued
// children are not on its deque, so the other place's worker runs them all.
TEST(TaskGroupEnqueue, ChildrenRunAtTheirPlaceAndCannotBeRevoked) {
  for (const char* policy : {"ws", "tbb-numa"}) {
    locus::runtime rt(on_cores(2, policy));
    ASSERT_EQ(locus::num_places(), 2);
    std::atomic<int> ran{0}, at_other{0};
    locus::fork_join([&] {
      const int other = 1 - locus::current_place();
      locus::task_group g;
      for (int i = 0; i < 16; ++i)
        g.enqueue([&, other] {
          if (locus::current_place() == other) at_other.fetch_add(1);
          ran.fetch_add(1);
        }, locus::at(other));
      while (ran.load() < 16) {
      }
      g.sync();
    }, [] {});
    EXPECT_EQ(at_other.load(), 16) << policy;
  }
}

TEST(TaskGroupEnqueue, SyncJoinsThemAndRethrows) {
  locus::runtime rt(on_cores(4));
  std::atomic<int> ran{0};
  // From a task and from this thread (not a worker).
  for (bool inside : {true, false}) {
    auto body = [&] {
      locus::task_group g;
      for (int i = 0; i < 50; ++i)
        g.enqueue([&, i] {
          ran.fetch_add(1);
          if (i == 17) throw std::runtime_error("enqueued 17");
        }, i % 3 == 0 ? locus::any : locus::at(i % locus::num_places()));
      g.sync();
    };
    ran = 0;
    std::string what;
    try {
      if (inside) locus::fork_join(body, [] {});
      else body();
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    EXPECT_EQ(what, "enqueued 17") << (inside ? "from a task" : "from outside");
    EXPECT_EQ(ran.load(), 50);
  }
}

TEST(TaskGroupEnqueue, BadPlaceIsAnErrorAtTheCall) {
  locus::runtime rt(on_cores(2));
  locus::task_group g;
  EXPECT_THROW(g.enqueue([] {}, locus::at(2)), std::out_of_range);
  EXPECT_THROW(locus::enqueue([] {}, locus::at(-3)), std::out_of_range);
  g.sync();
}

// Detached tasks, enqueued from outside and from tasks (and from detached
// tasks): the runtime's destructor returns only once all have run.
TEST(Enqueue, DetachedTasksAllRunBeforeThePoolStops) {
  for (const char* policy : {"ws", "tbb-numa", "numa-ws"}) {
    std::atomic<int> ran{0};
    {
      locus::runtime rt(on_cores(3, policy));
      for (int i = 0; i < 20; ++i)
        locus::enqueue([&ran, i] {
          ran.fetch_add(1);
          for (int k = 0; k < 5; ++k)
            locus::enqueue([&ran] { ran.fetch_add(1); }, locus::at((i + k) % locus::num_places()));
        }, i % 2 == 0 ? locus::any : locus::at(i % locus::num_places()));
      locus::fork_join([&] {
        for (int i = 0; i < 10; ++i) locus::enqueue([&ran] { ran.fetch_add(1); });
      }, [] {});
    }
    EXPECT_EQ(ran.load(), 20 * 6 + 10) << policy;
  }
}

// Under the simulator, with a free worker at each place, detached tasks
// hinted to places run there.
TEST(Enqueue, SimulatedDetachedTasksRunAtTheirPlaces) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "tbb-numa-westmere-4x8";
  o.policy = "tbb-numa";
  o.workers = 32;
  std::atomic<int> ran{0};
  std::uint64_t at = 0, off = 0;
  {
    locus::runtime rt(o);
    locus::reset_stats();
    locus::fork_join([&] {
      for (int i = 0; i < 64; ++i)
        locus::enqueue([&ran] {
          locus::compute(100000);
          ran.fetch_add(1);
        }, locus::at(i % 4));
    }, [] {});
    // The pool is still up: wait for the detached tasks from outside.
    while (ran.load() < 64) {
      locus::fork_join([] { locus::compute(1000); }, [] {});
    }
    const auto total = locus::get_stats().total();
    at = total.at_hinted_place;
    off = total.off_hinted_place;
  }
  EXPECT_EQ(ran.load(), 64);
  EXPECT_EQ(at + off, 64u);
  EXPECT_GE(at, 60u) << "off their place: " << off;
}

TEST(EnqueueDeathTest, AnExceptionEscapingADetachedTaskTerminates) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH({
    locus::runtime rt(on_cores(2));
    locus::enqueue([] { throw std::runtime_error("lost"); });
  }, "locus::enqueue: a detached task threw: lost");
}

// Every policy takes enqueued children, also from inside groups it may tie
// to a cache (the multi-level policies take shared frames only at memory's
// leader, who steps down while a group is tied to memory), on 1 to 32
// simulated workers and on threads.
TEST(TaskGroupEnqueue, EveryPolicyJoinsThem) {
  for (const std::string& policy : locus::available_policies()) {
    for (int workers : {1, 8, 32, 2}) {
      locus::runtime_options o;
      o.policy = policy;
      o.workers = workers;
      if (workers != 2) {
        o.engine = "sim";
        o.machine = "numa-ws-4x8";
      }
      locus::runtime rt(o);
      std::atomic<int> ran{0};
      locus::fork_join([&] {
        locus::task_group outer(locus::footprint(1 << 20));
        for (int k = 0; k < 3; ++k)
          outer.spawn([&] {
            locus::task_group g;
            for (int i = 0; i < 20; ++i)
              g.enqueue([&] {
                locus::compute(2000);
                ran.fetch_add(1);
              }, i % 2 == 0 ? locus::any : locus::at(i % locus::num_places()));
            g.sync();
          });
        outer.sync();
      }, [] {});
      EXPECT_EQ(ran.load(), 60) << policy << " on " << workers << " workers";
    }
  }
}
