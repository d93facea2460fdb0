// Arenas and the resource manager (TBB-NUMA, seed 001, sections 4.1, 4.2 and
// 4.4.1; include/locus/arena.hpp, src/core/arenas.hpp): each arena with work
// gets an equal share of every place as arenas come and go; a task runs only
// on a worker serving its arena; max_concurrency bounds the workers; threads
// outside the pool take slots of an arena; results and exceptions come back
// from execute; random programs mixing arenas, enqueue and loops match their
// serial result under every policy, on threads and under the simulator.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <semaphore>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime_state.hpp"
#include "fiber/sanitizers.hpp"
#include "locus/locus.hpp"
#include "support/message_of.hpp"
#include "support/random_tree.hpp"

namespace {

using test_support::contains;
using test_support::message_of;

// 8 workers on a virtual 2-socket machine: 2 places of 4 (threads, not
// pinned: the test machine may have 2 cpus).
locus::runtime_options two_places(const char* policy = "ws", const char* shares = "") {
  locus::runtime_options o;
  o.policy = policy;
  o.topology = "2x4";
  o.places = "socket";
  o.workers = 8;
  o.pin = 0;
  o.spin_us = 20;
  o.arena_shares = shares;
  return o;
}

// Idle workers go to sleep after LOCUS_SPIN_US, without a timer (no
// computation is in flight): waits for that, however long it takes, up to
// the point where a thread may borrow them (borrowable: parked, with their
// sleep's bookkeeping written; park_word alone turns parked before it).
void wait_until_all_workers_sleep() {
  auto& pool = locus::detail::pool();
  for (;;) {
    bool all = true;
    for (auto& w : pool.workers)
      all = all && w->park_word.load() == locus::detail::worker::parked && w->borrowable.load();
    if (all) return;
    std::this_thread::yield();
  }
}

// The simulated 4-socket Westmere of the TBB-NUMA paper.
locus::runtime_options westmere(const std::string& policy, int workers) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "tbb-numa-westmere-4x8";
  o.policy = policy;
  o.workers = workers;
  return o;
}

using shares = std::vector<int>;

// The arena the running worker serves: a task must run only on one that
// serves its own, unless the policy's arenas share every worker (the
// multi-level policies: registry.hpp, isolates_arenas), whose workers all
// serve the default arena.
int serving_arena() { return locus::detail::current_worker()->arena.load(); }
bool serves(int arena) {
  return serving_arena() == arena || (!locus::detail::pool().arenas.isolating() && serving_arena() == 0);
}

}  // namespace

TEST(ArenaShares, EveryArenaWithWorkGetsAnEqualShareOfEveryPlace) {
  locus::runtime rt(two_places());
  locus::arena a, b, c(2);
  EXPECT_EQ(a.max_concurrency(), 8);
  EXPECT_EQ(c.max_concurrency(), 2);
  EXPECT_NE(a.id(), b.id());
  EXPECT_EQ(a.workers_per_place(), (shares{0, 0})) << "no work, no workers";
  shares a_alone, a_with_b, b_with_a, a3, b3, c3, a_after;
  // Only a has work (this thread waits outside every arena): all of it.
  a.execute([&] {
    a_alone = a.workers_per_place();
    b.execute([&] {  // a (its task waits here) and b
      a_with_b = a.workers_per_place();
      b_with_a = b.workers_per_place();
      c.execute([&] {  // a, b and c, which asks for 2: one per place
        a3 = a.workers_per_place();
        b3 = b.workers_per_place();
        c3 = c.workers_per_place();
      });
    });
    a_after = a.workers_per_place();
  });
  EXPECT_EQ(a_alone, (shares{4, 4}));
  EXPECT_EQ(a_with_b, (shares{2, 2}));
  EXPECT_EQ(b_with_a, (shares{2, 2}));
  EXPECT_EQ(c3, (shares{1, 1}));
  EXPECT_EQ(a3[0] + b3[0], 3);
  EXPECT_EQ(a3[1] + b3[1], 3);
  EXPECT_GE(std::min({a3[0], a3[1], b3[0], b3[1]}), 1) << "every arena keeps a worker at every place";
  EXPECT_EQ(a_after, (shares{4, 4})) << "b and c are done: a gets its workers back";
  EXPECT_EQ(a.workers_per_place(), (shares{0, 0}));
}

