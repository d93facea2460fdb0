// The join protocols: what happens when a spawned child or a fork_join branch
// was stolen. Nothing here runs on the fast path (spawn and sync with
// nothing stolen); this is where the work-first principle puts the cost.
//
// task_group (Cilk-style continuation stealing, NUMA-WS figure 2):
//   spawn: the child runs on a fresh fiber; the parent's continuation is on
//   the deque. When the child returns it pops: if it gets its parent back,
//   nothing was stolen and it switches straight to it. Otherwise a thief took
//   the parent (and added 1 to group.outstanding before resuming it), and the
//   child subtracts 1.
//   sync: if nothing was stolen, nothing to do. Otherwise the parent suspends
//   and adds waiting_bias (plus the parent-first children that were stolen).
//   Whoever brings outstanding to exactly waiting_bias resumes the parent:
//   the parent itself (all done already) or the last child returning. A
//   child's -1 can land before its thief's +1, but both happen before the
//   parent adds the bias, so the count is exact from then on, and no value
//   can equal waiting_bias before it is added.
//
// fork_join (the second branch is a job on the parent's stack):
//   job.state goes pending -> done (the thief finished it) or
//   pending -> parent_waiting (the parent suspended first); the second of the
//   two exchanges sees the other's value and resumes the parent if needed.
//   A join that finds the branch done asks the policy (keep_at_sync), as a
//   task group's sync does, and suspends only if the policy wants the
//   frame elsewhere.
#include "core/join.hpp"
#include "core/span.hpp"

#include <cassert>
#include <new>
#include <semaphore>

#include "core/runtime_state.hpp"
#include "core/stack_call.hpp"
#include "policy/spi/push.hpp"

