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
#include "locus/place.hpp"
#include "locus/task_group.hpp"

namespace locus {

// What the scheduler should know about one fork_join branch.
struct branch_hints {
  place_hint place = any;  // checked when the branch starts (locus/place.hpp)
};

// A fork_join branch with hints; holds a reference to the callable, which
// lives until the end of the fork_join's full expression.
template <class F>
struct branch {
  F&& fn;
  branch_hints hints;
};

// Branch f belongs to place p.
template <class F>
constexpr branch<F> at(int p, F&& f) noexcept {
  return {std::forward<F>(f), {place_hint{p}}};
}
template <class F>
constexpr branch<F> at(int p, branch<F>&& b) noexcept {
  return {std::forward<F>(b.fn), {place_hint{p}}};
}

namespace detail_branch {
template <class F>
inline constexpr bool is_branch = false;
template <class F>
inline constexpr bool is_branch<branch<F>> = true;
template <class F>
inline constexpr bool hinted = is_branch<std::remove_cvref_t<F>>;
// The callable of a branch (an lvalue), hinted or not.
template <class B>
constexpr auto& fn_of(B& b) noexcept {
  if constexpr (hinted<B>) return b.fn;
  else return b;
}
}  // namespace detail_branch

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

// The policy chose parent-first (hook_spawn_order): both branches are
// queued as parent-first children, each with its place, and the parent
// syncs; each branch's exception is kept apart so that f's still wins over g's.
template <class F, class G>
[[gnu::noinline]] void both_parent_first(F& f, G& g, std::int32_t f_place, std::int32_t g_place) {
  std::exception_ptr errors[2];
  {
    task_group both;
    both.spawn([&] {
      try { f(); } catch (...) { errors[0] = std::current_exception(); }
    }, parent_first, place_hint{f_place});
    both.spawn([&] {
      try { g(); } catch (...) { errors[1] = std::current_exception(); }
    }, parent_first, place_hint{g_place});
    both.sync();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Tracing (hook_trace): the same fork_join with each branch drawn as a
// slice; the second remembers where it was forked, for the arrow to a thief.
template <class F, class G>
[[gnu::noinline]] void traced(F& f, G& g);

// Cold: a worker with hooks (policy hooks, tracing or LOCUS_SPAN). Pushes
// the job and returns true, or runs both branches another way and returns
// false: measured, traced, or parent-first when the policy chose it.
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
  if (detail::push_fork_hooked(w, &job)) return true;
  // The policy chose parent-first; each branch keeps its place.
  both_parent_first(detail_branch::fn_of(f), g_fn, detail_branch::hinted<F> ? f_place : w.ctx.place, job.ctx.place);
  return false;
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
    if constexpr (detail_branch::hinted<F>) f.fn();
    else std::forward<F>(f)();
  } catch (...) {
    first_error = std::current_exception();
  }
  // f may have suspended and resumed on another worker: ask again.
  w = detail::current_worker();
  if constexpr (detail_branch::hinted<F>) w->ctx = parent_ctx;
  if (w->deque.pop() == &job) [[likely]] {
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
    if constexpr (detail_branch::hinted<std::remove_reference_t<decltype(original)>>)
      return branch<decltype(traced_fn)>{traced_fn, original.hints};
    else
      return traced_fn;
  };
  fork_join(rewrap(f, f_traced), rewrap(g, g_traced));
}
}  // namespace detail_fj

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