TEST(ArenaShares, PoolSharesDealWholePlacesAsStandardTbb) {
  // LOCUS_ARENA_SHARES=pool: by count, consecutive workers: figure 2's
  // allocation, each arena on one socket only.
  locus::runtime rt(two_places("ws", "pool"));
  locus::arena a, b;
  shares in_a, in_b;
  a.execute([&] {
    b.execute([&] {
      in_a = a.workers_per_place();
      in_b = b.workers_per_place();
    });
  });
  EXPECT_EQ(in_a, (shares{4, 0}));
  EXPECT_EQ(in_b, (shares{0, 4}));
}

TEST(ArenaShares, TheDefaultArenaSharesLikeAnyOther) {
  locus::runtime rt(two_places());
  locus::arena a;
  shares in_a;
  // A task of the default arena enters a: both have work.
  locus::fork_join([&] { a.execute([&] { in_a = a.workers_per_place(); }); }, [] {});
  EXPECT_EQ(in_a, (shares{2, 2}));
}

TEST(Arena, TasksRunOnlyOnWorkersOfTheirArena) {
  for (const auto& policy : locus::available_policies()) {
    SCOPED_TRACE(policy);
    locus::runtime rt(two_places(policy.c_str()));
    locus::arena a, b(3);
    std::atomic<int> wrong{0}, ran{0};
    auto body = [&](const locus::arena& mine) {
      for (int round = 0; round < 20; ++round)
        locus::parallel_for(0, 64, 1, [&](std::int64_t) {
          ran.fetch_add(1);
          if (locus::this_arena::id() != mine.id() || !serves(mine.id())) wrong.fetch_add(1);
          locus::task_group g;
          for (int i = 0; i < 3; ++i)
            g.spawn([&] {
              if (!serves(mine.id())) wrong.fetch_add(1);
            });
          g.sync();
        });
    };
    std::thread other([&] { b.execute([&] { body(b); }); });
    a.execute([&] { body(a); });
    other.join();
    EXPECT_EQ(ran.load(), 2 * 20 * 64);
    EXPECT_EQ(wrong.load(), 0);
  }
}

