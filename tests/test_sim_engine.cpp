// The simulated engine: determinism, closed forms, memory accounting, and
// the settings that select it. (Random fork-join trees under the simulator
// over many seeds are in test_stress.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/sim_engine.hpp"
#include "locus/locus.hpp"
#include "sim/machine_model.hpp"

namespace sim = locus::detail::sim;

namespace {

locus::runtime_options simulated(const std::string& machine, int workers, long long seed = 1) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = machine;
  o.workers = workers;
  o.seed = seed;
  return o;
}

long fib(int n) {
  if (n < 2) {
    locus::compute(7);
    return n;
  }
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

// A small program with spawns, loops, memory and steals; returns its
// statistics as JSON.
// Its memory is the caller's: allocated once, the runs see the same
// addresses (across processes the allocator repeats itself by itself).
std::string run_program(const locus::runtime_options& o, std::vector<double>& data) {
  locus::runtime rt(o);
  locus::reset_stats();
  EXPECT_EQ(fib(18), 2584);
  const double sum = locus::parallel_reduce(
      std::int64_t{0}, static_cast<std::int64_t>(data.size()), std::int64_t{512}, 0.0,
      [&](std::int64_t lo, std::int64_t hi, double acc) {
        locus::touch(&data[static_cast<std::size_t>(lo)], static_cast<std::size_t>(hi - lo) * sizeof(double));
        locus::compute(static_cast<std::uint64_t>(hi - lo));
        for (std::int64_t i = lo; i < hi; ++i) acc += data[static_cast<std::size_t>(i)];
        return acc;
      },
      [](double a, double b) { return a + b; });
  EXPECT_EQ(sum, static_cast<double>(data.size()));
  return locus::get_stats().to_json();
}

sim::cycles to_cycles(double seconds, const sim::machine_model& m) {
  return static_cast<sim::cycles>(std::llround(seconds * 1e9 * m.clock_ghz));
}

}  // namespace


TEST(SimEngine, SameSeedGivesTheSameRun) {
  const auto o = simulated("numa-ws-4x8", 32, 7);
  std::vector<double> data(1 << 16, 1.0);
  const std::string first = run_program(o, data);
  const std::string second = run_program(o, data);
  EXPECT_EQ(first, second);
  EXPECT_NE(first.find("\"simulated\":true"), std::string::npos);
}

TEST(SimEngine, DifferentSeedsGiveDifferentInterleavings) {
  std::vector<std::string> runs;
  std::vector<double> data(1 << 16, 1.0);
  for (long long seed = 1; seed <= 4; ++seed) runs.push_back(run_program(simulated("numa-ws-4x8", 32, seed), data));
  bool any_differs = false;
  for (const auto& r : runs) any_differs = any_differs || r != runs[0];
  EXPECT_TRUE(any_differs);
}

TEST(SimEngine, OneWorkerTakesTheSumOfTheCosts) {
  // One worker: the wake that starts the computation, each leaf's compute,
  // and each fork's push and pop; nothing else is charged.
  const auto machine = sim::find_machine("numa-ws-4x8");
  locus::runtime rt(simulated("numa-ws-4x8", 1));
  locus::reset_stats();
  EXPECT_EQ(fib(16), 987);
  const auto s = locus::get_stats();
  const std::uint64_t leaves = 1597, forks = 1596;
  ASSERT_EQ(s.total().spawns, forks);
  const sim::cycles expected =
      machine.costs.wake + leaves * 7 + forks * (machine.costs.deque_push + machine.costs.deque_pop);
  const sim::cycles got = to_cycles(s.elapsed_s, machine);
  EXPECT_NEAR(static_cast<double>(got), static_cast<double>(expected), 3.0);  // ns rounding
  EXPECT_EQ(s.total().steal_attempts, 0u);
}

