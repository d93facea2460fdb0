// The cold spawn path: what task_group::spawn, task_group::enqueue and
// fork_join do on a worker whose policy asked for hooks (worker_view::hooks),
// once the public headers have handled measuring and tracing. The headers
// hand over the child type-erased (erased_child, erased_branch) and this
// file carries out the policy's decisions: a parent-first child routed or
// pushed (hook_spawn_order, route_spawn), a share of a group's work
// (hook_work_hints, policy/spi/work_shares.hpp), group events
// (hook_task_events). Nothing here is on the fast path: the headers test
// the hooks word once and come here only when it is nonzero.
#include <exception>
#include <new>

#include "core/runtime_state.hpp"
#include "policy/spi/push.hpp"
#include "policy/spi/work_shares.hpp"

namespace locus::detail {
namespace {

policy_base& policy_of(worker_view& w) { return *static_cast<worker&>(w).rt->policy; }

void count_spawn_and_notify(worker_view& w) {
  w.spawns.bump();
  notify_push();
}

// A parent-first child with its context: on the own deque, or where the
// policy routes it (counted as outstanding in its group; sync waits for it).
void queue_job(worker_view& w, group_state& g, parent_first_job* job, bool routed) {
  if (routed) {
    route_spawn(g, job);
  } else {
    ++g.parent_first_pending;
    push_own(w, job);
  }
  count_spawn_and_notify(w);
}

// A work-first child that runs with a context of the policy's; on return
// the worker may be another (its parent's continuation may have been stolen).
void start_with(worker_view& w, group_state& g, const erased_child& c, const share_plan& plan) {
  hooked_start child{c.callable, plan.ctx, plan.report_to};
  spawn_request req{&w, &child, c.start, {&g, w}};
  w.spawns.bump();
  spawn_child(w, req);
}

// A group's first spawn (or enqueue), told to a policy that observes
// groups. The sync of an observed group takes the slow path, which reports
// it; `stolen` only means "sync must look", so setting it is always safe.
void report_created(policy_base& p, worker_view& w, group_state& g) {
  g.stolen = true;
  p.on_group(w, group_event::created, &g);
}

}  // namespace

bool spawn_hooked(worker_view& w, group_state& g, group_hints& h, const erased_child& c, bool first,
                  std::int32_t place, double work, bool parent_first) {
  count_entry_demand(static_cast<worker&>(w));  // an arena entered in place: its workers first (roots.cpp)
  policy_base& p = policy_of(w);
  if (w.hooks & hook_work_hints) {
    const share_plan plan = plan_share(p, w, g, h, first, place, work, parent_first);
    if (!plan.queued) {
      start_with(w, g, c, plan);
      return true;
    }
    parent_first_job* job = c.queue(c.callable, &g);
    job->ctx = plan.ctx;
    job->report_to = plan.report_to;
    // A child of a distributed group goes where the policy's route_spawn
    // puts it (ADWS: the owner of its range). One of a group the policy did
    // not distribute keeps this task's context, whichever worker's range
    // that is, and goes on this worker's deque (ADWS section 3.2: a stolen
    // task's descendants are the thief's).
    queue_job(w, g, job, plan.report_to != nullptr);
    return true;
  }
  if (first && (w.hooks & hook_task_events)) report_created(p, w, g);
  if (!parent_first && !((w.hooks & hook_spawn_order) && p.parent_first(w, false, place)))
    return false;
  parent_first_job* job = c.queue(c.callable, &g);
  job->ctx = w.ctx;
  job->ctx.place = place;
  queue_job(w, g, job, p.routes(w, place));
  return true;
}

void enqueue_hooked(worker_view& w, group_state& g, group_hints& h, bool first) {
  count_entry_demand(static_cast<worker&>(w));  // an arena entered in place: its workers first (roots.cpp)
  if (!first) return;
  policy_base& p = policy_of(w);
  // A round that starts with an enqueue opens the group as a spawn would,
  // so that the spawns after it find its context.
  if (w.hooks & hook_work_hints) open_share_round(p, w, g, h);
  if (w.hooks & hook_task_events) report_created(p, w, g);
}

void group_synced_hooked(group_hints& h) {
  h.flags &= static_cast<std::uint8_t>(~group_hints::distributed);
  worker_view& w = *current_worker();
  policy_of(w).share_done(w, h.ctx, nullptr);
}

void report_done(const task_context& group, const task_context& child) {
  worker_view& w = *current_worker();
  policy_of(w).share_done(w, group, &child);
}

// ------------------------------------------------------------ fork_join

namespace {

// A fork_join branch run as a task group's child: its exception goes to
// the fork's slot for it, so that f's still wins over g's.
struct branch_call {
  void (*invoke)(void*);
  void* callable;
  std::exception_ptr* error;
  void operator()() const noexcept {
    try {
      invoke(callable);
    } catch (...) {
      *error = std::current_exception();
    }
  }
};

// Its trampoline (the branch lives in the fork's frame, which waits for it).
void start_branch(spawn_request& req) {
  const auto& child = *static_cast<hooked_start*>(req.callable);
  const branch_call call = *static_cast<const branch_call*>(child.callable);
  const task_context ctx = child.ctx;
  const task_context* report_to = child.report_to;
  worker_view* w = req.spawner;
  publish_parent(req);
  w->ctx = ctx;
  call();
  if (report_to != nullptr) report_done(*report_to, ctx);
}

struct branch_job : parent_first_job {
  branch_call call;
  static void invoke_and_free(parent_first_job* base) {
    auto* self = static_cast<branch_job*>(base);
    self->call();
    if (self->report_to != nullptr) report_done(*self->report_to, self->ctx);
    free_job(self, sizeof(branch_job));
  }
};

parent_first_job* queue_branch(void* callable, group_state* g) {
  auto* job = new (allocate_job(sizeof(branch_job))) branch_job();
  job->run = &run_parent_first_job;
  job->group = g;
  job->invoke = &branch_job::invoke_and_free;
  job->call = *static_cast<const branch_call*>(callable);
  return job;
}

// A task group of the fork's branches, as the library runs one: spawn with
// spawn_hooked, sync as task_group::sync does (no child throws into it).
struct branch_group {
  group_state state;
  group_hints hints;
  bool used = false;
  branch_group() noexcept {}
  void spawn(worker_view& w, const branch_call& call, std::int32_t place, double work, bool parent_first) {
    const erased_child child{const_cast<branch_call*>(&call), &start_branch, &queue_branch};
    const bool first = !used;
    used = true;
    [[maybe_unused]] const bool spawned = spawn_hooked(w, state, hints, child, first, place, work, parent_first);
  }
  void sync() {
    if (!used) return;
    if (state.stolen || state.parent_first_pending != 0) {
      sync_group(state);
      if (hints.flags & group_hints::distributed) group_synced_hooked(hints);
    }
  }
};

void rethrow_first(const std::exception_ptr (&errors)[2]) {
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// The running task spreads over several workers (hook_work_hints): both
// branches become the children of a task group with their work, so that
// one may be migrated (ADWS figure 7).
void fork_as_group(worker_view& w, const erased_branch& f, const erased_branch& g) {
  double f_work = f.work, g_work = g.work;
  if (f_work < 0) f_work = g_work;
  if (g_work < 0) g_work = f_work;
  if (f_work + g_work <= 0) f_work = g_work = 1;
  std::exception_ptr errors[2];
  const branch_call calls[2] = {{f.invoke, f.callable, &errors[0]}, {g.invoke, g.callable, &errors[1]}};
  {
    branch_group both;
    both.hints.flags = group_hints::work_given;
    both.hints.work_total = f_work + g_work;
    if (f.bytes != unknown_footprint && g.bytes != unknown_footprint) {
      both.hints.flags |= group_hints::footprint_given;
      both.hints.footprint = f.bytes + g.bytes;
    }
    both.spawn(w, calls[0], f.place, f_work, false);
    both.spawn(*current_worker(), calls[1], g.place, g_work, false);
    both.sync();
  }
  rethrow_first(errors);
}

// The policy chose parent-first (hook_spawn_order), as a TBB task spawns a
// child and then executes the other itself: one branch is queued as a
// parent-first child with its place (the policy may route it: tbb-numa
// mails it), the other runs here with its place, and the parent syncs. The
// queued one is g, unless only f is hinted at a place other than the
// spawner's: that one leaves, and the branch for here stays (TBB-NUMA
// section 4.4.3, submission order).
void fork_parent_first(worker_view& w, const erased_branch& f, const erased_branch& g) {
  const int here = w.place;
  const auto elsewhere = [here](std::int32_t p) { return p != any_place && p != here; };
  const bool queue_f = elsewhere(f.place) && !elsewhere(g.place);
  std::exception_ptr errors[2];
  const branch_call calls[2] = {{f.invoke, f.callable, &errors[0]}, {g.invoke, g.callable, &errors[1]}};
  {
    branch_group both;
    if (queue_f) both.spawn(w, calls[0], f.place, -1, true);
    else both.spawn(w, calls[1], g.place, -1, true);
    worker_view* now = current_worker();
    const task_context parent_ctx = now->ctx;
    now->ctx.place = queue_f ? g.place : f.place;
    calls[queue_f ? 1 : 0]();
    current_worker()->ctx = parent_ctx;  // it may have resumed on another worker
    both.sync();
  }
  rethrow_first(errors);
}

}  // namespace

bool fork_hooked(worker_view& w, fork_job& job, const erased_branch& f, const erased_branch& g) {
  count_entry_demand(static_cast<worker&>(w));  // an arena entered in place: its workers first (roots.cpp)
  policy_base& p = policy_of(w);
  if ((w.hooks & hook_work_hints) && fork_spreads(p, w, f.work, g.work)) {
    fork_as_group(w, f, g);
    return false;
  }
  // The policy decides for the branch that would be pushed (g), or for f if
  // only f is hinted.
  const std::int32_t branch_place = f.hinted && !g.hinted ? f.place : g.place;
  if ((w.hooks & hook_spawn_order) && p.parent_first(w, true, branch_place)) {
    fork_parent_first(w, f, g);
    return false;
  }
  push_own(w, &job);
  return true;
}

}  // namespace locus::detail