TEST(Arena, MaxConcurrencyBoundsTheWorkersEvenWithManyThreadsInside) {
  // Four threads enter an arena of 2 at once (each takes one of its
  // slots): its tasks run on 2 workers of the 8, one per place, whoever
  // entered. Nothing else has work meanwhile, so its share never changes.
  locus::runtime rt(two_places());
  locus::arena small(2);
  std::mutex m;
  std::set<int> workers;
  std::atomic<long> sum{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const long got = small.execute([&] {
        return locus::parallel_reduce(0, 2000, 1, 0L, [&](std::int64_t lo, std::int64_t hi, long acc) {
          {
            std::lock_guard guard(m);
            workers.insert(locus::worker_id());
          }
          for (std::int64_t i = lo; i < hi; ++i) acc += i + t;
          return acc;
        }, std::plus<>());
      });
      sum.fetch_add(got);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(sum.load(), 4L * (1999L * 2000 / 2) + 2000L * (0 + 1 + 2 + 3));
  EXPECT_LE(workers.size(), 2u);
  std::set<int> places;
  for (int w : workers) places.insert(w / 4);  // workers are numbered place by place
  EXPECT_EQ(places.size(), workers.size()) << "one worker per place";
}

TEST(Arena, ExecuteReturnsWhatItsFunctionReturnsAndRethrows) {
  locus::runtime rt(two_places());
  locus::arena a;
  EXPECT_EQ(a.execute([] { return 42; }), 42);
  int x = 1;
  int& r = a.execute([&]() -> int& { return x; });
  EXPECT_EQ(&r, &x);
  EXPECT_EQ(a.execute([] { return std::string("arena"); }), "arena");
  EXPECT_THROW(a.execute([] { throw std::runtime_error("from the arena"); }), std::runtime_error);
  // From a task of the default arena, and a task group's exception inside.
  bool caught = false;
  locus::fork_join(
      [&] {
        try {
          a.execute([] {
            locus::task_group g;
            g.spawn([] { throw std::logic_error("child"); });
            g.sync();
          });
        } catch (const std::logic_error&) {
          caught = locus::this_arena::id() == 0;  // back in its own arena
        }
      },
      [] {});
  EXPECT_TRUE(caught);
  // Inside the arena already: runs in place.
  EXPECT_EQ(a.execute([&] { return a.execute([] { return locus::this_arena::id(); }); }), a.id());
}

// oneTBB's rule for a thread entering an arena (issue 44): while one of the
// arena's workers sleeps, the thread runs f itself, as that worker; what f
// spawns is stealable as usual, what it throws reaches the caller, and the
// worker is given back asleep.
TEST(ArenaEntry, AThreadRunsFItselfAsASleepingWorkerOfTheArena) {
  locus::runtime_options o = two_places();
  o.workers = 2;
  locus::runtime rt(o);
  locus::arena a;
  a.execute([] {});  // a's first work: the resource manager deals it the workers, and the deal lasts
  auto& pool = locus::detail::pool();
  std::function<long(int)> fib = [&](int n) -> long {
    if (n < 2) return n;
    long x = 0, y = 0;
    locus::fork_join([&] { x = fib(n - 1); }, [&] { y = fib(n - 2); });
    return x + y;
  };
  for (int round = 0; round < 3; ++round) {
    wait_until_all_workers_sleep();
    std::thread::id ran_on;
    int worker = -1;
    const long got = a.execute([&] {
      ran_on = std::this_thread::get_id();
      worker = locus::worker_id();
      return fib(18);
    });
    EXPECT_EQ(got, 2584);
    EXPECT_EQ(ran_on, std::this_thread::get_id()) << "round " << round;
    EXPECT_GE(worker, 0);
    wait_until_all_workers_sleep();
    EXPECT_THROW(a.execute([] { throw std::runtime_error("from the entering thread"); }), std::runtime_error);
  }
  for (auto& w : pool.workers) EXPECT_FALSE(w->borrowed_now());
}

// A root run by the thread that borrowed a worker is that worker's work
// time, and the pool's busy time, as a root a worker took itself would be:
// both accounts open before f starts and close after it returns, by the
// same clock f measures itself with (steady_clock), so neither can be
// shorter than f's own measure however the machine is loaded.
TEST(ArenaEntry, ARootRunByABorrowerCountsAsTheWorkersWork) {
  locus::runtime_options o = two_places();
  o.workers = 2;
  locus::runtime rt(o);
  locus::arena a;
  a.execute([] {});
  for (int round = 0; round < 3; ++round) {
    wait_until_all_workers_sleep();
    locus::reset_stats();
    std::thread::id ran_on;
    double measured_s = 0;
    a.execute([&] {
      ran_on = std::this_thread::get_id();
      const auto start = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(5)) {
      }
      measured_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
    const locus::stats s = locus::get_stats();
    EXPECT_EQ(ran_on, std::this_thread::get_id()) << "round " << round << ": f was not run by the entering thread";
    EXPECT_GE(s.total().work_s, measured_s) << "round " << round;
    EXPECT_GE(s.elapsed_s, measured_s) << "round " << round;
  }
}

// oneTBB's rule for a task entering another arena (issue 44): with its
// deque empty, the task's worker runs f itself, in place, as a member of the
// arena: same thread, the arena's id inside, its own arena back after, and
// exceptions through. An entry that spawns nothing asks the resource manager
// for no worker: none is dealt to the arena while f runs.
TEST(ArenaEntry, ATaskWithAnEmptyDequeRunsFInPlace) {
  for (const char* policy : {"ws", "numa-ws", "tbb-numa", "tbb-std"}) {
    SCOPED_TRACE(policy);
    locus::runtime rt(two_places(policy));
    locus::arena a(2);
    auto& pool = locus::detail::pool();
    int in_place = 0, dealt_to_a = 0, wrong_arena = 0, caught = 0;
    for (int round = 0; round < 20; ++round)
      // fork_join runs its second branch with the deque empty (popped by
      // its worker, or run by a thief).
      locus::fork_join([] {}, [&] {
        const std::thread::id caller = std::this_thread::get_id();
        a.execute([&] {
          in_place += std::this_thread::get_id() == caller;
          wrong_arena += locus::this_arena::id() != a.id() || !serves(a.id());
          for (std::size_t w = 0; w < pool.workers.size(); ++w) dealt_to_a += pool.arenas.target(static_cast<int>(w)) == a.id();
        });
        wrong_arena += locus::this_arena::id() != 0 || !serves(0);
        try {
          a.execute([] { throw std::runtime_error("in place"); });
        } catch (const std::runtime_error&) {
          caught += locus::this_arena::id() == 0;
        }
      });
    EXPECT_EQ(in_place, 20);
    EXPECT_EQ(dealt_to_a, 0) << "a short entry moved workers";
    EXPECT_EQ(wrong_arena, 0);
    EXPECT_EQ(caught, 20);
  }
}

// An entry in place whose f spawns: the arena is dealt its workers at the
// first spawn, and f's work spreads over them and the entering worker
// (SIMULATED: the schedule is deterministic), each task on a worker serving
// the arena; nested entries and their exceptions come back in order.
TEST(ArenaEntry, AnEntryInPlaceThatSpawnsGetsTheArenasWorkersSimulated) {
  for (const char* policy : {"ws", "tbb-numa"}) {
    SCOPED_TRACE(policy);
    locus::runtime rt(westmere(policy, 8));
    locus::arena a(4), b(2);
    std::set<int> ran_on;
    int wrong_arena = 0, nested = 0;
    long sum = 0;
    locus::fork_join([] {}, [&] {
      const int caller = locus::worker_id();
      a.execute([&] {
        sum = locus::parallel_reduce(0, 256, 1, 0L, [&](std::int64_t lo, std::int64_t hi, long acc) {
          locus::compute(20000);  // simulated cycles
          ran_on.insert(locus::worker_id());
          wrong_arena += locus::this_arena::id() != a.id() || !serves(a.id());
          for (std::int64_t i = lo; i < hi; ++i) acc += i;
          return acc;
        }, std::plus<>());
        EXPECT_TRUE(ran_on.count(caller)) << "the entering worker works in the arena";
        try {
          b.execute([&] {
            locus::task_group g;
            g.spawn([&] { wrong_arena += locus::this_arena::id() != b.id(); });
            g.spawn([] { throw std::logic_error("nested"); });
            g.sync();
          });
        } catch (const std::logic_error&) {
          nested += locus::this_arena::id() == a.id();
        }
      });
      wrong_arena += locus::this_arena::id() != 0;
    });
    EXPECT_EQ(sum, 255L * 256 / 2);
    EXPECT_GT(ran_on.size(), 1u);
    EXPECT_LE(ran_on.size(), 5u) << "its 4 workers and the entering one";
    EXPECT_EQ(wrong_arena, 0);
    EXPECT_EQ(nested, 1);
  }
}

// Threads entering arenas at once, again and again, while the workers come
// and go between sleep and work: every entry's work is done once, its
// exceptions reach its caller, and nothing runs outside its arena.
TEST(ArenaEntry, ManyThreadsEnteringAgainAndAgainLoseNothing) {
  for (const char* policy : {"ws", "tbb-numa", "adws"}) {
    SCOPED_TRACE(policy);
    locus::runtime_options o = two_places(policy);
    o.workers = 3;
    locus::runtime rt(o);
    locus::arena a, b(2);
    std::atomic<long> sum{0};
    std::atomic<int> caught{0}, wrong{0};
    constexpr int threads = 3, entries = 150;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < entries; ++i) {
          locus::arena& mine = (i + t) % 2 == 0 ? a : b;
          try {
            mine.execute([&] {
              locus::parallel_for(0, 8, 1, [&](std::int64_t k) {
                if (locus::this_arena::id() != mine.id() || !serves(mine.id())) wrong.fetch_add(1);
                sum.fetch_add(k + 1);
              });
              if (i % 10 == 0) throw std::runtime_error("entry");
            });
          } catch (const std::runtime_error&) {
            caught.fetch_add(1);
          }
        }
      });
    for (auto& t : pool) t.join();
    EXPECT_EQ(sum.load(), 36L * threads * entries);
    EXPECT_EQ(caught.load(), threads * (entries / 10));
    EXPECT_EQ(wrong.load(), 0);
  }
}

