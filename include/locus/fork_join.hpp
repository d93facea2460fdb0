// fork_join(f, g): runs f and g, possibly in parallel, and returns when both
// are done. Serial order is f then g.
//
// Fast path (nothing stolen): g is pushed on this worker's deque as a job that
// lives in this stack frame, f runs inline, and g is popped back and run
// inline: one push, one pop, no allocation, no lock, no system call. Only if
// a thief took g does the join take the slow path (src/core/join.cpp): the
// parent suspends while g runs, and, once g is done, the policy may push the
// parent toward its place (NUMA-WS's sync-time push).
//
// Per-branch hints: either branch may be wrapped with its hints,
//
//   locus::fork_join(left, locus::at(1, right));   // right belongs to place 1
//
// A hinted branch runs with the hint as its place (NUMA-WS III-A: it and
// what it spawns are pushed toward place 1 when a steal gives the chance);
// the parent keeps its own. An unhinted branch inherits the parent's, and
// compiles to exactly the unhinted code. The wrapper, locus::branch, carries
// the callable and a set of hints, so that other kinds of hint can be added
// as fields and wrappers (at(p, at(q, f)) keeps the outer place).
//
// Exceptions: both f and g always run; if either throws, the first thrown (f
// before g when both do) is rethrown after both are done.
#pragma once

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/span_hooks.hpp"
#include "locus/detail/trace_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/hints.hpp"
#include "locus/place.hpp"

