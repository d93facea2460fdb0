// task_group: spawn any number of children, then sync.
//
//   locus::task_group g;
//   g.spawn([&] { left(); });   // runs at once; the rest of this function is
//   right();                    //   what a thief may steal
//   g.sync();                   // waits for the children; rethrows the
//                               //   first exception one of them threw
//
// spawn(f) is work-first (child-first, continuation stealing, as in Cilk): f
// starts at once on this worker, on a fresh fiber from the worker's pool, and
// the parent's continuation becomes stealable. On one worker the execution
// order is exactly the serial elision's.
//
// spawn(f, locus::parent_first) is help-first (child stealing): f is queued
// and the parent goes on; sync() runs the queued children that nobody stole.
//
// spawn(f, locus::at(p)) and spawn(f, locus::parent_first, locus::at(p))
// give the child a locality hint (locus/place.hpp); without one a child
// inherits its parent's.
//
// A last argument locus::label("name") names the child in traces
// (locus/label.hpp, docs/observability.md); it changes nothing else.
//
// From a thread that is not a worker, spawn(f) behaves as on a worker: f
// starts at once (as a root task on a worker) and the rest of the caller
// goes on when f has returned or an idle worker has "stolen" it, so with one
// worker the order is the serial elision's. spawn(f, parent_first) queues f
// and goes on. sync() blocks that thread until the children are done.
//
// The destructor syncs if the program did not. If a child threw and the
// group is destroyed without sync() outside of stack unwinding, the
// destructor rethrows it; during unwinding it is dropped.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/span_hooks.hpp"
#include "locus/detail/trace_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/label.hpp"
#include "locus/place.hpp"

namespace locus {

struct parent_first_t {
  explicit constexpr parent_first_t() = default;
};
inline constexpr parent_first_t parent_first{};

inline namespace LOCUS_CONSTRUCTS_NS {

#ifdef LOCUS_SERIAL_ELISION

class task_group {
 public:
  template <class F>
  void spawn(F&& f) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, parent_first_t) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, place_hint) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, parent_first_t, place_hint) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, label) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, place_hint, label) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, parent_first_t, label) { std::forward<F>(f)(); }
  template <class F>
  void spawn(F&& f, parent_first_t, place_hint, label) { std::forward<F>(f)(); }
  void sync() {}
};

#else

class task_group {
 public:
  task_group() = default;
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;
  ~task_group() noexcept(false) {
    if (used_) {
      if (std::uncaught_exceptions() > 0) {
        try { sync(); } catch (...) {}
      } else {
        sync();
      }
    }
  }

  template <class F>
  void spawn(F&& f) {
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), detail::any_place, true);
    if (w->hooks != 0 && queued_by_policy<F>(*w, f, w->ctx.place)) [[unlikely]] return;
    used_ = true;
    detail::spawn_request req{w, std::addressof(f), &trampoline<F>, {&state_, *w}};
#ifndef LOCUS_NO_SPAWN_COUNTER
    w->spawns.bump();
#endif
    detail::spawn_child(*w, req);
  }

  // Work-first with a locality hint: the child runs here at once, as
  // always, carrying the hint; the scheduler moves it (or what it spawns)
  // toward its place when a steal gives the chance (NUMA-WS III-A).
  template <class F>
  void spawn(F&& f, place_hint hint) {
    const std::int32_t place = detail::checked_place(hint);
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), place, true);
    if (w->hooks != 0 && queued_by_policy<F>(*w, f, place)) [[unlikely]] return;
    used_ = true;
    hinted<F> child{f, place};
    detail::spawn_request req{w, &child, &hinted_trampoline<F>, {&state_, *w}};
#ifndef LOCUS_NO_SPAWN_COUNTER
    w->spawns.bump();
