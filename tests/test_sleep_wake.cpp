// The sleep protocol (src/core/scheduler.cpp): while a computation is in
// flight no worker sleeps without a timer, and wake-ups reach every
// sleeper, not only the lowest-numbered ones. Under the simulator, so the
// runs are deterministic and nothing here depends on real timing.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "locus/locus.hpp"

namespace {

locus::runtime_options simulated(int workers) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "nabbitc-8x10";
  o.workers = workers;
  o.seed = 1;
  return o;
}

// A wavefront of n x n blocks (Smith-Waterman's shape): block (i, j) after
// (i-1, j), (i, j-1) and (i-1, j-1). compute_and_notify runs one ready
// successor in place, so the wavefront spreads only through steals and the
// wake-ups that follow them. Returns the simulated time and counts, per
// worker, the blocks it computed.
double run_wavefront(int workers, std::vector<int>& blocks_by_worker) {
  constexpr int n = 32;
  locus::runtime rt(simulated(workers));
  std::vector<std::atomic<int>> by_worker(static_cast<std::size_t>(workers));
  auto g = locus::make_task_graph<int>(
      [](int key) {
        const int i = key / n, j = key % n;
        std::vector<int> p;
        if (i > 0) p.push_back(key - n);
        if (j > 0) p.push_back(key - 1);
        if (i > 0 && j > 0) p.push_back(key - n - 1);
        return p;
      },
      [&](int) {
        locus::compute(50'000);  // simulated cycles
        by_worker[static_cast<std::size_t>(locus::worker_id())].fetch_add(1, std::memory_order_relaxed);
      });
  locus::reset_stats();
  g.run(n * n - 1);
  blocks_by_worker.clear();
  for (auto& c : by_worker) blocks_by_worker.push_back(c.load());
  return locus::get_stats().elapsed_s;
}

}  // namespace

// The fault this guards against: the workers that slept before the graph
// was submitted slept without a timer and were never chosen by a wake-up,
// so one worker computed almost every block in about the serial time
// (20, 40 and 80 workers: 0.97, 0.94 and 0.89 of it; 2, 3 and 5 workers
// computed blocks). The graph's parallelism is about 16 (1024 blocks, a
// critical path of 63) and no diagonal holds more than 32 blocks, so the
// bounds ask for a quarter of the serial time and ten busy workers; with
// the fix these runs take about a tenth and keep 20 to 30 workers busy.
TEST(SleepWake, AWavefrontGraphSpreadsOverManyWorkers) {
  std::vector<int> blocks;
  const double serial = run_wavefront(1, blocks);
  for (int p : {20, 40, 80}) {
    const double t = run_wavefront(p, blocks);
    int busy = 0, most = 0;
    for (int b : blocks) {
      busy += b > 0 ? 1 : 0;
      most = std::max(most, b);
    }
    EXPECT_LT(t, serial / 4) << p << " workers: " << t << " s simulated against " << serial << " s on one";
    EXPECT_GE(busy, 10) << p << " workers: only " << busy << " computed blocks";
    EXPECT_LT(most, 32 * 32 / 4) << p << " workers: one computed " << most << " of the 1024 blocks";
  }
}

// One long task and nothing else to do: every other worker, asleep without
// a timer before the task was submitted, is woken when the computation
// starts and then naps on a timer, so each sleeps more than once during it.
// (The pool's idle state between computations, timer-less sleep, is tested
// in test_fork_join.cpp.)
TEST(SleepWake, EverySleeperNapsOnATimerWhileAComputationRuns) {
  locus::runtime rt(simulated(16));
  locus::reset_stats();
  locus::fork_join([] { locus::compute(200'000'000); }, [] {});  // 0.1 s simulated
  const auto s = locus::get_stats();
  for (const auto& w : s.workers)
    if (w.work_s == 0) {
      EXPECT_GE(w.sleeps, 2u) << "worker " << w.worker << " went to sleep " << w.sleeps
                              << " times during the computation: it slept through it without a timer";
    }
}
