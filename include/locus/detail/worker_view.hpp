// The part of a worker that the inline fast path (fork_join, task_group)
// touches, and the out-of-line slow paths it calls. Everything else about a
// worker lives in src/core/worker.hpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

#include "locus/detail/deque.hpp"
#include "locus/detail/frame.hpp"

namespace locus::detail {

// A counter written by one worker and read by anyone: a relaxed load and
// store, which is a plain increment on x86 and aarch64 (no locked RMW).
struct owner_counter {
  std::atomic<std::uint64_t> value{0};
  void bump() noexcept { value.store(value.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  std::uint64_t read() const noexcept { return value.load(std::memory_order_relaxed); }
};

struct worker_view {
  work_deque deque;
  owner_counter spawns;
  int id = 0;
  int place = 0;
  // The running task's context (frame.hpp), inherited by the frames it
  // creates: its place hint (NUMA-WS III-A) and the policy's state.
  task_context ctx;
  // Hooks asked for on this worker (hook_* bits: the core's below and in
  // src/core/worker.hpp, the policy's in src/policy/spi/hooks.hpp); zero
  // for ws and numa-ws, so the fast path pays one test of a word on a hot
  // line.
  std::uint16_t hooks = 0;
  // The arena this worker serves (locus::arena; 0, the default arena, until
  // one is created). Written by the worker itself, between tasks and with
  // its deque empty (src/core/arenas.hpp); thieves read it to steal only
  // within their arena (policy_context::steal_attempt).
  std::atomic<std::uint16_t> arena{0};
};

// The bits of worker_view::hooks that the public headers read: the core
// sets them on every worker when tracing (LOCUS_TRACE: spawns and forks
// draw their tasks as slices, trace_hooks.hpp) or measuring work and span
// (LOCUS_SPAN=1: constructs run serially and time their strands,
// span_hooks.hpp). The bits a policy sets are the policy interface's
// (src/policy/spi/hooks.hpp); the headers only test the byte for zero,
// except hook_exact_affinity below.
inline constexpr std::uint8_t hook_trace = 8;
inline constexpr std::uint8_t hook_span = 16;
// The one policy bit a public header reads (posted_loops.hpp, after a
// loop_affinity loop): the next run posts each sub-range to exactly the
// worker that started it this time, as oneTBB's affinity_partitioner
// records it (note_affinity), without locus's cap of a share per worker.
// Set by tbb-std, whose spawns take the cold path anyway.
inline constexpr std::uint8_t hook_exact_affinity = 128;

// ------------------------------------------------------------ cold spawns
// The one way from the public headers into a policy's spawn decisions
// (src/core/spawn_hooks.cpp), taken only on workers whose hooks word is
// nonzero, once the headers have handled measuring (hook_span) and
// tracing (hook_trace), which need the callable's type.
struct group_state;
struct parent_first_job;
struct spawn_request;
struct fork_job;

// A task group's child whose type the library cannot see: it may start it
// work-first (`start` moves it onto the child's stack; the request's
// callable is then a hooked_start) or queue it (`queue` moves it into a
// parent-first job of the group).
struct erased_child {
  void* callable;  // the caller's, alive until the spawn returns
  void (*start)(spawn_request&);
  parent_first_job* (*queue)(void* callable, group_state* group);
};
// What a hooked work-first child starts with: its callable, its context,
// and the distributing group it reports to when done (or nullptr).
struct hooked_start {
  void* callable;
  task_context ctx;
  const task_context* report_to;
};

// A task group's hints (locus::work, locus::footprint) and the state a
// policy that distributes work keeps between its spawns. Only `flags` is
// initialized on the fast path; the rest is read when the flags say so.
inline constexpr std::size_t unknown_footprint = ~std::size_t{0};
struct group_hints {
  static constexpr std::uint8_t work_given = 1;       // constructed with locus::work(total)
  static constexpr std::uint8_t distributed = 2;      // the policy distributed (or tied) this round
  static constexpr std::uint8_t footprint_given = 4;  // constructed with locus::footprint(bytes)
  group_hints() noexcept {}
  std::uint8_t flags = 0;
  double work_total;
  double work_left;
  std::size_t footprint;
  union {
    task_context ctx;  // the group's context once a round opened
  };
};

// task_group::spawn on a worker with hooks; `first`: the group's first
// spawn since its creation or its last sync. Returns whether the child was
// spawned; if not, the caller starts it work-first as on any worker.
bool spawn_hooked(worker_view& w, group_state& g, group_hints& h, const erased_child& c, bool first,
                  std::int32_t place, double work, bool parent_first);
// task_group::enqueue on a worker with hooks, before its job is queued.
void enqueue_hooked(worker_view& w, group_state& g, group_hints& h, bool first);
// The sync of a group whose round the policy distributed is done.
void group_synced_hooked(group_hints& h);
// A child that ran with a share of a distributing group's work is done.
void report_done(const task_context& group, const task_context& child);

// One fork_join branch as the library sees it.
struct erased_branch {
  void* callable;
  void (*invoke)(void*);
  std::int32_t place;  // its own place if hinted, else the parent's
  bool hinted;
  double work;         // locus::work, or below 0
  std::size_t bytes;   // locus::footprint, or unknown_footprint
};
// fork_join on a worker with hooks: pushes the job (returns true), or runs
// both branches another way, as the policy decided (returns false).
bool fork_hooked(worker_view& w, fork_job& job, const erased_branch& f, const erased_branch& g);

// The worker running the caller, or nullptr off the pool. Not inline on
// purpose: a fiber can resume on another thread, and the compiler must not
// reuse a thread-local address computed before a call that may switch.
worker_view* current_worker() noexcept;

// Wakes a sleeping worker if work just appeared and no worker is looking for
// it. Called after a push; its fast check is one relaxed load.
extern std::atomic<std::uint64_t> g_idle_state;  // (sleeping << 32) | searching
// Work appeared and nobody is looking for it, but somebody sleeps.
inline bool sleeper_should_wake(std::uint64_t idle_state) noexcept {
  return (idle_state >> 32) != 0 && static_cast<std::uint32_t>(idle_state) == 0;
}
void wake_for_new_work() noexcept;
// Always inline: it is on the fork and spawn fast paths, whose callers may be large.
[[gnu::always_inline]] inline void notify_push() noexcept {
  if (sleeper_should_wake(g_idle_state.load(std::memory_order_relaxed))) [[unlikely]] wake_for_new_work();
}

// A suspended fiber that can be resumed on any worker: through its saved
// Boost.Context context, or (a work-first spawn's parent on x86-64) through
// the stack pointer locus_call_on_stack saved (src/core/stack_call.hpp).
struct continuation : frame {
  void* fiber = nullptr;     // src/fiber/fiber.hpp
  void* saved_sp = nullptr;  // non-null: resume with locus_resume_saved
};

// ---------------------------------------------------------------- fork_join
// The second branch of fork_join, made stealable while the first runs.
struct fork_job : frame {
  enum : int { pending = 0, done = 1, parent_waiting = 2 };
  fork_job(void* g, void (*inv)(void*), const task_context& c) noexcept : callable(g), invoke(inv) {
    run = &run_fork_job_entry;
    ctx = c;
  }
  ~fork_job() {}
  static frame* run_fork_job_entry(frame* f);
  std::atomic<int> state{pending};
  void* callable;
  void (*invoke)(void*);
  std::exception_ptr error;
  // The parent, when it suspends waiting for us. Constructed only then (on
  // the slow path), so the fast path does not pay for initializing it.
  union {
    continuation waiter;
  };
};
void join_stolen_fork_job(fork_job& job);   // the parent waits for a stolen one

// --------------------------------------------------------------- task_group
struct group_state {
  group_state() noexcept {}
  ~group_state() {}
  // Children of this group running elsewhere (continuation steals add one,
  // each such child subtracts one when done; parent-first jobs that were
  // stolen are added at sync), plus waiting_bias once the parent waits.
  std::atomic<std::int64_t> outstanding{0};
  static constexpr std::int64_t waiting_bias = std::int64_t{1} << 40;
  // Some child may be running elsewhere: a continuation of the parent was
  // stolen, or a child was routed by the policy or submitted from outside.
  bool stolen = false;
  std::int32_t parent_first_pending = 0;  // parent-first jobs pushed, not yet popped
  // `threw`: a child threw, `error` holds the first exception; `canceled`:
  // task_group::cancel(), children not yet started are skipped (relaxed:
  // cooperative, a child that starts just before it runs to its end). One
  // word, so that sync's fast path tests both at once.
  static constexpr std::uint8_t threw = 1, canceled = 2;
  std::atomic<std::uint8_t> status{0};
  std::exception_ptr error;
  void* external_waiter = nullptr;  // semaphore of a non-worker parent
  // The parent suspended at sync; constructed only on that slow path.
  union {
    continuation waiter;
  };
  void record_error(std::exception_ptr e) noexcept {
    if (!(status.fetch_or(threw, std::memory_order_acq_rel) & threw)) error = std::move(e);
  }
  bool has_error() const noexcept { return status.load(std::memory_order_relaxed) & threw; }
  bool canceling() const noexcept { return status.load(std::memory_order_relaxed) & canceled; }
};

// The parent's continuation after a work-first spawn; a thief that takes it
// counts one more outstanding child in `group` (join.cpp).
struct spawn_continuation : continuation {
  spawn_continuation(group_state* g, const worker_view& w) noexcept : group(g) {
    kind = frame_kind::continuation;
    run = &steal_spawn_parent;
    ctx = w.ctx;
  }
  static frame* steal_spawn_parent(frame* f);  // join.cpp
  group_state* group;
  // The fiber the child runs on, unique while it runs: with the address, the
  // key by which the child's return knows its own parent's frame (a task's
  // next spawn reuses the address; join.cpp, take_back_parent).
  void* child_fiber = nullptr;
};

// A work-first spawn: the child starts on a fresh fiber of this worker. The
// trampoline moves the callable onto the child's stack, calls
// publish_parent() (which makes the parent's continuation stealable), then
// runs it.
struct spawn_request {
  worker_view* spawner;  // the child publishes the parent here, before it can migrate
  void* callable;
  void (*trampoline)(spawn_request&);
  spawn_continuation parent;
};
void spawn_child(worker_view& w, spawn_request& req);
void publish_parent(spawn_request& req) noexcept;

// A parent-first (help-first) spawn: the child is queued and the parent goes on.
struct parent_first_job : frame {
  group_state* group;
  void (*invoke)(parent_first_job*);   // runs and destroys the callable
  const task_context* report_to = nullptr;  // a distributing group's context (spawn_hooks.cpp)
};
// The policy decides where a parent-first child goes; it then counts as
// outstanding in its group, like a stolen one.
void route_spawn(group_state& g, frame* f);
// Posts a parent-first child to worker `target`'s inbox (the loop layer's
// static partitions and loop affinity); counted as outstanding in its group.
// owner_only: no other worker may take it from the inbox (a static block).
// Returns false, having done nothing, when that inbox is full or `target` is
// not a worker: the caller then runs the child itself.
bool post_child(group_state& g, parent_first_job* job, int target, bool owner_only) noexcept;
void* allocate_job(std::size_t bytes);            // per-worker pool; never null
void free_job(void* p, std::size_t bytes) noexcept;
frame* run_parent_first_job(frame* f);            // by whoever took it
void sync_group(group_state& g);                  // slow path of sync
void spawn_external(group_state& g, frame* job);  // non-worker parent, parent-first
// task_group::enqueue: the job goes to its place's shared queue (from a
// worker or not), counted as outstanding in its group.
void enqueue_child(group_state& g, frame* job);
// Jobs that any task of group g may queue, not only the group's owner (a
// pipeline's tasks, each of which may queue the next input or an item
// handed on, as oneTBB's pipeline tasks spawn theirs). Each counts as
// outstanding in g, like a stolen child, so a queuing task must itself be
// counted there (or be the owner); the owner sets g.stolen before the
// first, so that its sync waits for them. From a worker only.
void push_counted_child(group_state& g, parent_first_job* job);     // this worker's deque
void enqueue_counted_child(group_state& g, frame* job);  // job->ctx.place's shared queue
// locus::enqueue: a task nobody joins. It counts as a root in flight until
// it returns, so the pool does not stop before it has run.
struct detached_job : frame {
  void (*invoke)(detached_job*);  // runs and destroys the callable
};
// In arena `arena`, or (-1) the caller's: the running task's, or the
// default arena from a thread outside the pool.
void submit_detached(detached_job* job, int arena = -1);
// A work-first spawn from a thread that is not a worker: the child starts at
// once as a root task on a worker, which first makes the caller's
// continuation stealable; the caller blocks until the child has returned or
// a thief has taken that continuation, as a worker's parent would resume
// (join.cpp). On one worker the order is the serial elision's.
void spawn_child_from_outside(group_state& g, parent_first_job* child);

// Runs fn(arg) as a root task on the pool and blocks the calling (non-worker)
// thread until it is done; rethrows what it threw.
void run_on_pool(void (*fn)(void*), void* arg);
// The same in arena `arena` (locus::arena::execute), from a thread outside
// the pool (which blocks) or from a task of another arena (which suspends).
void run_in_arena(int arena, void (*fn)(void*), void* arg);

}  // namespace locus::detail