#endif
    detail::spawn_child(*w, req);
  }

  template <class F>
  void spawn(F&& f, parent_first_t) {
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), detail::any_place, false);
    queue_child(*w, std::forward<F>(f), w->ctx.place);
  }

  template <class F>
  void spawn(F&& f, parent_first_t, place_hint hint) {
    const std::int32_t place = detail::checked_place(hint);
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), place, false);
    queue_child(*w, std::forward<F>(f), place);
  }

  // Labeled: as above; with tracing on, the child's slice takes the label.
  // From a thread that is not a worker the child is always wrapped (the
  // pool may not have started yet; a root submission is a slow path
  // anyway): with tracing on, its slice is drawn within the root task that
  // runs it.
  template <class F>
  void spawn(F&& f, label name) {
    if (labeled(detail::current_worker())) [[unlikely]]
      return spawn(traced<F>(std::forward<F>(f), name.text));
    spawn(std::forward<F>(f));
  }
  template <class F>
  void spawn(F&& f, place_hint hint, label name) {
    if (labeled(detail::current_worker())) [[unlikely]]
      return spawn(traced<F>(std::forward<F>(f), name.text), hint);
    spawn(std::forward<F>(f), hint);
  }
  template <class F>
  void spawn(F&& f, parent_first_t, label name) {
    if (labeled(detail::current_worker())) [[unlikely]]
      return spawn(traced<F>(std::forward<F>(f), name.text), parent_first);
    spawn(std::forward<F>(f), parent_first);
  }
  template <class F>
  void spawn(F&& f, parent_first_t, place_hint hint, label name) {
    if (labeled(detail::current_worker())) [[unlikely]]
      return spawn(traced<F>(std::forward<F>(f), name.text), parent_first, hint);
    spawn(std::forward<F>(f), parent_first, hint);
  }

 private:
  static bool labeled(const detail::worker_view* w) noexcept {
    return w == nullptr || (w->hooks & detail::hook_trace) != 0;
  }

  // Tracing (hook_trace): the child wrapped so that its run is a slice
  // named `name` (nullptr: by its kind), remembering where it was spawned.
  template <class F>
  static detail::traced_task<std::decay_t<F>> traced(F&& f, const char* name) {
    return {std::forward<F>(f), name, detail::slice_kind::spawned, detail::trace_spawn_point()};
  }

  // Cold: the policy asked for hooks on this worker (worker_view::hooks).
  // Reports the group's first spawn (since creation or the last sync) and,
  // for a work-first spawn, returns the policy's choice of parent-first.
  [[gnu::noinline]] bool hooked_spawn(detail::worker_view& w, bool work_first) {
    if (!used_ && (w.hooks & detail::hook_task_events)) detail::policy_group_created(w, state_);
    used_ = true;
    return work_first && (w.hooks & detail::hook_spawn_order) && detail::policy_spawns_parent_first(w, false);
  }

  // Cold, and out of line so that spawn stays small enough to inline: a
  // work-first spawn the policy turns parent-first. Returns whether it did.
  template <class F>
  [[gnu::noinline]] bool queued_by_policy(detail::worker_view& w, std::remove_reference_t<F>& f, std::int32_t place) {
    if (w.hooks & detail::hook_span) {
      run_measured(f, detail::span_steal::continuation);
      return true;
    }
    if constexpr (!detail::is_traced_task<std::decay_t<F>>) {
      if (w.hooks & detail::hook_trace) {  // spawned again, wrapped; the policy is asked then
        if (place == w.ctx.place) spawn(traced<F>(std::forward<F>(f), nullptr));
        else spawn(traced<F>(std::forward<F>(f), nullptr), place_hint{place});
        return true;
      }
    }
    if (!hooked_spawn(w, true)) return false;
    queue_child(w, std::forward<F>(f), place);
    return true;
  }

  // LOCUS_SPAN (span_hooks.hpp): the child runs here at once, timed; the
  // group syncs through sync_group, which joins the measured paths.
  template <class F>
  [[gnu::noinline]] void run_measured(F& f, detail::span_steal steal) {
    used_ = true;
    state_.stolen = true;
    if (std::exception_ptr e = detail::run_span_child(f, steal)) state_.record_error(e);
  }

  template <class F>
  void queue_child(detail::worker_view& w, F&& f, std::int32_t place) {
    // One test of the hooks byte: measured (LOCUS_SPAN), traced, or the
    // policy told of the spawn.
    if (w.hooks != 0) [[unlikely]] {
      if (w.hooks & detail::hook_span) return run_measured(f, detail::span_steal::child);
      if constexpr (!detail::is_traced_task<std::decay_t<F>>) {
        if (w.hooks & detail::hook_trace) return queue_child(w, traced<F>(std::forward<F>(f), nullptr), place);
      }
      hooked_spawn(w, false);
    }
    used_ = true;
    using job_t = queued_job<std::decay_t<F>>;
    auto* job = new (detail::allocate_job(sizeof(job_t))) job_t(&state_, std::forward<F>(f));
    job->ctx = w.ctx;
    job->ctx.place = place;
    if (w.routes_spawns) [[unlikely]] {
      detail::route_spawn(state_, job);  // counted as outstanding; sync waits for it
    } else {
      ++state_.parent_first_pending;
      detail::push_own(w, job);
    }
#ifndef LOCUS_NO_SPAWN_COUNTER
    w.spawns.bump();
#endif
    detail::notify_push();
  }

 public:
  void sync() {
    if (!used_) return;
    used_ = false;
    // Trivial sync: nothing was stolen, routed or submitted from outside,
    // and no child is queued, so every child already ran on this worker.
    if (state_.stolen || state_.parent_first_pending != 0) [[unlikely]] detail::sync_group(state_);
    if (state_.has_error.load(std::memory_order_relaxed)) [[unlikely]] {
      std::exception_ptr e = std::move(state_.error);
      state_.error = nullptr;
      state_.has_error.store(false, std::memory_order_relaxed);
      std::rethrow_exception(e);
    }
  }

 private:
  template <class F>
  static void trampoline(detail::spawn_request& req) {
    using stored = std::decay_t<F>;
    // Move (or copy, for an lvalue) the callable onto the child's own stack
    // before the parent can be stolen and its frame go away.
    stored local(std::forward<F>(*static_cast<std::remove_reference_t<F>*>(req.callable)));
    detail::group_state* group = req.parent.group;
    detail::publish_parent(req);  // req is dead after this: it lives on the parent's stack
    try {
      local();
    } catch (...) {
      group->record_error(std::current_exception());
    }
  }

  template <class F>
  struct hinted {
    F& callable;
    std::int32_t place;
  };
  // The trampoline of a hinted spawn: the same, and the child takes its
  // hint once the parent's continuation (which keeps the parent's) is out.
  template <class F>
  static void hinted_trampoline(detail::spawn_request& req) {
    using stored = std::decay_t<F>;
    auto& child = *static_cast<hinted<F>*>(req.callable);
    stored local(std::forward<F>(child.callable));
    const std::int32_t place = child.place;
    detail::group_state* group = req.parent.group;
    detail::worker_view* w = req.spawner;
    detail::publish_parent(req);
    w->ctx.place = place;
    try {
      local();
    } catch (...) {
      group->record_error(std::current_exception());
    }
  }

  template <class Fn>
  struct queued_job : detail::parent_first_job {
    queued_job(detail::group_state* g, Fn&& fn) : callable(std::move(fn)) { init(g); }
    queued_job(detail::group_state* g, const Fn& fn) : callable(fn) { init(g); }
    void init(detail::group_state* g) {
      run = &detail::run_parent_first_job;
      group = g;
      invoke = &invoke_and_destroy;
    }
    static void invoke_and_destroy(detail::parent_first_job* base) {
      auto* self = static_cast<queued_job*>(base);
      detail::group_state* g = self->group;
      try {
        self->callable();
      } catch (...) {
        g->record_error(std::current_exception());
      }
      self->~queued_job();
      detail::free_job(self, sizeof(queued_job));
    }
    Fn callable;
  };

  template <class F>
  void spawn_from_outside(F&& f, std::int32_t place, bool work_first) {
    used_ = true;
    using job_t = queued_job<std::decay_t<F>>;
    void* mem = ::operator new(sizeof(job_t));
    auto* job = new (mem) job_t(&state_, std::forward<F>(f));
    job->ctx.place = place;
    job->invoke = &invoke_outside<std::decay_t<F>>;
    if (work_first) detail::spawn_child_from_outside(state_, job);
    else detail::spawn_external(state_, job);
  }
  template <class Fn>
  static void invoke_outside(detail::parent_first_job* base) {
    auto* self = static_cast<queued_job<Fn>*>(base);
    detail::group_state* g = self->group;
    try {
      self->callable();
    } catch (...) {
      g->record_error(std::current_exception());
    }
    self->~queued_job<Fn>();
    ::operator delete(self);
  }

  detail::group_state state_;
  bool used_ = false;
};

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