namespace locus::detail {
namespace {

frame* resume_self(frame* f) { return f; }

// Why a parent fiber suspends; lives on the parent's stack until it resumes.
struct suspension {
  enum class kind { group, fork } what;
  void* join;
  std::int64_t stolen_parent_first;  // group only: parent-first children taken by thieves
};

void prepare_waiter(continuation& c, const worker& w) {
  new (&c) continuation();
  c.kind = frame_kind::continuation;
  c.run = &resume_self;
  c.saved_sp = nullptr;
  c.ctx = w.ctx;
}

// Leaves the running fiber for a fresh one that completes the suspension
// (finish_suspension) once this fiber's context is saved; returns when the
// parent is resumed, possibly on another worker.
void suspend(worker& w, suspension& why) {
  assert(&w == &this_worker() && "a frame suspends on the worker running it");
  count_entry_demand(w);  // its arena's workers resume it (roots.cpp)
  if (w.hooks & hook_task_events) [[unlikely]] w.rt->policy->on_task(w, task_event::suspend, nullptr);
  w.counters.suspends.bump();
  w.rt->eng->charge(sched_op::fiber_switch, w.id, -1);
  switch_activity(w, activity::sched, w.rt->eng->now_ns());
  switch_msg msg{switch_msg::kind::suspend_from, nullptr, &why};
  after_resume(switch_fiber(running_fiber(), w.fibers.take_to_start(), &msg, false));
}

frame* parent_ready(continuation& parent, ready_reason why) {
  worker& w = this_worker();
  return w.rt->policy->on_ready(w, &parent, why);
}


}  // namespace

// A thief took the parent of a work-first spawn.
frame* spawn_continuation::steal_spawn_parent(frame* f) {
  auto* parent = static_cast<spawn_continuation*>(f);
  parent->group->outstanding.fetch_add(1, std::memory_order_acq_rel);
  parent->group->stolen = true;
  return f;
}

void after_resume(switch_msg* msg) noexcept {
  if (msg->what == switch_msg::kind::release_from) this_worker().fibers.give(msg->from);
}

// ---------------------------------------------------------------- spawn

bool g_spawn_on_stack = true;

namespace {

// The child's return: if the parent is still at the bottom of this
// worker's deque, nothing was stolen; pop it and give it back its context.
// Returns the worker that resumes the parent, or nullptr if it was stolen.
//
// Anything else at the bottom stays there (pop_if never takes it): this
// worker may run a frame found outside its deque while the deque holds
// frames of other work (ADWS runs a returned continuation first, section
// 3.1), and a child resumed that way finds their frames, not its parent's.
// Its parent is then "stolen" for the join's count: either a thief took it
// (and added its +1), or it is still in some deque, under those frames or
// on the worker the child suspended on, and whoever takes it from there
// runs it through steal_spawn_parent, which adds the +1. The count allows
// the -1 before the +1 (the file's header), so both orders are exact.
// docs/architecture.md, "The deque fence rule". It used to pop() and drop
// a frame that was not the parent, which was only safe while every
// scheduler emptied its deque before running anything found elsewhere.
//
// The address alone does not name the parent: once a thief (or this
// worker, from its own deque) resumed the parent, its next spawn puts a new
// continuation at the same address, and while this child waited at a sync
// that one can be at the bottom here. So the frame popped must also be a
// spawn continuation whose child runs on this fiber; anything else was
// another chain's, and goes back where it was (push_own keeps its tag).
// The check reads the frame only once it is ours: a frame still in the
// deque may be a thief's, and its memory reused.
//
// Every spawn returns through here, so the hit is forced inline into the
// child's return and the mismatch is out of line (put_back_other_frame):
// the common path carries only the pop and the two compares.
[[gnu::noinline, gnu::cold]] worker* put_back_other_frame(worker& now_on, spawn_continuation* other);

[[gnu::always_inline]] inline worker* take_back_parent(spawn_continuation* parent_frame, const fiber* child,
                                                      const task_context& parent_ctx) {
  worker& now_on = this_worker();
  if (!now_on.deque.pop_if(parent_frame)) [[unlikely]] return nullptr;
  if (parent_frame->run != &spawn_continuation::steal_spawn_parent || parent_frame->child_fiber != child) [[unlikely]]
    return put_back_other_frame(now_on, parent_frame);
  now_on.ctx = parent_ctx;
  return &now_on;
}

// The frame popped was another chain's (take_back_parent): it goes back to
// the bottom, tag and all, and this child's parent counts as stolen.
worker* put_back_other_frame(worker& now_on, spawn_continuation* other) {
  push_own(now_on, other);
  return nullptr;
}

// The child's return with its parent stolen: the child's fiber stays on this
// worker and becomes its scheduling fiber. After the decrement the group may
// be gone unless it says the parent waits for exactly us.
frame* child_done_parent_stolen(group_state* group) {
  const std::int64_t left = group->outstanding.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (left == group_state::waiting_bias) return parent_ready(group->waiter, ready_reason::last_child_returned);
  return nullptr;
}

#ifdef LOCUS_HAVE_STACK_CALL
// Runs on the child's fiber, called by locus_call_on_stack.
void* spawned_body(void* arg) {
  auto& req = *static_cast<spawn_request*>(arg);
  fiber* child = running_fiber();
  sanitizers::finish_switch(child->asan_fake_stack);
  group_state* group = req.parent.group;
  spawn_continuation* parent_frame = &req.parent;
  fiber* parent_fiber = static_cast<fiber*>(req.parent.fiber);
  const task_context parent_ctx = req.spawner->ctx;

  req.trampoline(req);  // publishes the parent, runs the child

  if (worker* now_on = take_back_parent(parent_frame, child, parent_ctx)) [[likely]] {
    // Nothing stolen: return into the parent, which releases this fiber.
    now_on->pending_release = child;
    enter_fiber(nullptr, parent_fiber);
    return req.parent.saved_sp;
  }
  run_scheduler(child_done_parent_stolen(group));
}
#endif

// Boost.Context variant: a work-first child starts on this fresh fiber;
// `parent_fiber` is the fiber it left.
inline frame* run_spawned_child(spawn_request& req, fiber* parent_fiber) {
  worker& w = static_cast<worker&>(*req.spawner);
  req.parent.fiber = parent_fiber;
  group_state* group = req.parent.group;
  spawn_continuation* parent_frame = &req.parent;
  const task_context parent_ctx = w.ctx;
  fiber* child = running_fiber();
  req.parent.child_fiber = child;

  req.trampoline(req);  // publishes the parent, runs the child; req may be gone after

  if (take_back_parent(parent_frame, child, parent_ctx) != nullptr) [[likely]] {
    // Nothing stolen: straight back to the parent; this fiber is finished.
    switch_msg msg{switch_msg::kind::release_from, nullptr, nullptr};
    switch_fiber(running_fiber(), parent_fiber, &msg, true);
    __builtin_unreachable();
  }
  return child_done_parent_stolen(group);
}

}  // namespace

void spawn_child(worker_view& spawner, spawn_request& req) {
  auto& w = static_cast<worker&>(spawner);
#ifdef LOCUS_HAVE_STACK_CALL
  if (g_spawn_on_stack) [[likely]] {
    fiber* parent_fiber = running_fiber();
    fiber* child = w.fibers.take();
    req.parent.fiber = parent_fiber;
    req.parent.child_fiber = child;
    enter_fiber(parent_fiber, child);
    locus_call_on_stack(&req.parent.saved_sp, child->stack_top(), &spawned_body, &req);
    // Back on our own stack: the child returned, or a thief resumed us.
    sanitizers::finish_switch(parent_fiber->asan_fake_stack);
    worker& now_on = this_worker();
    now_on.fibers.give(now_on.pending_release);
    now_on.pending_release = nullptr;
    return;
  }
#endif
  switch_msg msg{switch_msg::kind::start_child, nullptr, &req};
  after_resume(switch_fiber(running_fiber(), w.fibers.take_to_start(), &msg, false));
}

namespace {
frame* finish_suspension(switch_msg& msg);
}  // namespace

void fiber_main(transfer t) {
  switch_msg* msg = arrive(t);
  frame* ready = nullptr;
  switch (msg->what) {
    case switch_msg::kind::start_child:
      ready = run_spawned_child(*static_cast<spawn_request*>(msg->payload), msg->from);
      break;
    case switch_msg::kind::suspend_from:
      ready = finish_suspension(*msg);
      break;
    case switch_msg::kind::park_from: {
      auto& req = *static_cast<park_request*>(msg->payload);
      ready = req.finish(req, msg->from);
      break;
    }
    case switch_msg::kind::release_from:
      this_worker().fibers.give(msg->from);
      break;
    case switch_msg::kind::start_job:
      run_scheduler_from(static_cast<frame*>(msg->payload));
    case switch_msg::kind::none:
      break;
  }
  run_scheduler(ready);
}

void publish_parent(spawn_request& req) noexcept {
  // Still on the spawning worker: the child has not run any user code yet.
  push_own(*req.spawner, &req.parent);
  notify_push();
}

// ---------------------------------------------------------------- sync

namespace {
void sync_from_outside(group_state& g) {
  g.stolen = false;
  if (g.outstanding.load(std::memory_order_acquire) == 0) return;
  std::binary_semaphore done{0};
  g.external_waiter = &done;
  if (g.outstanding.fetch_add(group_state::waiting_bias, std::memory_order_acq_rel) + group_state::waiting_bias !=
      group_state::waiting_bias)
    done.acquire();
  g.outstanding.store(0, std::memory_order_relaxed);
  g.external_waiter = nullptr;
}
}  // namespace

void sync_group(group_state& g) {
  worker_view* view = current_worker();
  if (view == nullptr) return sync_from_outside(g);
  worker* w = static_cast<worker*>(view);
  if (w->hooks & hook_span) [[unlikely]] {
    // LOCUS_SPAN: the children ran at their spawns (span_hooks.hpp).
    span_sync();
    if (g.parent_first_pending == 0 && g.outstanding.load(std::memory_order_acquire) == 0) {
      g.stolen = false;
      return;
    }
  }
  if (w->hooks & hook_task_events) [[unlikely]] w->rt->policy->on_group(*w, group_event::synced, &g);

  // Parent-first children that nobody stole run here, newest first.
  while (g.parent_first_pending > 0) {
    frame* f = w->deque.pop();
    if (f == nullptr) break;
    // Everything this task pushed after this group's children was joined
    // before this sync, so the newest frames are this group's own: its
    // parent-first jobs, or a frame the policy's route_spawn pushed for
    // another of its children (policy_base::routes: tbb-numa's proxies),
    // which goes back; the scheduler runs it and what lies under it while
    // this task waits. Or, if this task suspended and the worker ran
    // something found outside its deque meanwhile (ADWS's returned
    // continuations first), frames of that other work, even another
    // group's parent-first jobs: they go back too, and this group's jobs
    // under them count as stolen; the scheduler runs them
    // (run_parent_first_job), which subtracts them as a thief's run does.
    if (f->run != &run_parent_first_job || static_cast<parent_first_job*>(f)->group != &g) {
      push_own(*w, f);
      break;
    }
    --g.parent_first_pending;
    auto* job = static_cast<parent_first_job*>(f);
    const task_context parent_ctx = w->ctx;
    w->ctx = job->ctx;  // the child's context, inherited by what it spawns
    if (w->hooks & hook_task_events) [[unlikely]] w->rt->policy->on_task(*w, task_event::begin, job);
    job->invoke(job);
    w = &this_worker();
    if (w->hooks & hook_task_events) [[unlikely]] w->rt->policy->on_task(*w, task_event::end, nullptr);
    w->ctx = parent_ctx;
  }
  const std::int64_t stolen_jobs = g.parent_first_pending;
  g.parent_first_pending = 0;
  if (!g.stolen && stolen_jobs == 0) return;

  prepare_waiter(g.waiter, *w);
  if (stolen_jobs == 0 && g.outstanding.load(std::memory_order_acquire) == 0 &&
      w->rt->policy->keep_at_sync(*w, g.waiter)) {
    g.stolen = false;  // a successful non-trivial sync that stays here
    return;
  }
  suspension why{suspension::kind::group, &g, stolen_jobs};
  suspend(*w, why);
  // Resumed: every child has returned.
  g.outstanding.store(0, std::memory_order_relaxed);
  g.stolen = false;
}

namespace {
frame* finish_suspension(switch_msg& msg) {
  // Copy what we need: once the join completes, the parent may resume on
  // another worker and `why` (on its stack) is gone.
  const suspension why = *static_cast<suspension*>(msg.payload);
  fiber* parent = msg.from;
  if (why.what == suspension::kind::group) {
    auto& g = *static_cast<group_state*>(why.join);
    g.waiter.fiber = parent;
    const std::int64_t add = why.stolen_parent_first + group_state::waiting_bias;
    if (g.outstanding.fetch_add(add, std::memory_order_acq_rel) + add == group_state::waiting_bias)
      return parent_ready(g.waiter, ready_reason::sync_done);
    return nullptr;
  }
  auto& job = *static_cast<fork_job*>(why.join);
  job.waiter.fiber = parent;
  if (job.state.exchange(fork_job::parent_waiting, std::memory_order_acq_rel) == fork_job::done)
    return parent_ready(job.waiter, ready_reason::sync_done);
  return nullptr;
}
}  // namespace

// ---------------------------------------------------------------- fork_join

frame* fork_job::run_fork_job_entry(frame* f) {
  auto* job = static_cast<fork_job*>(f);
  try {
    job->invoke(job->callable);
  } catch (...) {
    job->error = std::current_exception();
  }
  if (job->state.exchange(fork_job::done, std::memory_order_acq_rel) == fork_job::parent_waiting)
    return parent_ready(job->waiter, ready_reason::last_child_returned);
  return nullptr;
}

void join_stolen_fork_job(fork_job& job) {
  worker& w = this_worker();
  prepare_waiter(job.waiter, w);
  // The branch is done: a successful non-trivial sync, which the policy
  // may turn into a push (NUMA-WS Fig. 5 lines 5-11), as for task groups.
  if (job.state.load(std::memory_order_acquire) == fork_job::done && w.rt->policy->keep_at_sync(w, job.waiter))
    return;
  suspension why{suspension::kind::fork, &job, 0};
  suspend(w, why);
}

// ---------------------------------------------------------------- parent-first

frame* run_parent_first_job(frame* f) {
  auto* job = static_cast<parent_first_job*>(f);
  group_state* g = job->group;
  job->invoke(job);  // runs and frees the job
  const std::int64_t left = g->outstanding.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (left != group_state::waiting_bias) return nullptr;
  if (g->external_waiter != nullptr) {
    static_cast<std::binary_semaphore*>(g->external_waiter)->release();
    return nullptr;
  }
  return parent_ready(g->waiter, ready_reason::last_child_returned);
}

void push_counted_child(group_state& g, parent_first_job* job) {
  worker& w = this_worker();
  count_entry_demand(w);  // an arena entered in place: its workers first (roots.cpp)
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  push_own(w, job);
  w.spawns.bump();  // a spawn for the statistics, and the simulator's push and pop
  notify_push();
}

void route_spawn(group_state& g, frame* f) {
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  g.stolen = true;  // sync must wait for it
  worker& w = this_worker();
  w.rt->policy->route_spawn(w, f);
}

}  // namespace locus::detail