TEST(Arena, EnqueuedTasksRunInTheirArena) {
  locus::runtime rt(two_places("tbb-numa"));
  locus::arena a(4);
  constexpr int tasks = 200;
  std::counting_semaphore<tasks> done{0};
  std::atomic<int> wrong{0};
  for (int i = 0; i < tasks; ++i)
    a.enqueue([&] {
      if (locus::this_arena::id() != a.id() || serving_arena() != a.id()) wrong.fetch_add(1);
      done.release();
    }, i % 3 == 0 ? locus::any : locus::at(i % 2));
  for (int i = 0; i < tasks; ++i) done.acquire();
  EXPECT_EQ(wrong.load(), 0);
  // locus::enqueue from a task of the arena stays in it.
  a.execute([&] {
    locus::enqueue([&] {
      if (serving_arena() != a.id()) wrong.fetch_add(1);
      done.release();
    });
  });
  done.acquire();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Arena, BadArgumentsAndTooManyArenasSayWhatIsAccepted) {
  locus::runtime_options o = two_places();
  o.arena_max = 3;  // the default and two more
  locus::runtime rt(o);
  EXPECT_TRUE(contains(message_of<std::invalid_argument>([] { locus::arena bad(-1); }), "max_concurrency must be >= 1"));
  {
    locus::arena a, b;
    const std::string full = message_of<std::runtime_error>([] { locus::arena c; });
    EXPECT_TRUE(contains(full, "LOCUS_ARENA_MAX")) << full;
  }
  locus::arena again;  // the slots are free once their arenas are gone
  EXPECT_EQ(again.execute([] { return 7; }), 7);
}

