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
// A locus::label("name") names the child in traces (locus/label.hpp,
// docs/observability.md); it changes nothing else.
//
// task_group g(locus::work(total)) and spawn(f, locus::work(w)) give work
// hints (locus/hints.hpp): read by the adws policy, ignored by the others.
// Hints come in any order, each kind at most once.
//
// From a thread that is not a worker, spawn(f) behaves as on a worker: f
// starts at once (as a root task on a worker) and the rest of the caller
// goes on when f has returned or an idle worker has "stolen" it, so with one
// worker the order is the serial elision's. spawn(f, parent_first) queues f
// and goes on. sync() blocks that thread until the children are done.
//
// Cancellation (oneTBB's names): g.cancel() from the parent, a child or any
// thread marks the group canceling; children that have not started by then
// never run: queued ones (in a deque, a policy's mailbox, an inbox, a shared
// queue, an arena) are dropped when a worker takes them, and a work-first
// spawn into a canceling group returns without running its child. Running
// children finish; g.is_canceling() lets long ones stop early. sync() waits
// for everything started, rethrows the first exception if one was thrown,
// and makes the group usable again (no longer canceling).
//
// The destructor syncs if the program did not. If a child threw and the
// group is destroyed without sync() outside of stack unwinding, the
// destructor rethrows it; during unwinding it is dropped.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/span_hooks.hpp"
#include "locus/detail/trace_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/hints.hpp"
#include "locus/label.hpp"
#include "locus/place.hpp"

