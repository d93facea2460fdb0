// The running pool: settings, placement, engine, policy, workers, and the
// queue through which threads that are not workers submit root tasks.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/arenas.hpp"
#include "core/config.hpp"
#include "core/job_depot.hpp"
#include "fiber/fiber.hpp"
#include "core/worker.hpp"
#include "engine/engine.hpp"
#include "locus/stats.hpp"
#include "policy/spi/registry.hpp"
#include "topology/topology.hpp"
#include "trace/recorder.hpp"

namespace locus::detail {

struct runtime_state {
  explicit runtime_state(settings s);
  ~runtime_state();
  runtime_state(const runtime_state&) = delete;
  runtime_state& operator=(const runtime_state&) = delete;

  settings cfg;
  placement places;
  std::unique_ptr<engine> eng;
  policy_context policy_ctx;  // what the policy sees of all this
  std::unique_ptr<policy_base> policy;
  bool policy_filters_work = false;  // policy->may_take can say no
  fiber_pool& fibers;  // process-wide (fiber_pool::shared)
  std::vector<std::unique_ptr<worker>> workers;
  job_depot jobs;  // job blocks the workers' free lists gave back (job_pool.cpp)
  // The arenas (core/arenas.hpp): each one's shared queues and demand, and
  // which arena each worker serves. Slot 0 is the default arena.
  arena_manager arenas;
  std::atomic<int> roots_in_flight{0};  // changed by root_started/root_finished
  std::mutex busy_mutex;
  std::uint64_t busy_since_ns = 0;
  std::atomic<std::uint64_t> busy_ns{0};
  std::atomic<bool> stopping{false};
  std::uint64_t spin_ns = 0;
  // LOCUS_TRACE: the recorder, or null (docs/observability.md). Written to
  // its file once the workers have stopped.
  std::unique_ptr<trace::recorder> trace;
  // LOCUS_SPAN: the roots' work, span and burdened span (ns), summed over
  // roots as they finish (core/span.cpp).
  struct span_totals {
    std::atomic<std::uint64_t> work_ns{0}, span_ns{0}, burdened_ns{0}, roots{0};
  } span;
  // What reset_stats() saw; get_stats() reports the difference (stats.cpp).
  struct {
    std::mutex mutex;
    std::vector<locus::worker_stats> workers;  // empty: never reset
    std::uint64_t busy_ns = 0;
    std::uint64_t span_work_ns = 0, span_ns = 0, span_burdened_ns = 0, span_roots = 0;
  } baseline;

 private:
  // Fills policy_ctx from the workers, placement, engine and settings, and
  // declares the policy's operations to the engine.
  void build_policy_context(const policy_entry& entry);
};

// The pool, or nullptr before it starts. Starting it on first use takes a
// lock; reading it afterwards is one acquire load.
runtime_state* pool_if_started() noexcept;
runtime_state& pool();  // starts the pool from the environment if needed

// locus::arena::execute from a thread outside the pool: run_in_arena, but
// the thread runs fn itself as one of the arena's workers when one sleeps
// (roots.cpp, oneTBB's rule for a thread entering an arena).
void enter_arena(int arena, void (*fn)(void*), void* arg);
// locus::arena::execute from a task of another arena: fn runs here, in
// place, as a member of the arena, when the worker's deque and inbox are
// empty and the arena has a free slot (oneTBB's rule for a thread that
// enters an arena); returns false, having run nothing, otherwise.
bool enter_arena_in_place(worker& w, int arena, void (*fn)(void*), void* arg);
// The running task's arenas entered in place are counted as roots of
// those arenas, which gets them their share of workers (the resource
// manager): at its first spawn, fork, post or suspension there
// (hook_arena_entry), as oneTBB's arena asks for workers once work is
// spawned in it. Cold.
[[gnu::noinline]] void register_entry_demand(worker& w);
// register_entry_demand if the running task has an entry pending: what
// every spawn, fork, post, suspension and share query asks first.
inline void count_entry_demand(worker& w) {
  if (w.hooks & hook_arena_entry) [[unlikely]] register_entry_demand(w);
}
// Submits a root frame from outside the pool, in the arena of its context,
// and wakes a worker.
void submit_root(runtime_state& rt, frame* f);
// submit_root's second half, once root_started has counted the root (and
// said whether it starts a computation): queue it and wake a worker.
void publish_root(runtime_state& rt, frame* f, bool starts_computation);
// Puts a frame in its arena's shared queue from a worker and wakes a worker
// of that arena: one of the frame's place if it has a place hint and one
// sleeps there.
void queue_shared(runtime_state& rt, frame* f);
// A root task of arena `arena` entered or left the pool; busy_ns() is the
// time during which at least one was in flight, by the engine's clock.
// root_started returns whether this root starts a computation (none was in
// flight). An arena's first root and its last one's return change what it
// asks of the resource manager (core/arenas.hpp).
bool root_started(runtime_state& rt, int arena);
void root_finished(runtime_state& rt, int arena);
// The same, for a caller that has just read the engine's clock (now_ns)
// for its own account: a clock read costs tens of ns on a guest, a few
// times the rest of an arena entry's bookkeeping.
bool root_started_at(runtime_state& rt, int arena, std::uint64_t now_ns);
void root_finished_at(runtime_state& rt, int arena, std::uint64_t now_ns);
std::uint64_t busy_ns(runtime_state& rt);

// The scheduling loop (scheduler.cpp).
void worker_main(runtime_state& rt, int index);
// Wakes one sleeper of arena `arena`, looking from worker `start` on
// (modulo the count).
void wake_one_sleeper(runtime_state& rt, int start, int arena) noexcept;
// Wakes every sleeper: a computation starts, and those that fell asleep
// while none was in flight have no timer (scheduler.cpp, sleep protocol).
void wake_all_sleepers(runtime_state& rt) noexcept;
// Wakes a sleeper of arena `arena` that the policy lets take work that
// appeared in source's deque (source == nullptr: in the arena's shared
// queues).
void wake_sleeper_for(runtime_state& rt, const worker_view* source, int arena) noexcept;
// Whether worker w serves arena `arena`, or will once it next looks for
// work (its target): the sleepers a wake may choose.
bool serves(const runtime_state& rt, const worker& w, int arena) noexcept;
// Forwards a frame that reached a worker of another arena to its own
// arena's shared queues (arenas.hpp).
void forward_to_arena(runtime_state& rt, worker& w, frame* f);
// Wakes w if it sleeps; returns whether it did (scheduler.cpp).
bool wake_if_parked(runtime_state& rt, worker& w) noexcept;
// Makes w serve arena `arena` (its deque empty); scheduler.cpp.
void serve_arena(worker& w, int arena);

}  // namespace locus::detail