TEST(Arena, BadSettingsAreRejected) {
  locus::runtime_options o = two_places("ws", "sockets");
  const std::string message = message_of<locus::config_error>([&] { locus::runtime rt(o); });
  EXPECT_TRUE(contains(message, "arena_shares")) << message;
  EXPECT_TRUE(contains(message, "places")) << message;
  o = two_places();
  o.arena_max = 5000;
  EXPECT_TRUE(contains(message_of<locus::config_error>([&] { locus::runtime rt(o); }), "1 to 4096"));
}

// ---------------------------------------------------------------- composability (section 5.3)

namespace {

// SIMULATED on tbb-numa-westmere-4x8 (4 sockets of 8, 32 workers), under
// tbb-numa: while a contender computation keeps a second arena busy, the
// default arena spawns rounds of children hinted at every socket. Returns
// the share of the children hinted at sockets 2 and 3 that ran there.
double at_place_beside_contender(const char* shares, std::vector<int>& b_places) {
  locus::runtime_options o = westmere("tbb-numa", 32);
  o.arena_shares = shares;
  locus::runtime rt(o);
  locus::arena contender;
  int hinted_far = 0, ran_there = 0;
  locus::fork_join(
      [&] {
        std::atomic<bool> stop{false};
        locus::semaphore started(0);
        locus::task_group g;
        g.enqueue([&] {
          contender.execute([&] {
            b_places = contender.workers_per_place();
            started.release();
            while (!stop.load())
              locus::parallel_for(0, 64, 1, [](std::int64_t) { locus::compute(20000); });
          });
        });
        started.acquire();  // the contender's arena has work: the shares are dealt
        for (int round = 0; round < 16; ++round) {
          std::atomic<int> there{0};
          locus::task_group hinted;
          for (int i = 0; i < 16; ++i) {
            const int p = i % 4;
            hinted.spawn([&, p] {
              locus::compute(200000);
              if (p >= 2 && locus::current_place() == p) there.fetch_add(1);
            }, locus::at(p));
          }
          hinted.sync();
          hinted_far += 8;
          ran_there += there.load();
        }
        stop.store(true);
        g.sync();
      },
      [] {});
  return static_cast<double>(ran_there) / hinted_far;
}

}  // namespace

