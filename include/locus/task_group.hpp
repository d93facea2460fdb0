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
template <class T, class... Hints>
inline constexpr int count_of = (0 + ... + int{std::is_same_v<T, Hints>});
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
    std::forward<F>(f)();
  }
  template <class F>
  void enqueue(F&& f, place_hint = any) {
    std::forward<F>(f)();
  }
  void sync() {}
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
  // locus::work(w) is its share of it; the footprint is the group's
  // working-set size, read by the multi-level policies (ml-ws: a group
  // that fits a cache is tied to it, seed 003 section 4).
  explicit task_group(work_hint total) : work_flags_(work_given), work_total_(total.value) {}
  explicit task_group(footprint_hint bytes) : work_flags_(footprint_given), footprint_(bytes.bytes) {}
  task_group(work_hint total, footprint_hint bytes)
      : work_flags_(work_given | footprint_given), work_total_(total.value), footprint_(bytes.bytes) {}

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
    detail::worker_view* w = detail::current_worker();
    if (w != nullptr && w->hooks != 0) [[unlikely]] {
      if (w->hooks & detail::hook_span) return run_measured(f, detail::span_steal::child);
      // A round that starts with an enqueue opens the group as a spawn
      // would, so that the spawns after it find its context.
      if (!used_ && (w->hooks & detail::hook_work_hints)) open_round(*w);
      hooked_spawn(*w, false, place);
    }
    used_ = true;
    using job_t = queued_job<std::decay_t<F>>;
    // From the heap, not a worker's pool: it may be run and freed on a
    // worker while this thread is not one.
    auto* job = new (::operator new(sizeof(job_t))) job_t(&state_, std::forward<F>(f));
    if (w != nullptr) job->ctx = w->ctx;
    job->ctx.place = place;
    job->invoke = &invoke_outside<std::decay_t<F>>;
    detail::enqueue_child(state_, job);
  }

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
  // to queued_by_policy.
  template <class F>
  void spawn_worked(F&& f, double work) {
    detail::worker_view* w = detail::current_worker();
    if (w == nullptr) [[unlikely]] return spawn_from_outside(std::forward<F>(f), detail::any_place, true);
    if (w->hooks != 0 && queued_by_policy<F>(*w, f, w->ctx.place, work)) [[unlikely]] return;
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
    if (w->hooks != 0 && queued_by_policy<F>(*w, f, place, work)) [[unlikely]] return;
    used_ = true;
    with_context<F> child{f, w->ctx, nullptr};
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
    if ((w->hooks & detail::hook_work_hints) && !(w->hooks & (detail::hook_span | detail::hook_trace))) [[unlikely]]
      return distribute<F>(*w, f, place, work, true);
    queue_child(*w, std::forward<F>(f), place);
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

  // Cold: the policy asked for hooks on this worker (worker_view::hooks).
  // Reports the group's first spawn (since creation or the last sync) and,
  // for a work-first spawn, returns the policy's choice of parent-first.
  [[gnu::noinline]] bool hooked_spawn(detail::worker_view& w, bool work_first, std::int32_t place) {
    if (!used_ && (w.hooks & detail::hook_task_events)) detail::policy_group_created(w, state_);
    used_ = true;
    return work_first && (w.hooks & detail::hook_spawn_order) && detail::policy_spawns_parent_first(w, false, place);
  }

  // Cold, and out of line so that spawn stays small enough to inline: a
  // work-first spawn the policy turns parent-first. Returns whether it did.
  template <class F>
  [[gnu::noinline]] bool queued_by_policy(detail::worker_view& w, std::remove_reference_t<F>& f, std::int32_t place,
                                          double work) {
    if (w.hooks & detail::hook_span) {
      run_measured(f, detail::span_steal::continuation);
      return true;
    }
    if constexpr (!detail::is_traced_task<std::decay_t<F>>) {
      if (w.hooks & detail::hook_trace) {  // spawned again, wrapped; the policy is asked then
        if (place == w.ctx.place) spawn_worked(traced<F>(std::forward<F>(f), nullptr), work);
        else spawn_placed(traced<F>(std::forward<F>(f), nullptr), place_hint{place}, work);
        return true;
      }
    }
    if (w.hooks & detail::hook_work_hints) {
      distribute<F>(w, f, place, work, false);
      return true;
    }
    if (!hooked_spawn(w, true, place)) return false;
    queue_child(w, std::forward<F>(f), place);
    return true;
  }

  // Cold: a policy that distributes work (hook_work_hints: ADWS). The group
  // takes the running task's context at its first spawn (ADWS figure 7
  // lines 16-18); each child takes the next share of the group's work from
  // the top of what is left (lines 19-22: its work, else half of what is
  // left), the policy derives the child's context from that share and
  // says whether the child runs here at once (line 26) or leaves this
  // worker (line 24: queued, and placed by the policy's route_spawn).
  // The group's first child since its creation or its last sync, on a
  // worker whose policy distributes work: the group takes the running
  // task's context, and may be tied to a cache (the multi-level policies,
  // seed 003 figure 13: the group's context and the running task's change,
  // and the sync reports back, distributed_done, to untie it).
  [[gnu::noinline]] void open_round(detail::worker_view& w) {
    group_ctx_ = w.ctx;
    work_left_ = (work_flags_ & work_given) && work_total_ > 0 ? work_total_ : 1.0;
    if (detail::policy_open_group(w, group_ctx_, (work_flags_ & footprint_given) ? footprint_ : detail::unknown_footprint)) {
      work_flags_ |= work_distributed;
      state_.stolen = true;
    }
  }

  template <class F>
  [[gnu::noinline]] void distribute(detail::worker_view& w, std::remove_reference_t<F>& f, std::int32_t place,
                                    double work, bool parent_first) {
    const double total = (work_flags_ & work_given) && work_total_ > 0 ? work_total_ : 1.0;
    if (!used_) open_round(w);
    used_ = true;
    const bool hinted = (work_flags_ & work_given) && work >= 0;
    double share = hinted ? work : work_left_ / 2;
    if (share > work_left_) share = work_left_;
    const double hi = work_left_ / total;
    work_left_ -= share;
    detail::task_context child = group_ctx_;
    child.place = place;
    const detail::share_route route = detail::policy_share_work(w, group_ctx_, child, work_left_ / total, hi);
    const detail::task_context* reports = nullptr;  // the group whose children report when done
    if (route != detail::share_route::local) {
      reports = &group_ctx_;
      work_flags_ |= work_distributed;
      state_.stolen = true;  // sync takes the slow path, which tells the policy
    }
    // An unhinted child that stays here is queued, not run at once, in a
    // group spread over several workers: its share (half of what is left)
    // is a guess, and in a flat group of such children this worker's shares
    // shrink while the others' do not grow. Queued, the children can be
    // stolen once the group dominates (section 3.2); run at once, only this
    // task's continuation could be, and its next children would be
    // migrated back here.
    if (route == detail::share_route::away || parent_first ||
        (route == detail::share_route::local_distributed && !hinted))
      return queue_distributed(w, std::forward<F>(f), child, reports);
    with_context<F> c{f, child, reports};
    detail::spawn_request req{&w, &c, &context_trampoline<F>, {&state_, w}};
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
      hooked_spawn(w, false, place);
    }
    used_ = true;
    using job_t = queued_job<std::decay_t<F>>;
    auto* job = new (detail::allocate_job(sizeof(job_t))) job_t(&state_, std::forward<F>(f));
    job->ctx = w.ctx;
    job->ctx.place = place;
    if (detail::routes_to(w, place)) [[unlikely]] {
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

  // Cold: queue_child for distribute. The child has its context from the
  // policy. A child of a distributed group reports to it (`group_ctx`) when
  // done and goes where the policy's route_spawn puts it (ADWS: the owner of
  // its range). One of a group the policy did not distribute (no
  // `group_ctx`) keeps this task's context, whichever worker's range that
  // is, and goes on this worker's deque as queue_child puts it (ADWS
  // section 3.2: a stolen task's descendants are the thief's).
  template <class F>
  [[gnu::noinline]] void queue_distributed(detail::worker_view& w, F&& f, const detail::task_context& ctx,
                                           const detail::task_context* group_ctx) {
    used_ = true;
    using job_t = queued_job<std::decay_t<F>>;
    auto* job = new (detail::allocate_job(sizeof(job_t))) job_t(&state_, std::forward<F>(f));
    job->ctx = ctx;
    job->group_ctx = group_ctx;
    if (group_ctx == nullptr) {
      ++state_.parent_first_pending;
      detail::push_own(w, job);
    } else {
      detail::route_spawn(state_, job);  // counted as outstanding; sync waits for it
    }
#ifndef LOCUS_NO_SPAWN_COUNTER
    w.spawns.bump();
#endif
    detail::notify_push();
  }

 public:
  // Always inline: the trivial sync is part of the spawn fast path.
  [[gnu::always_inline]] void sync() {
    if (!used_) return;
    used_ = false;
    // Trivial sync: nothing was stolen, routed or submitted from outside,
    // and no child is queued, so every child already ran on this worker.
    if (state_.stolen || state_.parent_first_pending != 0) [[unlikely]] {
      detail::sync_group(state_);
      if (work_flags_ & work_distributed) [[unlikely]] distributed_done();
    }
    if (state_.has_error.load(std::memory_order_relaxed)) [[unlikely]] {
      std::exception_ptr e = std::move(state_.error);
      state_.error = nullptr;
      state_.has_error.store(false, std::memory_order_relaxed);
      std::rethrow_exception(e);
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

  // A distributing group's sync is done: the policy is told (ADWS section
  // 3.2: the group stops giving steal ranges).
  [[gnu::noinline]] void distributed_done() {
    work_flags_ &= static_cast<std::uint8_t>(~work_distributed);
    detail::policy_share_done(*detail::current_worker(), group_ctx_, nullptr);
  }

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

  // A child that runs with its own context (a place hint, or a share of a
  // distributing group's work); `group` is that group's context, if any.
  template <class F>
  struct with_context {
    F& callable;
    detail::task_context ctx;
    const detail::task_context* group;
  };
  // Its trampoline: the same, and the child takes its context once the
  // parent's continuation (which keeps the parent's) is out; a
  // distributing group's child tells the policy when it is done (ADWS:
  // dominance, section 3.2). The group outlives it: sync waits for it.
  template <class F>
  static void context_trampoline(detail::spawn_request& req) {
    using stored = std::decay_t<F>;
    auto& child = *static_cast<with_context<F>*>(req.callable);
    stored local(std::forward<F>(child.callable));
    const detail::task_context ctx = child.ctx;
    const detail::task_context* group_ctx = child.group;
    detail::group_state* group = req.parent.group;
    detail::worker_view* w = req.spawner;
    detail::publish_parent(req);
    w->ctx = ctx;
    try {
      local();
    } catch (...) {
      group->record_error(std::current_exception());
    }
    if (group_ctx != nullptr) [[unlikely]] detail::policy_share_done(*detail::current_worker(), *group_ctx, &ctx);
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
      if (self->group_ctx != nullptr) [[unlikely]]
        detail::policy_share_done(*detail::current_worker(), *self->group_ctx, &self->ctx);
      self->~queued_job();
      detail::free_job(self, sizeof(queued_job));
    }
    Fn callable;
    const detail::task_context* group_ctx = nullptr;  // a distributing group's (task_group::distribute)
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

  static constexpr std::uint8_t work_given = 1;        // constructed with locus::work(total)
  static constexpr std::uint8_t work_distributed = 2;  // a policy distributed (or tied) this round's children
  static constexpr std::uint8_t footprint_given = 4;   // constructed with locus::footprint(bytes)
  detail::group_state state_;
  bool used_ = false;
  std::uint8_t work_flags_ = 0;
  // Read only when work_flags_ says so (set by the hinted constructor and
  // by distribute), so an unhinted group pays one byte's initialization
  // (the union keeps task_context's member initializers from running).
  double work_total_;
  double work_left_;
  std::size_t footprint_;
  union {
    detail::task_context group_ctx_;
  };
};

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