namespace locus {

// What the scheduler should know about one fork_join branch.
struct branch_hints {
  place_hint place = any;  // checked when the branch starts (locus/place.hpp); read only if Placed
  double work = -1;        // locus::work (locus/hints.hpp); below 0: none given
  // locus::footprint (locus/hints.hpp): the branch's working-set size. A
  // fork whose two branches both declare one is a task group of their sum
  // for the multi-level policies (ml-ws ties it to a cache it fits).
  std::size_t bytes = detail::unknown_footprint;
};

// A fork_join branch with hints; holds a reference to the callable, which
// lives until the end of the fork_join's full expression. Placed: the
// branch carries a place (otherwise it inherits the parent's).
template <class F, bool Placed = true>
struct branch {
  F&& fn;
  branch_hints hints;
};

namespace detail_branch {
template <class F>
inline constexpr bool is_branch = false;
template <class F, bool P>
inline constexpr bool is_branch<branch<F, P>> = true;
template <class F>
inline constexpr bool is_placed = false;
template <class F>
inline constexpr bool is_placed<branch<F, true>> = true;
// A branch whose place the fork must set (and restore after it).
template <class F>
inline constexpr bool hinted = is_placed<std::remove_cvref_t<F>>;
// The callable of a branch (an lvalue), hinted or not.
template <class B>
constexpr auto& fn_of(B& b) noexcept {
  if constexpr (is_branch<std::remove_cvref_t<B>>) return b.fn;
  else return b;
}
// A branch's work hint, or below 0.
template <class B>
constexpr double work_of(const B& b) noexcept {
  if constexpr (is_branch<std::remove_cvref_t<B>>) return b.hints.work;
  else return -1;
}
// A branch's footprint, or unknown_footprint.
template <class B>
constexpr std::size_t footprint_of(const B& b) noexcept {
  if constexpr (is_branch<std::remove_cvref_t<B>>) return b.hints.bytes;
  else return detail::unknown_footprint;
}
template <class H>
inline constexpr bool is_branch_hint =
    std::is_same_v<H, place_hint> || std::is_same_v<H, work_hint> || std::is_same_v<H, footprint_hint>;
template <class H>
constexpr void add(branch_hints& h, const H& hint) noexcept {
  if constexpr (std::is_same_v<H, place_hint>) h.place = hint;
  else if constexpr (std::is_same_v<H, footprint_hint>) h.bytes = hint.bytes;
  else h.work = hint.value;
}
}  // namespace detail_branch

// Branch f with hints: a place (locus::at(p) or locus::any) and/or
// locus::work(w), each at most once. The one way to attach hints to a
// fork_join branch; at(p, f) is with(f, at(p)).
template <class F, class... Hints>
constexpr auto with(F&& f, Hints... hints) noexcept {
  static_assert((detail_branch::is_branch_hint<Hints> && ...),
                "locus::with(f, hints...): the accepted hints are a place (locus::at(p) or locus::any), "
                "locus::work(w) and locus::footprint(bytes)");
  static_assert(detail::count_of<place_hint, Hints...> <= 1 && detail::count_of<work_hint, Hints...> <= 1 &&
                    detail::count_of<footprint_hint, Hints...> <= 1,
                "locus::with(f, hints...): each kind of hint at most once");
  branch<F, (std::is_same_v<Hints, place_hint> || ...)> b{std::forward<F>(f), {}};
  (detail_branch::add(b.hints, hints), ...);
  return b;
}

// Branch f belongs to place p.
template <class F>
constexpr branch<F> at(int p, F&& f) noexcept {
  return with(std::forward<F>(f), place_hint{p});
}
template <class F, bool P>
constexpr branch<F> at(int p, branch<F, P>&& b) noexcept {
  return {std::forward<F>(b.fn), {place_hint{p}, b.hints.work, b.hints.bytes}};
}

inline namespace LOCUS_CONSTRUCTS_NS {

#ifdef LOCUS_SERIAL_ELISION

template <class F, class G>
void fork_join(F&& f, G&& g) {
  detail_branch::fn_of(f)();
  detail_branch::fn_of(g)();
}

#else

namespace detail_fj {
template <class G>
void invoke_callable(void* g) {
  (*static_cast<std::remove_reference_t<G>*>(g))();
}

template <class F, class G>
void run_whole(void* pair);

// Tracing (hook_trace): the same fork_join with each branch drawn as a
// slice; the second remembers where it was forked, for the arrow to a thief.
template <class F, class G>
[[gnu::noinline]] void traced(F& f, G& g);

// Cold: a worker with hooks (policy hooks, tracing or LOCUS_SPAN). Pushes
// the job and returns true, or runs both branches another way and returns
// false: measured, traced, or as the policy chose.
template <class F, class G>
[[gnu::noinline]] bool hooked_push(detail::worker_view& w, detail::fork_job& job, F& f, G& g, std::int32_t f_place) {
  auto& g_fn = detail_branch::fn_of(g);
  if (w.hooks & detail::hook_span) {
    // LOCUS_SPAN (span_hooks.hpp): both branches here, timed; g is the
    // branch a thief would take.
    std::exception_ptr f_error = detail::run_span_child(detail_branch::fn_of(f), detail::span_steal::none);
    std::exception_ptr g_error = detail::run_span_child(g_fn, detail::span_steal::child);
    detail::span_sync();
    if (f_error) std::rethrow_exception(f_error);
    if (g_error) std::rethrow_exception(g_error);
    return false;
  }
  if constexpr (!detail::is_traced_task<std::remove_cvref_t<decltype(g_fn)>>) {
    if (w.hooks & detail::hook_trace) {
      traced(f, g);
      return false;
    }
  }
  // The rest is the policy's (spawn_hooks.cpp): push g's job, or run the
  // branches as it chose (parent-first, or as a task group of two).
  auto& f_fn = detail_branch::fn_of(f);
  const detail::erased_branch f_branch{std::addressof(f_fn), &invoke_callable<decltype(f_fn)>,
                                       detail_branch::hinted<F> ? f_place : w.ctx.place, detail_branch::hinted<F>,
                                       detail_branch::work_of(f), detail_branch::footprint_of(f)};
  const detail::erased_branch g_branch{job.callable, job.invoke, job.ctx.place, detail_branch::hinted<G>,
                                       detail_branch::work_of(g), detail_branch::footprint_of(g)};
  return detail::fork_hooked(w, job, f_branch, g_branch);
}
}  // namespace detail_fj

template <class F, class G>
void fork_join(F&& f, G&& g) {
  detail::worker_view* w = detail::current_worker();
  if (w == nullptr) [[unlikely]] {
    std::pair<F&, G&> both{f, g};
    detail::run_on_pool(&detail_fj::run_whole<F, G>, &both);
    return;
  }
  auto& g_fn = detail_branch::fn_of(g);
  detail::fork_job job(std::addressof(g_fn), &detail_fj::invoke_callable<decltype(g_fn)>, w->ctx);
  // Hinted branches (this code is compiled only for them): checked before
  // anything runs; the parent's context is restored after each.
  [[maybe_unused]] const detail::task_context parent_ctx = w->ctx;
  [[maybe_unused]] std::int32_t f_place = 0;
  if constexpr (detail_branch::hinted<F>) f_place = detail::checked_place(f.hints.place);
  if constexpr (detail_branch::hinted<G>) job.ctx.place = detail::checked_place(g.hints.place);
  if (w->hooks == 0) [[likely]] {
    w->deque.push(&job);
  } else if (!detail_fj::hooked_push(*w, job, f, g, f_place)) {
    return;  // run another way: parent-first, or traced
  }
#ifndef LOCUS_NO_SPAWN_COUNTER
  w->spawns.bump();
#endif
  detail::notify_push();

  std::exception_ptr first_error;
  if constexpr (detail_branch::hinted<F>) w->ctx.place = f_place;
  try {
    if constexpr (detail_branch::is_branch<std::remove_cvref_t<F>>) f.fn();
    else std::forward<F>(f)();
  } catch (...) {
    first_error = std::current_exception();
  }
  // f may have suspended and resumed on another worker: ask again.
  w = detail::current_worker();
  if constexpr (detail_branch::hinted<F>) w->ctx = parent_ctx;
  // pop_if: a frame of other work at the bottom (this task may have
  // suspended in f, and the worker run other work meanwhile) stays there;
  // the job is then stolen for the join, and whoever takes it runs it
  // (run_fork_job_entry). docs/architecture.md, "The deque fence rule".
  if (w->deque.pop_if(&job)) [[likely]] {
    if constexpr (detail_branch::hinted<G>) w->ctx.place = job.ctx.place;
    try {
      g_fn();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
    if constexpr (detail_branch::hinted<G>) detail::current_worker()->ctx = parent_ctx;
  } else {
    detail::join_stolen_fork_job(job);
    if (!first_error) first_error = job.error;
  }
  if (first_error) [[unlikely]] std::rethrow_exception(first_error);
}

namespace detail_fj {
template <class F, class G>
void run_whole(void* pair) {
  auto* p = static_cast<std::pair<F&, G&>*>(pair);
  fork_join(std::forward<F>(p->first), std::forward<G>(p->second));
}

template <class F, class G>
[[gnu::noinline]] void traced(F& f, G& g) {
  using detail::slice_kind;
  auto& f_fn = detail_branch::fn_of(f);
  auto& g_fn = detail_branch::fn_of(g);
  detail::traced_task<decltype(f_fn)> f_traced{f_fn, nullptr, slice_kind::fork, {}};
  detail::traced_task<decltype(g_fn)> g_traced{g_fn, nullptr, slice_kind::fork, detail::trace_spawn_point()};
  // A hinted branch keeps its hints around the traced callable.
  auto rewrap = [](auto& original, auto& traced_fn) -> decltype(auto) {
    if constexpr (detail_branch::is_branch<std::remove_cvref_t<decltype(original)>>)
      return branch<decltype(traced_fn), detail_branch::hinted<decltype(original)>>{traced_fn, original.hints};
    else
      return traced_fn;
  };
  fork_join(rewrap(f, f_traced), rewrap(g, g_traced));
}
}  // namespace detail_fj

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
