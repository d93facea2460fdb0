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
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/machine_model.hpp"
#include "topology/topology.hpp"

namespace locus::detail {

struct fiber;

// The core's scheduling operations an engine may charge time for (the
// simulator does; the threaded engine measures instead). `other` names the
// worker whose lines the operation touches: the victim of a steal; -1 when
// there is none.
enum class sched_op { steal_attempt, fiber_switch };

// An operation a policy brings (NUMA-WS: a mailbox deposit or take),
// declared once when the pool starts: its name (machine files may price it
// as <name>_local / <name>_remote) and how many cache lines the other worker
// last wrote it moves, plus one locked read-modify-write.
struct operation_decl {
  std::string name;
  unsigned lines = 1;
};
// What declare_cost returns and charge takes.
struct cost_id {
  int index = -1;
};

// What the core keeps per thread (which worker, which fiber runs). An
// engine that runs several workers on one thread saves and restores it
// when it switches between them.
struct thread_identity {
  void* worker = nullptr;
  fiber* running = nullptr;
};
// How to save and restore it: two functions the core implements and hands
// over in engine_config, so that the engine names no core file (the
// interface is the engine's; the arrow runs core -> engine). Two function
// pointers rather than a class: the core has nothing else to say here.
struct thread_identity_ops {
  thread_identity (*save)() noexcept = nullptr;
  void (*restore)(const thread_identity& id) noexcept = nullptr;
};

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

  // One failed round of a spin-wait loop, `spins` rounds failed before it
  // (threads: 1,000 TSC ticks of pauses, then a yield as well).
  virtual void relax(unsigned spins) = 0;

  // An idle worker that sees nothing it may take anywhere (no frame in any
  // deque, inbox, shared queue or policy structure open to it) would only
  // fail attempt after attempt until something changes. An engine that can
  // tell when something may have changed waits here instead, until
  // notify_idle(), another worker's deque gains a frame, or until_ns, and
  // returns true; the caller then searches again, at the time its next
  // round would have begun (round_ns: how long its last round took, 0 if
  // unknown), and `skipped` says how many rounds it did not run. The
  // threaded engine cannot tell, and returns false at once: its workers
  // spin as before.
  virtual bool wait_for_work(std::uint64_t /*until_ns*/, std::uint64_t /*round_ns*/, std::uint64_t& /*skipped*/) {
    return false;
  }
  // Whether wait_for_work can wait at all (so that the caller asks what is
  // in sight only then).
  virtual bool waits_for_work() const { return false; }
  // What an idle searcher decides on changed: work was made visible
  // outside the owner's deque (an inbox deposit, a shared queue, a root, a
  // policy's own structure), or the last root finished. Workers in
  // wait_for_work search again.
  virtual void notify_idle() {}

  // Seed of worker i's random number generator.
  virtual std::uint64_t seed(int worker) = 0;

  // Runs fn(arg) for a thread that is not a worker (submitting a root task,
  // stopping the pool). The threaded engine runs it at once; the simulator
  // first waits until every worker sleeps, so that what the outside does
  // lands at the same simulated moment every run.
  virtual void from_outside(void (*fn)(void*), void* arg) { fn(arg); }
  // Whether the workers run at once on host threads (the threaded engine)
  // or one at a time on virtual threads (the simulator, where nothing
  // contends for a lock: structures split only against host contention,
  // such as the shared queues' lanes, keep one part there).
  virtual bool concurrent() const { return true; }
  // Whether from_outside waits until every worker sleeps: then, with no
  // computation in flight, nothing can arrive while a worker spins.
  virtual bool outside_waits_for_sleepers() const { return false; }
  // The same for a callable: run_from_outside([&] { ... }).
  template <class F>
  void run_from_outside(F&& f) {
    from_outside([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
  }

  // Worker `worker` performs `op` (see sched_op). Only on scheduling paths.
  virtual void charge(sched_op, int /*worker*/, int /*other*/) {}
  // Declares a policy's operation (before the workers start) and charges it.
  virtual cost_id declare_cost(const operation_decl&) { return {declared_++}; }
  virtual void charge(cost_id, int /*worker*/, int /*other*/) {}

  // The fiber worker i's body starts on, when the engine provides it (a
  // virtual thread's stack); nullptr: the body runs on its thread's stack.
  virtual fiber* home_fiber(int /*worker*/) { return nullptr; }

  // Per-worker figures only this engine knows (the simulator: memory
  // accesses by where they were served), by name, in a fixed order; stats
  // report them as they are (locus::worker_stats::engine_counters).
  virtual std::vector<std::string> counter_names() const { return {}; }
  // Writes worker's counters, one per name, to out.
  virtual void read_counters(int /*worker*/, std::uint64_t* /*out*/) const {}
  // The unit of the memory accesses those counters count, in bytes; 0 when
  // the engine counts none.
  virtual std::size_t access_unit_bytes() const { return 0; }
  // Core cycles worker has spent in locus::compute (the simulator's compute
  // model, besides its memory accesses); 0 when the engine models none.
  virtual std::uint64_t compute_cycles(int /*worker*/) const { return 0; }
  // The delay of a miss at each cache level, innermost first, in core
  // cycles: the next level's hit latency, local DRAM's after the last
  // level. Empty when the engine does not know them.
  virtual std::vector<std::uint64_t> miss_penalty_cycles() const { return {}; }

 private:
  int declared_ = 0;
};

// What an engine is built from (core/config.hpp's settings fill it in).
struct engine_config {
  // The simulator on this machine model; none: the threaded engine.
  std::optional<sim::machine_model> simulated_machine;
  std::size_t sim_block_bytes = 0;  // the simulator's unit of access; 0: the cache line
  bool sim_idle_attempts = true;    // the simulator simulates every failed idle attempt (engine.hpp, wait_for_work)
  long long seed = -1;              // < 0: random per run (the simulator then uses 1)
  thread_identity_ops identity;     // the core's; the simulator switches it with its workers
};
// The engine factory (engine/make_engine.cpp): the core names no concrete engine.
std::unique_ptr<engine> make_engine(const engine_config& config);
// The threaded engine (threaded_engine.cpp), for make_engine.
std::unique_ptr<engine> make_threaded_engine(long long seed);

}  // namespace locus::detail
