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
#include <type_traits>
#include <vector>

#include "topology/topology.hpp"

namespace locus::detail {

struct fiber;

// Scheduling operations an engine may charge time for (the simulator does;
// the threaded engine measures instead). `other` names the worker whose
// lines the operation touches: the victim of a steal, the owner of a
// mailbox; -1 when there is none.
enum class sched_op { steal_attempt, mailbox, fiber_switch };

// What the core keeps per thread (which worker, which fiber runs). An
// engine that runs several workers on one thread saves and restores it
// when it switches between them (defined in core).
struct thread_identity {
  void* worker = nullptr;
  fiber* running = nullptr;
};
thread_identity save_thread_identity() noexcept;
void restore_thread_identity(const thread_identity& id) noexcept;

class engine {
 public:
  virtual ~engine() = default;
  virtual const char* name() const = 0;

  // Starts the placement's workers; worker i runs body(i) on its own thread
  // (pinned to its OS cpu when `pin`), or its own virtual thread, on core
  // places.worker_core[i].
  virtual void start_workers(const placement& places, bool pin, const std::function<void(int)>& body) = 0;
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

  // Runs fn(arg) for a thread that is not a worker (submitting a root task,
  // stopping the pool). The threaded engine runs it at once; the simulator
  // first waits until every worker sleeps, so that what the outside does
  // lands at the same simulated moment every run.
  virtual void from_outside(void (*fn)(void*), void* arg) { fn(arg); }
  // The same for a callable: run_from_outside([&] { ... }).
  template <class F>
  void run_from_outside(F&& f) {
    from_outside([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
  }

  // Worker `worker` performs `op` (see sched_op). Only on scheduling paths.
  virtual void charge(sched_op, int /*worker*/, int /*other*/) {}

  // The fiber worker i's body starts on, when the engine provides it (a
  // virtual thread's stack); nullptr: the body runs on its thread's stack.
  virtual fiber* home_fiber(int /*worker*/) { return nullptr; }

  // The simulator's per-worker memory accesses by where they were served
  // (L1, L2, own L3, remote L3, local DRAM, remote DRAM); false when the
  // engine does not model memory.
  virtual bool memory_accesses(int /*worker*/, std::uint64_t (& /*out*/)[6]) const { return false; }
};

// seed < 0 picks a random seed per run.
engine* make_threaded_engine(long long seed);

}  // namespace locus::detail
