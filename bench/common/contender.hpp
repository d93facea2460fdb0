// The contender computation of TBB-NUMA's composability experiment (seed
// 001, section 5.3, figures 16 and 17): while a benchmark runs, another
// parallel computation in a second arena asks for every worker, so the
// resource manager gives each an equal share of every place. Like the
// paper's, it is floating-point intensive and its working set (one 16 KiB
// block per piece) stays in the private caches, so the memory traffic
// measured is the benchmark's.
//
// Variant modifier +contender (harness.hpp): the runner runs the timed
// kernel in a task of the default arena with a contender beside it. It is
// started from inside the pool (a task enqueued to the contender's arena),
// so the simulator runs it too, and
// stopped when the kernel returns: the kernel's time includes the
// contender's last round (some microseconds of each worker), as a
// co-running computation's would.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <locus/locus.hpp>

namespace bench {

class contender {
 public:
  // Rounds of `pieces` pieces, each `passes` multiply-adds over its block.
  static constexpr int block_doubles = 2048;
  static constexpr int passes = 16;

  // Runs kernel() in the calling task's arena while the contender runs in
  // its own; returns once both are done. Call it from a task.
  template <class Kernel>
  static void beside(Kernel&& kernel) {
    locus::arena arena;  // every worker it can get (one per run: the runner starts a pool per variant)
    blocks_.resize(static_cast<std::size_t>(locus::num_workers()));
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> rounds{0};
    // Enqueued to the contender's arena, so that its own workers run it:
    // an execute from this task's worker would run it in place, and the
    // kernel's arena would lose that worker to the contender for the whole
    // run (the paper's contender has a thread of its own).
    locus::semaphore done(0);
    arena.enqueue([&stop, &rounds, &done] {
      run(stop, rounds);
      done.release();
    });
    kernel();
    stop.store(true, std::memory_order_release);
    done.acquire();
    last_rounds_ = rounds.load();
  }
  // Rounds the contender completed during the last kernel.
  static std::uint64_t last_rounds() { return last_rounds_; }

 private:
  static void run(const std::atomic<bool>& stop, std::atomic<std::uint64_t>& rounds) {
    const int pieces = 4 * locus::this_arena::max_concurrency();
    while (!stop.load(std::memory_order_acquire)) {
      locus::parallel_for(0, pieces, 1, [&](std::int64_t) {
        // Each worker's own block, first touched by it: private and cache
        // resident. (Not thread_local: the simulator's workers share a thread.)
        std::vector<double>& block = blocks_[static_cast<std::size_t>(locus::worker_id())];
        if (block.empty()) block.assign(block_doubles, 1.0);
        double* b = block.data();
        // Under the simulator: one pass over the block's lines (all hits
        // after the first round) and the passes' arithmetic, 2 flops an element.
        locus::touch(b, sizeof(double) * block_doubles, locus::access::write);
        locus::compute(2ull * passes * block_doubles);
        for (int pass = 0; pass < passes; ++pass)
          for (int i = 0; i < block_doubles; ++i) b[i] = b[i] * 0.999999 + 1e-6;
      });
      rounds.fetch_add(1, std::memory_order_relaxed);
    }
  }
  static inline std::vector<std::vector<double>> blocks_;
  static inline std::uint64_t last_rounds_ = 0;
};

}  // namespace bench