TEST(SimEngine, EqualIndependentTasksDivideByP) {
  // P x 8 tasks of 200k cycles each: T_P is T_1 / P plus the cost of
  // spreading the work (steals, wakes), which is small against the tasks.
  const sim::cycles task = 200'000;
  for (int p : {2, 8, 32}) {
    const auto machine = sim::find_machine("numa-ws-4x8");
    locus::runtime rt(simulated("numa-ws-4x8", p));
    locus::reset_stats();
    locus::parallel_for(0, 8 * p, 1, [&](int) { locus::compute(task); });
    const auto s = locus::get_stats();
    const double ideal = 8.0 * static_cast<double>(task);  // T_1 / P
    const double got = static_cast<double>(to_cycles(s.elapsed_s, machine));
    EXPECT_GE(got, ideal) << "P=" << p;
    EXPECT_LE(got, ideal * 1.10 + 20'000) << "P=" << p;
    EXPECT_NEAR(s.total().work_s, 8.0 * p * task / (machine.clock_ghz * 1e9), 0.01 * s.total().work_s);
  }
}

// Between computations nothing can come from outside until every worker
// sleeps (engine::from_outside), so a worker left without work and without
// a root in flight sleeps at once: were it to spin (LOCUS_SPIN_US, ten
// times longer for a worker that just ran tasks), every root would cost
// each of the 32 woken workers thousands of failed steal attempts, a
// fiber switch each, in host time.
TEST(SimEngine, NoSpinWhileNoRootIsInFlight) {
  constexpr int workers = 32, roots = 20;
  locus::runtime rt(simulated("numa-ws-4x8", workers));
  locus::reset_stats();
  for (int r = 0; r < roots; ++r) locus::parallel_for(0, workers, 1, [](int) { locus::compute(1000); });
  const auto total = locus::get_stats().total();
  EXPECT_LT(total.steal_attempts, std::uint64_t{100} * workers * roots) << "idle workers spun between roots";
  EXPECT_GE(total.sleeps, std::uint64_t{workers} * (roots - 1)) << "every worker sleeps between roots";
}

// Idle workers that see no work wait for an event instead of failing
// attempt after attempt (LOCUS_SIM_IDLE=events, the default); the detailed
// model runs every attempt (attempts). One long task, with a few short
// ones forked late from inside it: the others must still find those at
// once, so the simulated times agree closely while the attempts do not.
struct idle_run {
  double elapsed_s = 0;
  std::uint64_t attempts = 0, steals = 0;
};

idle_run run_with_idle_mode(const char* mode, long long seed) {
  setenv("LOCUS_SIM_IDLE", mode, 1);
  idle_run r;
  {
    locus::runtime rt(simulated("numa-ws-4x8", 16, seed));
    locus::reset_stats();
    locus::fork_join(
        [] {
          locus::compute(2'000'000);  // the others idle meanwhile
          // Then work appears in this worker's deque: 15 pieces to steal.
          locus::parallel_for(0, 16, 1, [](int) { locus::compute(200'000); });
        },
        [] {});
    const auto s = locus::get_stats();
    r.elapsed_s = s.elapsed_s;
    r.attempts = s.total().steal_attempts;
    r.steals = s.total().steals;
  }
  unsetenv("LOCUS_SIM_IDLE");
  return r;
}

TEST(SimEngine, IdleWorkersWaitForWorkToShow) {
  for (long long seed = 1; seed <= 4; ++seed) {
    const idle_run detailed = run_with_idle_mode("attempts", seed);
    const idle_run events = run_with_idle_mode("events", seed);
    // 15 workers x 2 M cycles of waiting: many thousands of attempts in
    // the detailed model, a few per worker with events.
    EXPECT_GT(detailed.attempts, 10'000u) << "seed " << seed;
    EXPECT_LT(events.attempts * 20, detailed.attempts) << "seed " << seed;
    // The pieces forked late are found at once either way: 2 M cycles, then
    // one round of 200 k-cycle pieces (16 pieces, 16 workers), give or take
    // the steal chains' few thousand cycles.
    EXPECT_GE(events.steals, 8u) << "seed " << seed;
    EXPECT_NEAR(events.elapsed_s, detailed.elapsed_s, 0.02 * detailed.elapsed_s) << "seed " << seed;
  }
}

TEST(SimEngine, IdleModeIsChecked) {
  setenv("LOCUS_SIM_IDLE", "sometimes", 1);
  try {
    locus::runtime rt(simulated("numa-ws-4x8", 4));
    ADD_FAILURE() << "LOCUS_SIM_IDLE=sometimes was accepted";
  } catch (const locus::config_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("LOCUS_SIM_IDLE"), std::string::npos) << what;
    EXPECT_NE(what.find("events or attempts"), std::string::npos) << what;
  }
  unsetenv("LOCUS_SIM_IDLE");
}

TEST(SimEngine, OversubscribedWorkersShareCores) {
  // 12 workers on the 8 cores of the Nehalem preset.
  locus::runtime rt(simulated("tbb-numa-nehalem-2x4", 12));
  EXPECT_EQ(locus::num_workers(), 12);
  EXPECT_EQ(fib(20), 6765);
}

TEST(SimEngine, CountsMemoryAccessesByLevel) {
  locus::runtime rt(simulated("numa-ws-4x8", 1));
  // 4096 lines, line-aligned: fits the 16 MB L3.
  std::vector<char> storage(256 * 1024 + 64);
  const std::span<char> data(storage.data() + (64 - reinterpret_cast<std::uintptr_t>(storage.data()) % 64) % 64,
                             256 * 1024);
  locus::reset_stats();
  locus::fork_join([&] { locus::touch(data.data(), data.size(), locus::access::write); }, [] {});
  auto first = locus::get_stats().total();
  EXPECT_EQ(first.counter("local_dram"), 4096u);
  EXPECT_EQ(first.counter("remote_dram"), 0u);
  locus::reset_stats();
  locus::fork_join([&] { locus::touch(data.data(), data.size()); }, [] {});
  auto second = locus::get_stats().total();
  EXPECT_EQ(second.counter("local_dram") + second.counter("remote_dram"), 0u);
  EXPECT_EQ(second.counter("l1_hits") + second.counter("l2_hits") + second.counter("l3_hits"), 4096u);
}

TEST(SimEngine, FirstTouchHomesPagesOnTheTouchingNode) {
  // 4 workers, one per socket (places = numa): place p is node p.
  locus::runtime rt(simulated("numa-ws-4x8", 4));
  constexpr std::size_t region = 64 * 1024;
  std::vector<char> data(4 * region);
  std::vector<int> toucher(4, -1);
  locus::parallel_for(0, 4, 1, [&](int i) {
    locus::touch(data.data() + i * region, region, locus::access::write);
    toucher[static_cast<std::size_t>(i)] = locus::current_place();
  });
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(locus::detail::simulated_page_home(data.data() + i * region + region / 2), toucher[i]) << "region " << i;

  locus::detail::simulate_place_pages(data.data(), region, 3);
  EXPECT_EQ(locus::detail::simulated_page_home(data.data()), 3);
  locus::detail::simulate_place_pages(data.data(), 2 * 4096, -1);  // interleave two pages
  EXPECT_NE(locus::detail::simulated_page_home(data.data()), locus::detail::simulated_page_home(data.data() + 4096));
}

// Pages first touched by many workers at once still spread over the
// caches' sets. Each of 32 workers writes its own 128 KB (half its 256 KB,
// 8-way L2) a page at a time, interleaved with the others, then reads it
// twice. The simulated page number is a page's color (the caches index sets
// by it): numbered in plain touch order, a worker's pages strode by about
// the worker count, a multiple of the L2's 8 colors, and fell on one or two
// of them, so the reads missed L2. Colored pages (sim::page_map::colored_page)
// keep nearly all of them in L2.
TEST(SimEngine, PagesFirstTouchedTogetherSpreadOverTheCacheSets) {
  constexpr int workers = 32;
  locus::runtime rt(simulated("numa-ws-4x8", workers));
  constexpr std::size_t page = 4096, region = 128 * 1024;
  constexpr std::uint64_t lines = region / 64;
  std::vector<char> storage(workers * region + page);
  char* const data = storage.data() + (page - reinterpret_cast<std::uintptr_t>(storage.data()) % page) % page;
  locus::parallel_for(0, workers, 1, [&](int i) {
    char* const mine = data + static_cast<std::size_t>(i) * region;
    for (std::size_t at = 0; at < region; at += page) {
      locus::touch(mine + at, page, locus::access::write);
      locus::compute(50);  // lets the others touch theirs in between
    }
  });
  locus::reset_stats();
  locus::parallel_for(0, workers, 1, [&](int i) {
    char* const mine = data + static_cast<std::size_t>(i) * region;
    locus::touch(mine, region);
    locus::touch(mine, region);
  });
  // A piece read by a worker other than its writer comes from beyond L2
  // the first time; the second read is the one that measures the colors.
  const auto total = locus::get_stats().total();
  const std::uint64_t private_hits = total.counter("l1_hits") + total.counter("l2_hits");
  EXPECT_GE(private_hits, workers * lines * 9 / 10) << private_hits << " L1 or L2 hits of " << 2 * workers * lines << " reads";
}

// The place-by-place access matrix (LOCUS_STATS=json's access_matrix):
// region i is homed on node (i + 1) % 4 and read twice by whichever worker
// runs piece i; its lines come from DRAM, then from that worker's own L3
// (a region is larger than L2), so [the worker's place][the region's home]
// counts twice the region's lines, and nothing else is counted.
TEST(SimEngine, AccessMatrixCountsByPlaceAndHome) {
  locus::runtime rt(simulated("numa-ws-4x8", 4));  // one worker per socket: place p is node p
  constexpr std::size_t region = 1024 * 1024;     // 16384 lines: beyond L2, within L3
  constexpr std::uint64_t lines = region / 64;
  std::vector<char> storage(4 * region + 4096);
  char* const data = storage.data() + (4096 - reinterpret_cast<std::uintptr_t>(storage.data()) % 4096) % 4096;
  for (int i = 0; i < 4; ++i) locus::detail::simulate_place_pages(data + i * region, region, (i + 1) % 4);
  std::vector<int> reader(4, -1);
  locus::reset_stats();
  locus::parallel_for(0, 4, 1, [&](int i) {
    locus::touch(data + i * region, region);
    locus::touch(data + i * region, region);
    reader[static_cast<std::size_t>(i)] = locus::current_place();
  });
  std::vector<std::vector<std::uint64_t>> want(4, std::vector<std::uint64_t>(4, 0));
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_GE(reader[i], 0);
    want[static_cast<std::size_t>(reader[i])][(i + 1) % 4] += 2 * lines;
  }
  const locus::stats s = locus::get_stats();
  std::vector<std::vector<std::uint64_t>> got(4, std::vector<std::uint64_t>(4, 0));
  for (const auto& w : s.workers)
    for (std::size_t home = 0; home < 4; ++home)
      got[static_cast<std::size_t>(w.place)][home] += w.counter("beyond_private_home_" + std::to_string(home));
  EXPECT_EQ(got, want);
  std::string json = "\"access_matrix\":[";
  for (std::size_t place = 0; place < 4; ++place) {
    json += place ? ",[" : "[";
    for (std::size_t home = 0; home < 4; ++home) json += (home ? "," : "") + std::to_string(want[place][home]);
    json += "]";
  }
  EXPECT_NE(s.to_json().find(json + "]"), std::string::npos) << s.to_json();
  // The levels agree: one DRAM and one L3 access per line of each region.
  const auto total = s.total();
  EXPECT_EQ(total.counter("remote_dram") + total.counter("local_dram"), 4 * lines);
  EXPECT_EQ(total.counter("l3_hits"), 4 * lines);
}

TEST(SimEngine, SettingsAreChecked) {
  {
    locus::runtime_options o;
    o.machine = "numa-ws-4x8";  // without engine=sim
    EXPECT_THROW(
        {
          try {
            locus::runtime rt(o);
          } catch (const locus::config_error& e) {
            EXPECT_NE(std::string(e.what()).find("LOCUS_ENGINE=sim"), std::string::npos) << e.what();
            throw;
          }
        },
        locus::config_error);
  }
  {
    auto o = simulated("numa-ws-4x8", 4);
    o.topology = "2x2";
    EXPECT_THROW(locus::runtime rt(o), locus::config_error);
  }
  {
    auto o = simulated("no-such-machine", 4);
    try {
      locus::runtime rt(o);
      ADD_FAILURE() << "an unknown machine was accepted";
    } catch (const locus::config_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("no-such-machine"), std::string::npos) << what;
      EXPECT_NE(what.find("numa-ws-4x8"), std::string::npos) << what;
    }
  }
  {
    locus::runtime_options o;
    o.engine = "simulated";
    EXPECT_THROW(locus::runtime rt(o), locus::config_error);
  }
}

TEST(SimEngine, AnnotationsOffThePoolAreIgnored) {
  locus::runtime rt(simulated("numa-ws-4x8", 2));
  std::vector<char> data(4096);
  locus::reset_stats();
  locus::touch(data.data(), data.size());  // the main thread is not a worker
  locus::compute(1'000'000);
  const auto s = locus::get_stats();
  EXPECT_EQ(s.total().counter("l1_hits") + s.total().counter("local_dram"), 0u);
  EXPECT_EQ(s.elapsed_s, 0.0);
  EXPECT_EQ(locus::engine_name(), "sim");
}

TEST(SimEngine, BandwidthLimitQueuesAtTheMemoryController) {
  // 32 workers stream 32 MB that all lives on node 0: with 1 GB/s per
  // controller the sweep takes at least 32 ms of simulated time; at the
  // preset's own 42.7 GB/s, far less.
  constexpr std::size_t bytes = 32u << 20;
  std::vector<char> data(bytes);
  auto sweep = [&](const char* bandwidth) {
    if (bandwidth != nullptr) setenv("LOCUS_SIM_BANDWIDTH", bandwidth, 1);
    locus::runtime rt(simulated("numa-ws-4x8", 32));
    unsetenv("LOCUS_SIM_BANDWIDTH");
    locus::detail::simulate_place_pages(data.data(), bytes, 0);
    locus::reset_stats();
    locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(bytes / 4096), std::int64_t{1},
                        [&](std::int64_t page) { locus::touch(data.data() + page * 4096, 4096); });
    return locus::get_stats().elapsed_s;
  };
  const double preset = sweep(nullptr);
  const double limited = sweep("1");
  EXPECT_GE(limited, 0.032);
  EXPECT_LT(preset, 0.5 * limited);
  setenv("LOCUS_SIM_BANDWIDTH", "fast", 1);
  EXPECT_THROW(locus::runtime rt(simulated("numa-ws-4x8", 2)), locus::config_error);
  unsetenv("LOCUS_SIM_BANDWIDTH");
}
