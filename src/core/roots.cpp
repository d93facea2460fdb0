// Root tasks: what a thread outside the pool (or a task entering another
// arena) submits, and how it waits. A parent-first child from outside
// (spawn_external), a work-first one (spawn_child_from_outside: the caller
// blocks until the child returns or its continuation is taken, as a
// worker's parent would resume), and a function run as the root of an
// arena (run_in_arena, run_on_pool: the caller blocks, or a task of another
// arena suspends, until it has returned).
#include <sched.h>

#include <cassert>
#include <exception>
#include <semaphore>
#include <utility>

#include "core/join.hpp"
#include "core/runtime_state.hpp"
#include "core/span.hpp"
#include "locus/detail/wait_queue.hpp"

namespace locus::detail {
namespace {
frame* run_external_job(frame* f) {
  runtime_state& rt = *this_worker().rt;
  const int arena = f->ctx.arena;  // the job is gone once it has run
  frame* next = run_parent_first_job(f);
  root_finished(rt, arena);
  return next;
}
}  // namespace

void spawn_external(group_state& g, frame* job) {
  runtime_state& rt = pool();
  job->run = &run_external_job;
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  g.stolen = true;  // runs elsewhere: sync must wait for it
  submit_root(rt, job);
}

// ---------------------------------------------------------------- work-first spawn from outside

namespace {
// The caller's continuation: taking it (its worker when the child returns,
// or a thief) lets the blocked caller go on.
struct outside_caller : frame {
  std::binary_semaphore* resume = nullptr;
};
frame* release_outside_caller(frame* f) {
  static_cast<outside_caller*>(f)->resume->release();  // the caller may be gone from here on
  return nullptr;
}

// The root frame of the spawn, on the blocked caller's stack.
struct outside_spawn : frame {
  parent_first_job* child = nullptr;
  outside_caller caller;
};

frame* run_outside_spawn(frame* f) {
  auto* spawn = static_cast<outside_spawn*>(f);
  // Read before the continuation is published: a thief that takes it lets
  // the caller return, and `spawn` with it.
  parent_first_job* child = spawn->child;
  frame* caller = &spawn->caller;
  const int arena = spawn->ctx.arena;
  this_worker().deque.push(caller);
  notify_push();
  frame* ready = run_parent_first_job(child);  // the child, counted out of its group
  // The child may have moved to another worker; as in take_back_parent, the
  // continuation is at the bottom of this worker's deque unless a thief took it.
  worker& now_on = this_worker();
  // pop_if: never takes (and loses) a frame of other work left at the bottom.
  if (now_on.deque.pop_if(caller)) release_outside_caller(caller);
  root_finished(*now_on.rt, arena);
  return ready;
}
}  // namespace

void spawn_child_from_outside(group_state& g, parent_first_job* child) {
  runtime_state& rt = pool();
  if (rt.cfg.span) {
    // LOCUS_SPAN runs constructs in serial order: the child as a measured
    // root, the caller after it.
    g.outstanding.fetch_add(1, std::memory_order_acq_rel);
    g.stolen = true;
    run_on_pool([](void* job) {
      [[maybe_unused]] frame* ready = run_parent_first_job(static_cast<parent_first_job*>(job));
      assert(ready == nullptr && "nobody waits on an outside group while its caller is blocked here");
    }, child);
    return;
  }
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  g.stolen = true;  // runs elsewhere: sync must wait for it
  std::binary_semaphore resume{0};
  outside_spawn spawn;
  spawn.run = &run_outside_spawn;
  spawn.ctx = child->ctx;
  spawn.child = child;
  spawn.caller.run = &release_outside_caller;
  spawn.caller.resume = &resume;
  submit_root(rt, &spawn);
  resume.acquire();
}

// ---------------------------------------------------------------- root tasks

namespace {
struct root_task : frame {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  std::exception_ptr error;
  one_shot done;
};

frame* run_root_task(frame* f) {
  auto* root = static_cast<root_task*>(f);
  const int arena = root->ctx.arena;
  // LOCUS_SPAN: the root's measure is in the totals before its submitter
  // can read them.
  const bool measured = (this_worker().hooks & hook_span) != 0;
  if (measured) span_root_begin(this_worker());
  try {
    root->fn(root->arg);
  } catch (...) {
    root->error = std::current_exception();
  }
  worker& w = this_worker();
  if (measured) span_root_end(w);
  if (w.borrowed_for == &root->done) {
    // On the worker its submitter borrowed (run_as): the root's work ends
    // here, and one clock read serves the busy time and the worker's.
    const std::uint64_t now = w.rt->eng->now_ns();
    root_finished_at(*w.rt, arena, now);
    switch_activity(w, activity::idle, now);
  } else {
    root_finished(*w.rt, arena);
  }
  root->done.set();  // the submitter may destroy root from here on
  return nullptr;
}
}  // namespace

// ---------------------------------------------------------------- entering as a worker
//
// oneTBB's rule for a thread that enters an arena (issue 44): the thread
// takes one of the arena's slots and runs f itself, and workers join as the
// arena's work grows. Handing f to a worker instead costs a hand-off and a
// wake-up each way, and a third thread on the cores. A locus worker is a
// slot: the entering thread takes a worker of the arena that sleeps
// (park_word parked -> borrowed, so that neither a waker nor the worker's
// own thread takes it meanwhile; scheduler.cpp, sleep), becomes that worker
// on its own thread, and runs the root on a fresh fiber of it, as the
// worker would have. What the root spawns is stealable and wakes sleepers
// as usual. The thread goes on as the worker while it finds work, and at
// the first search that finds none (borrowed_now, find_work) it comes back
// here and gives the worker back asleep. If the root moved meanwhile (a
// thief took its continuation), the thread then waits for it as before.
//
// The root never runs on the thread's own stack, so no continuation of it
// can be resumed on another thread with this stack under it. Not under the
// simulator (its workers are virtual threads that only it runs), nor with
// LOCUS_SPAN (a measured root runs as submitted), nor when no worker the
// arena may use and the policy lets take roots sleeps.
namespace {

// This thread's own stack as a fiber, and its signal stack for the stack
// guard's message, made once per thread and released at its exit. Out of
// line (a thread-local): see fiber.hpp, running_fiber.
struct outside_thread_state {
  fiber* home = nullptr;
  ~outside_thread_state() {
    if (home == nullptr) return;
    delete home;
    remove_alt_stack_for_thread();
  }
};
[[gnu::noinline]] fiber* outside_thread_home() {
  static thread_local outside_thread_state state;
  if (state.home == nullptr) {
    install_alt_stack_for_thread();
    state.home = thread_stack_fiber();
  }
  return state.home;
}

// Whether worker w may run a root of `arena` now: the arena's (by the
// resource manager's deal) and allowed roots by the policy.
bool may_run_root(const runtime_state& rt, worker& w, int arena) {
  if (rt.arenas.engaged() && rt.arenas.target(w.id) != arena) return false;
  return !rt.policy_filters_work || rt.policy->may_take(w, nullptr);
}

// The worker's thread waits in its sleep with nothing more to write of it
// (borrowable, acquire: what it wrote before is seen here) and nobody has
// claimed it: it is ours until given back.
bool borrow(worker& w) {
  return w.borrowable.load(std::memory_order_acquire) && w.leave_parked(worker::borrowed);
}

// A worker that may run a root of `arena`, now borrowed, or nullptr. A
// sleeping one first, on the CPU this thread runs on if there is one (its
// caches, its place). Else one that searches in vain is asked to sleep at
// once and borrowed when it does, within LOCUS_SPIN_US: a worker kept
// awake by the roots it was handed would otherwise never sleep between
// entries, and every entry would be a hand-off.
worker* borrow_worker(runtime_state& rt, int arena) {
  const int cpu = sched_getcpu();
  worker* other = nullptr;
  worker* searching = nullptr;
  for (auto& candidate : rt.workers) {
    worker& w = *candidate;
    const std::uint32_t word = w.park_word.load(std::memory_order_relaxed);
    if (word == worker::borrowed || !may_run_root(rt, w, arena)) continue;
    if (word != worker::parked) {
      if (searching == nullptr && w.published_activity.load(std::memory_order_relaxed) ==
                                      static_cast<std::uint8_t>(activity::idle))
        searching = &w;
    } else if (rt.places.worker_os_cpu[static_cast<std::size_t>(w.id)] != cpu) {
      if (other == nullptr) other = &w;
    } else if (borrow(w)) {
      return &w;
    }
  }
  if (other != nullptr && borrow(*other)) return other;
  if (searching == nullptr) return nullptr;
  searching->sleep_request.store(true, std::memory_order_release);
  const std::uint64_t since = rt.eng->now_ns();
  for (unsigned spins = 0;; ++spins) {
    if (searching->park_word.load(std::memory_order_acquire) == worker::parked && borrow(*searching)) return searching;
    if (spins % 64 == 63 && rt.eng->now_ns() - since >= rt.spin_ns) break;
    rt.eng->relax(spins);
  }
  searching->sleep_request.store(false, std::memory_order_relaxed);
  return nullptr;
}

// Runs `root` as worker w on this thread until w finds nothing to do, or
// the root is done and w has nothing of its own left (scheduler.cpp,
// find_work). `started_ns`: when the root started (its busy-time start).
void run_as(runtime_state& rt, worker& w, root_task& root, std::uint64_t started_ns) {
  fiber* const home = outside_thread_home();
  fiber* const own_home = w.home;
  w.home = home;  // where its loop returns (go_home) when the search finds nothing
  w.borrowed_for = &root.done;
  switch_activity(w, activity::work, started_ns);  // it slept until now
  bind_thread_to_worker(&w);
  set_running_fiber(home);
  // Its deque is empty (it slept). Under a policy whose arenas share every
  // worker, every worker serves the default arena.
  if (rt.arenas.isolating()) serve_arena(w, root.ctx.arena);
  switch_msg start{switch_msg::kind::start_job, nullptr, &root};
  after_resume(switch_fiber(home, w.fibers.take_to_start(), &start, false));
  // Back on this thread's stack: w found nothing more to do.
  w.borrowed_for = nullptr;
  w.home = own_home;
  set_running_fiber(nullptr);
  bind_thread_to_worker(nullptr);
  // Given back asleep. Its thread sleeps on, without a timer if it went to
  // sleep with no computation in flight. The sleep protocol (scheduler.cpp)
  // has the start of a computation wake every sleeper, so that none sleeps
  // without a timer while one is in flight; a borrowed root does not (the
  // borrower is the computation's worker meanwhile, and it leaves only when
  // it finds nothing to do), so if a computation is still in flight when it
  // leaves (the root moved on, or another thread's), or the pool stops, every
  // sleeper is woken now. The seq_cst store and read pair with
  // root_started's RMW and its reads of every park_word (runtime.cpp): one
  // of the two sees the other.
  w.park_word.store(worker::parked, std::memory_order_seq_cst);
  if (!w.deque.looks_empty() || !w.posted.looks_empty()) wake_if_parked(rt, w);  // its frames need it
  if (rt.roots_in_flight.load(std::memory_order_seq_cst) > 0 || rt.stopping.load(std::memory_order_seq_cst))
    wake_all_sleepers(rt);
}

// Starts `root` from this thread outside the pool: as a borrowed worker when
// one sleeps, else queued for the workers (submit_root).
void start_from_outside(runtime_state& rt, root_task& root) {
  // A place-limited arena's tasks run only on its place's cores, which this
  // thread, unpinned, is not confined to: its roots go to its workers.
  if (!rt.eng->concurrent() || rt.cfg.span || rt.arenas.slot(root.ctx.arena).only_place.load(std::memory_order_relaxed) >= 0)
    return submit_root(rt, &root);
  const int arena = root.ctx.arena;
  // Borrowed before the root counts (so that a worker asked to sleep
  // sleeps without a timer: no computation is in flight yet), by the deal
  // in force; checked again once the root's start may have changed it.
  worker* w = borrow_worker(rt, arena);
  if (w == nullptr) return publish_root(rt, &root, root_started(rt, arena));
  // One clock read for the busy time and the borrowed worker's account.
  const std::uint64_t now = rt.eng->now_ns();
  const bool starts_computation = root_started_at(rt, arena, now);
  if (!may_run_root(rt, *w, arena)) {
    w->park_word.store(worker::parked, std::memory_order_seq_cst);
    wake_if_parked(rt, *w);  // it may have slept without a timer
    return publish_root(rt, &root, starts_computation);
  }
  run_as(rt, *w, root, now);
}

// fn(arg) as a root of `arena`; from a thread outside the pool as one of
// its workers if `may_enter` (start_from_outside).
void run_root(int arena, void (*fn)(void*), void* arg, bool may_enter) {
  runtime_state& rt = pool();
  root_task root;
  root.run = &run_root_task;
  root.fn = fn;
  root.arg = arg;
  root.ctx.arena = static_cast<std::uint16_t>(arena);
  if (current_worker() == nullptr) {
    if (may_enter) start_from_outside(rt, root);
    else submit_root(rt, &root);
  } else {
    // A task of another arena: a root is in flight already, so this starts
    // no computation; the task suspends until the root has returned, and
    // then resumes in its own arena (through its shared queues).
    root_started(rt, arena);
    queue_shared(rt, &root);
  }
  root.done.wait();
  if (root.error) std::rethrow_exception(root.error);
}
}  // namespace

void run_in_arena(int arena, void (*fn)(void*), void* arg) { run_root(arena, fn, arg, false); }

// Arena entry from a task (issue 44, oneTBB's rule): the task's worker
// runs fn itself, as a member of the arena, when it may serve it (its
// deque and inbox empty: no frame of its own arena is left where the
// arena's thieves look) and the arena has a free slot; else fn is handed
// to the arena's workers as a root (run_in_arena). fn runs as a root of
// the arena would: a fresh context, frames and thieves of that arena only.
// Its demand is counted only once fn spawns, forks, posts or suspends
// (register_entry_demand): a short entry that does none of these moves no
// worker, as a oneTBB arena asks for workers only once work is spawned in
// it. From then on the arena has its full share and this worker beside it
// until fn returns (oneTBB's arena also has a master beyond its workers'
// slots when it reserves none for masters). Not under a policy that
// observes task events (hook_task_events: it sees roots begin and end),
// nor when measuring (LOCUS_SPAN).
bool enter_arena_in_place(worker& w, int arena, void (*fn)(void*), void* arg) {
  runtime_state& rt = *w.rt;
  if ((w.hooks & (hook_task_events | hook_span)) != 0 || !w.deque.looks_empty() || !w.posted.looks_empty() ||
      !rt.arenas.try_enter(arena, w.place))
    return false;
  const task_context caller_ctx = w.ctx;
  in_place_entry entry{arena, false, w.entry};
  w.entry = &entry;
  w.hooks |= hook_arena_entry;
  w.ctx = task_context{};
  w.ctx.arena = static_cast<std::uint16_t>(arena);
  serve_arena(w, arena);
  // Back to the caller's arena on the worker fn ends on: fn may have
  // suspended (then its demand was counted) and resumed on another worker,
  // which found it with its deque empty, as fn leaves it.
  const auto leave = [&] {
    worker& now = this_worker();
    if (now.entry == &entry) {  // still pending, so on the worker it began on
      now.entry = entry.outer;
      if (now.entry == nullptr) now.hooks &= static_cast<std::uint16_t>(~hook_arena_entry);
    }
    assert((entry.demand || &now == &w) && "an entry that moved workers had its demand counted");
    if (entry.demand) root_finished(rt, arena);
    else rt.arenas.end_lend(arena);
    now.ctx = caller_ctx;
    serve_arena(now, caller_ctx.arena);
  };
  try {
    fn(arg);
  } catch (...) {
    leave();
    throw;
  }
  leave();
  return true;
}

void register_entry_demand(worker& w) {
  in_place_entry* e = std::exchange(w.entry, nullptr);
  w.hooks &= static_cast<std::uint16_t>(~hook_arena_entry);
  // Each becomes a root of its arena, dealt workers like any other; the
  // slot it held as a lender is given back, since a suspended entry holds
  // no worker and would keep the lenders its arena may need away.
  for (; e != nullptr; e = e->outer) {
    e->demand = true;
    root_started(*w.rt, e->arena);
    w.rt->arenas.end_lend(e->arena);
  }
}

void enter_arena(int arena, void (*fn)(void*), void* arg) { run_root(arena, fn, arg, true); }

void run_on_pool(void (*fn)(void*), void* arg) { run_in_arena(0, fn, arg); }

}  // namespace locus::detail
