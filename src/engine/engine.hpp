// The seam between the scheduler and the world.
//
// Everything a worker does that touches wall-clock time, thread creation,
// sleeping and waking, randomness, or a point where workers interleave (a
// spin-wait) goes through an engine. The threaded engine maps these onto OS
// threads, futexes and the steady clock. A simulator can implement the same
// interface with virtual workers on one OS thread and a virtual clock, and
// run the very same scheduler and policy code deterministically.
//
// Only the scheduling paths call the engine (steals, sleeping, suspending);
// the spawn/sync fast path never does, so the seam costs nothing there.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace locus::detail {

class engine {
 public:
  virtual ~engine() = default;
  virtual const char* name() const = 0;

  // Starts `count` workers; worker i runs body(i) on its own thread (pinned
  // to os_cpu[i] when that is >= 0). Returns once all have started.
  virtual void start_workers(int count, const std::function<void(int)>& body,
                             const std::vector<int>& os_cpu) = 0;
  // Waits for every worker's body to return.
  virtual void join_workers() = 0;

  // Monotonic time in nanoseconds.
  virtual std::uint64_t now_ns() = 0;

  // Sleeps while *word == expected, until wake(word) or timeout_ns passes
  // (0 = no timeout). May return spuriously.
  virtual void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                    std::uint64_t timeout_ns) = 0;
  virtual void wake(std::atomic<std::uint32_t>& word) = 0;

  // One step of a spin-wait loop (a pause, or a yield when oversubscribed).
  virtual void relax(unsigned spins) = 0;

  // Seed of worker i's random number generator.
  virtual std::uint64_t seed(int worker) = 0;
};

// seed < 0 picks a random seed per run.
engine* make_threaded_engine(long long seed);

}  // namespace locus::detail