TEST(ArenaComposability, AffinitiesKeepTheirPlacesBesideAContenderSimulated) {
  // Section 4.4.1: each arena gets half of every socket, so the hinted
  // children find workers of their socket in their own arena.
  std::vector<int> contender_places;
  EXPECT_GE(at_place_beside_contender("places", contender_places), 0.9);
  EXPECT_EQ(contender_places, (std::vector<int>{4, 4, 4, 4}));
  // Standard TBB's shares (figure 2): the default arena gets sockets 0 and
  // 1 only, and nothing hinted at 2 or 3 can run there.
  EXPECT_EQ(at_place_beside_contender("pool", contender_places), 0.0);
  EXPECT_EQ(contender_places, (std::vector<int>{0, 0, 8, 8}));
}

// ---------------------------------------------------------------- random programs

namespace {

// random_tree's trees, where some nodes run their children inside another
// arena (a.execute, nested), some enqueue them to their group's shared
// queue, and every node checks that it runs in its arena.
struct arena_tree : random_tree::tree {
  std::vector<locus::arena*> arenas;
  std::atomic<int>* misplaced = nullptr;

  long run(std::uint64_t id, int depth, int arena, std::atomic<long>& nodes) const {
    using random_tree::mix;
    if (locus::this_arena::id() != arena || !serves(arena)) misplaced->fetch_add(1);
    nodes.fetch_add(1, std::memory_order_relaxed);
    const int n = fanout(id, depth);
    std::vector<long> part(static_cast<std::size_t>(n), 0);
    auto children = [&](int in) {
      auto one = [&, in](int i) { part[static_cast<std::size_t>(i)] = run(child(id, i), depth + 1, in, nodes); };
      switch (mix(id * 5 + seed) % 3) {
        case 0: {
          locus::task_group g;
          for (int i = 0; i < n; ++i)
            if (mix(id + static_cast<std::uint64_t>(i)) % 4 == 0) g.enqueue([&, i] { one(i); });
            else g.spawn([&, i] { one(i); });
          g.sync();
          break;
        }
        case 1:
          locus::parallel_for(0, n, 1, [&](std::int64_t i) { one(static_cast<int>(i)); });
          break;
        default:
          fork_range(0, n, one);
      }
    };
    if (n > 0 && mix(id ^ 0x5eed) % 4 == 0) {
      locus::arena& next = *arenas[mix(id ^ 0xa4e) % arenas.size()];
      next.execute([&] { children(next.id()); });
    } else {
      children(arena);
    }
    long sum = value(id);
    for (long p : part) sum += p;
    if (throws(id)) throw random_tree::tree_error("node " + std::to_string(id));
    return sum;
  }
};

void check_arena_trees(int seeds, std::uint64_t salt) {
  locus::arena a, b(3), c(1);
  std::atomic<int> misplaced{0};
  for (int s = 0; s < seeds; ++s) {
    arena_tree t;
    t.seed = static_cast<std::uint64_t>(s) * 7919 + salt;
    t.max_depth = 4 + s % 3;
    t.allow_throw = s % 3 == 0;
    t.arenas = {&a, &b, &c};
    t.misplaced = &misplaced;
    random_tree::check_against_serial(t, s, [&](std::atomic<long>& nodes) { return t.run(1, 0, 0, nodes); });
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(misplaced.load(), 0) << "tasks ran on workers of another arena";
}

int arena_seeds() {
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
  return random_tree::seeds_from("LOCUS_STRESS_SEEDS", 4);
#else
  return random_tree::seeds_from("LOCUS_STRESS_SEEDS", 12);
#endif
}

}  // namespace

class ArenaTrees : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(ArenaTrees, MatchTheSerialResultOnThreads) {
  const auto& [policy, workers] = GetParam();
  locus::runtime_options o = two_places(policy.c_str());
  o.workers = workers;
  locus::runtime rt(o);
  check_arena_trees(arena_seeds(), static_cast<std::uint64_t>(workers));
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, ArenaTrees,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()), ::testing::Values(1, 3, 8)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(ArenaTreesSimulated, MatchTheSerialResultOnTheWestmere) {
  for (const auto& policy : locus::available_policies()) {
    SCOPED_TRACE(policy);
    locus::runtime rt(westmere(policy, 32));
    check_arena_trees(std::max(2, arena_seeds() / 3), 32);
    if (::testing::Test::HasFailure()) return;
  }
}