namespace locus {

struct parent_first_t {
  explicit constexpr parent_first_t() = default;
};
inline constexpr parent_first_t parent_first{};

namespace detail {

template <class H>
inline constexpr bool is_spawn_hint = std::is_same_v<H, parent_first_t> || std::is_same_v<H, place_hint> ||
                                      std::is_same_v<H, work_hint> || std::is_same_v<H, label>;
template <class... Hints>
constexpr void check_spawn_hints() {
  static_assert((is_spawn_hint<Hints> && ...),
                "task_group::spawn(f, hints...): the accepted hints are locus::parent_first, a place "
                "(locus::at(p) or locus::any), locus::work(w) and locus::label(\"name\")");
  static_assert(count_of<parent_first_t, Hints...> <= 1 && count_of<place_hint, Hints...> <= 1 &&
                    count_of<work_hint, Hints...> <= 1 && count_of<label, Hints...> <= 1,
                "task_group::spawn(f, hints...): each kind of hint at most once");
}
template <class T, class H>
constexpr void take_hint(T& out, const H& h) {
  if constexpr (std::is_same_v<T, H>) out = h;
}
// The hint of type T among hints, or `otherwise`.
template <class T, class... Hints>
constexpr T pick(T otherwise, const Hints&... hints) {
  (take_hint(otherwise, hints), ...);
  return otherwise;
}
}  // namespace detail

inline namespace LOCUS_CONSTRUCTS_NS {

#ifdef LOCUS_SERIAL_ELISION

class task_group {
 public:
  task_group() = default;
  explicit task_group(work_hint) {}
  explicit task_group(footprint_hint) {}
  task_group(work_hint, footprint_hint) {}
  template <class F, class... Hints>
  void spawn(F&& f, Hints...) {
    detail::check_spawn_hints<Hints...>();
    if (!canceling_) std::forward<F>(f)();
  }
  template <class F>
  void enqueue(F&& f, place_hint = any) {
    if (!canceling_) std::forward<F>(f)();
  }
  void cancel() noexcept { canceling_ = true; }
  bool is_canceling() const noexcept { return canceling_; }
  void sync() { canceling_ = false; }

 private:
  bool canceling_ = false;
};

#else

class task_group {
 public:
  task_group() noexcept {}
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;
  [[gnu::always_inline]] ~task_group() noexcept(false) {
    if (used_) [[unlikely]] sync_at_destruction();
  }

  // With the total work of the children (locus/hints.hpp): each child's
  // locus::work(w) is its share of it (an unhinted child counts 1, so
  // work(n) gives n unhinted children equal shares); the footprint is the group's
  // working-set size, read by the multi-level policies (ml-ws: a group
  // that fits a cache is tied to it, ADWS paper, section 4).
  explicit task_group(work_hint total) {
    hints_.flags = detail::group_hints::work_given;
    hints_.work_total = total.value;
  }
  explicit task_group(footprint_hint bytes) {
    hints_.flags = detail::group_hints::footprint_given;
    hints_.footprint = bytes.bytes;
  }
  task_group(work_hint total, footprint_hint bytes) {
    hints_.flags = detail::group_hints::work_given | detail::group_hints::footprint_given;
    hints_.work_total = total.value;
    hints_.footprint = bytes.bytes;
  }

  // spawn(f, hints...): any of locus::parent_first, a place (locus::at(p) or
  // locus::any), locus::work(w) and locus::label("name"), each at most
  // once, in any order.
  template <class F, class... Hints>
  void spawn(F&& f, Hints... hints) {
    detail::check_spawn_hints<Hints...>();
    constexpr bool pf = (std::is_same_v<Hints, parent_first_t> || ...);
    constexpr bool placed = (std::is_same_v<Hints, place_hint> || ...);
    const place_hint place = detail::pick<place_hint>(any, hints...);
    const double w = detail::pick<work_hint>(work_hint{-1.0}, hints...).value;
    if constexpr ((std::is_same_v<Hints, label> || ...)) {
      // Labeled: with tracing on, the child's slice takes the label. From a
      // thread that is not a worker the child is always wrapped (the pool
      // may not have started yet; a root submission is a slow path anyway):
      // with tracing on, its slice is drawn within the root task that runs it.
      if (labeled(detail::current_worker())) [[unlikely]]
        return spawn_as<pf, placed>(traced<F>(std::forward<F>(f), detail::pick<label>(label(""), hints...).text),
                                            place, w);
    }
    spawn_as<pf, placed>(std::forward<F>(f), place, w);
  }

  // enqueue(f, where): f goes to the shared queue of place `where` (or,
  // with locus::any, the queue without affinity) instead of this worker's
  // deque, and sync() waits for it as for a spawned child. A worker of that
  // place takes it first (TBB-NUMA section 4.4.3: a child detached from its
  // spawner so that it runs where its data is; docs/usage.md). A place
  // outside 0..num_places()-1 throws std::out_of_range here.
  template <class F>
  void enqueue(F&& f, place_hint where = any) {
    const std::int32_t place = detail::checked_place(where);
    if (is_canceling()) [[unlikely]] return;
    detail::worker_view* w = detail::current_worker();
    if (w != nullptr && w->hooks != 0) [[unlikely]] {
      if (w->hooks & detail::hook_span) return run_measured(f, detail::span_steal::child);
      detail::enqueue_hooked(*w, state_, hints_, !used_);
    }
    used_ = true;
    detail::parent_first_job* job;
    if (w != nullptr) {
      // From this worker's pool of job blocks, as a parent-first child: a
      // worker runs it and gives the block to its own pool.
      job = queue<F>(std::addressof(f), &state_);
      job->ctx = w->ctx;
    } else {
      // From the heap: this thread has no pool.
      using job_t = queued_job<std::decay_t<F>>;
      job = new (::operator new(sizeof(job_t))) job_t(&state_, std::forward<F>(f));
      job->invoke = &invoke_outside<std::decay_t<F>>;
    }
    job->ctx.place = static_cast<std::int16_t>(place);
    detail::enqueue_child(state_, job);
  }

  // Children not started yet will not run (see the top of this file).
  void cancel() noexcept { state_.status.fetch_or(detail::group_state::canceled, std::memory_order_relaxed); }
  bool is_canceling() const noexcept { return state_.canceling(); }

 private:
  template <bool ParentFirst, bool Placed, class F>
  void spawn_as(F&& f, place_hint hint, double w) {
    if constexpr (ParentFirst) {
      if constexpr (Placed) spawn_parent_first(std::forward<F>(f), detail::checked_place(hint), w);
      else spawn_parent_first(std::forward<F>(f), std::nullopt, w);
    } else if constexpr (Placed) {
      spawn_placed(std::forward<F>(f), hint, w);
    } else {
      spawn_worked(std::forward<F>(f), w);  // w is -1 without a work hint
    }
  }

  // The plain spawn, and a work hint alone (-1: none): the hint is read
  // only by a policy that distributes work, whose hooks bit sends the spawn
  // to spawn_hooked.
  template <class F>
  void spawn_worked(F&& f, double work) {
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), detail::any_place, true);
    if (w->hooks != 0 && spawn_hooked<F>(*w, f, w->ctx.place, work, false)) [[unlikely]] return;
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
  void spawn_placed(F&& f, place_hint hint, double work) {
    const std::int32_t place = detail::checked_place(hint);
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), place, true);
    if (w->hooks != 0 && spawn_hooked<F>(*w, f, place, work, false)) [[unlikely]] return;
    used_ = true;
    detail::hooked_start child{std::addressof(f), w->ctx, nullptr};
    child.ctx.place = place;
    detail::spawn_request req{w, &child, &context_trampoline<F>, {&state_, *w}};
#ifndef LOCUS_NO_SPAWN_COUNTER
    w->spawns.bump();
#endif
    detail::spawn_child(*w, req);
  }

  template <class F>
  void spawn_parent_first(F&& f, std::optional<std::int32_t> hinted_place, double work) {
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]]
      return spawn_from_outside(std::forward<F>(f), hinted_place.value_or(detail::any_place), false);
    const std::int32_t place = hinted_place.value_or(w->ctx.place);
    if (w->hooks != 0 && spawn_hooked<F>(*w, f, place, work, true)) [[unlikely]] return;
    used_ = true;
    auto* job = queue<F>(std::addressof(f), &state_);
    job->ctx = w->ctx;
    job->ctx.place = place;
    ++state_.parent_first_pending;
    w->deque.push(job);
#ifndef LOCUS_NO_SPAWN_COUNTER
    w->spawns.bump();
#endif
    detail::notify_push();
  }

  static bool labeled(const detail::worker_view* w) noexcept {
    return w == nullptr || (w->hooks & detail::hook_trace) != 0;
  }

  // Tracing (hook_trace): the child wrapped so that its run is a slice
  // named `name` (nullptr: by its kind), remembering where it was spawned.
  template <class F>
  static detail::traced_task<std::decay_t<F>> traced(F&& f, const char* name) {
    return {std::forward<F>(f), name, detail::slice_kind::spawned, detail::trace_spawn_point()};
  }

  // Cold: a worker with hooks (worker_view::hooks). Measured and traced
  // spawns are handled here, where the callable's type is known; the rest
  // goes to the policy through the library (spawn_hooks.cpp), which may
  // queue the child, start it with a context of the policy's, or leave it
  // to the plain work-first spawn (returns false).
  template <class F>
  [[gnu::noinline]] bool spawn_hooked(detail::worker_view& w, std::remove_reference_t<F>& f, std::int32_t place,
                                      double work, bool parent_first) {
    if (w.hooks & detail::hook_span) {
      run_measured(f, parent_first ? detail::span_steal::child : detail::span_steal::continuation);
      return true;
    }
    if constexpr (!detail::is_traced_task<std::decay_t<F>>) {
      if (w.hooks & detail::hook_trace) {  // wrapped, so that the child's run is a slice
        auto t = traced<F>(std::forward<F>(f), nullptr);
        if (!spawn_hooked<decltype(t)>(w, t, place, work, parent_first)) start_here(w, std::move(t), place);
        return true;
      }
    }
    const bool first = !used_;
    used_ = true;
    const detail::erased_child child{std::addressof(f), &context_trampoline<F>, &queue<F>};
    return detail::spawn_hooked(w, state_, hints_, child, first, place, work, parent_first);
  }

  // The plain work-first spawn of a traced child, with its place.
  template <class F>
  void start_here(detail::worker_view& w, F&& f, std::int32_t place) {
    detail::hooked_start child{std::addressof(f), w.ctx, nullptr};
    child.ctx.place = place;
    detail::spawn_request req{&w, &child, &context_trampoline<F>, {&state_, w}};
#ifndef LOCUS_NO_SPAWN_COUNTER
    w.spawns.bump();
#endif
    detail::spawn_child(w, req);
  }

  // LOCUS_SPAN (span_hooks.hpp): the child runs here at once, timed; the
  // group syncs through sync_group, which joins the measured paths.
  template <class F>
  [[gnu::noinline]] void run_measured(F& f, detail::span_steal steal) {
    used_ = true;
    state_.stolen = true;
    if (is_canceling()) return;
    if (std::exception_ptr e = detail::run_span_child(f, steal)) state_.record_error(e);
  }

 public:
  // Always inline: the trivial sync is part of the spawn fast path.
  [[gnu::always_inline]] void sync() {
    if (!used_) {
      // Canceled before any child was spawned (spawn then returns at once).
      if (state_.canceling()) [[unlikely]] state_.status.store(0, std::memory_order_relaxed);
      return;
    }
    used_ = false;
    // Trivial sync: nothing was stolen, routed or submitted from outside,
    // and no child is queued, so every child already ran on this worker.
    if (state_.stolen || state_.parent_first_pending != 0) [[unlikely]] {
      detail::sync_group(state_);
      if (hints_.flags & detail::group_hints::distributed) [[unlikely]] detail::group_synced_hooked(hints_);
    }
    // A child threw, or the group was canceled; everything started has
    // ended, so the group is cleared for its next use.
    if (state_.status.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      const bool threw = state_.status.exchange(0, std::memory_order_relaxed) & detail::group_state::threw;
      if (threw) std::rethrow_exception(std::exchange(state_.error, nullptr));
    }
  }

 private:
  // Out of line, so that the destructor stays small enough to inline.
  [[gnu::noinline]] void sync_at_destruction() {
    if (std::uncaught_exceptions() > 0) {
      try { sync(); } catch (...) {}
    } else {
      sync();
    }
  }

  template <class F>
  static void trampoline(detail::spawn_request& req) {
    using stored = std::decay_t<F>;
    // Move (or copy, for an lvalue) the callable onto the child's own stack
    // before the parent can be stolen and its frame go away.
    stored local(std::forward<F>(*static_cast<std::remove_reference_t<F>*>(req.callable)));
    detail::group_state* group = req.parent.group;
    detail::publish_parent(req);  // req is dead after this: it lives on the parent's stack
    // A child spawned into a canceling group does not run. Checked here, in
    // the out-of-line child, rather than in the inlined spawn: the parent's
    // fast path stays as it was.
    if (group->canceling()) [[unlikely]] return;
    try {
      local();
    } catch (...) {
      group->record_error(std::current_exception());
    }
  }

  // A child that runs with its own context (a place hint, or a share of a
  // distributing group's work; req.callable is a hooked_start): the same
  // as trampoline, and the child takes its context once the parent's
  // continuation (which keeps the parent's) is out; a distributing group's
  // child tells the policy when it is done (ADWS: dominance). The group
  // outlives it: sync waits for it.
  template <class F>
  static void context_trampoline(detail::spawn_request& req) {
    using stored = std::decay_t<F>;
    auto& child = *static_cast<detail::hooked_start*>(req.callable);
    stored local(std::forward<F>(*static_cast<std::remove_reference_t<F>*>(child.callable)));
    const detail::task_context ctx = child.ctx;
    const detail::task_context* report_to = child.report_to;
    detail::group_state* group = req.parent.group;
    detail::worker_view* w = req.spawner;
    detail::publish_parent(req);
    w->ctx = ctx;
    if (!group->canceling()) [[likely]] {
      try {
        local();
      } catch (...) {
        group->record_error(std::current_exception());
      }
    }
    if (report_to != nullptr) [[unlikely]] detail::report_done(*report_to, ctx);
  }

  // Moves the callable into a parent-first job of group g, from the
  // worker's pool of job blocks.
  template <class F>
  static detail::parent_first_job* queue(void* callable, detail::group_state* g) {
    using job_t = queued_job<std::decay_t<F>>;
    return new (detail::allocate_job(sizeof(job_t)))
        job_t(g, std::forward<F>(*static_cast<std::remove_reference_t<F>*>(callable)));
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
      if (!g->canceling()) [[likely]] {
        try {
          self->callable();
        } catch (...) {
          g->record_error(std::current_exception());
        }
      }
      if (self->report_to != nullptr) [[unlikely]] detail::report_done(*self->report_to, self->ctx);
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
    if (!g->canceling()) [[likely]] {
      try {
        self->callable();
      } catch (...) {
        g->record_error(std::current_exception());
      }
    }
    self->~queued_job<Fn>();
    ::operator delete(self);
  }

  detail::group_state state_;
  bool used_ = false;
  detail::group_hints hints_;
};

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
