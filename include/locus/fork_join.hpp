// fork_join(f, g): runs f and g, possibly in parallel, and returns when both
// are done. Serial order is f then g.
//
// Fast path (nothing stolen): g is pushed on this worker's deque as a job that
// lives in this stack frame, f runs inline, and g is popped back and run
// inline: one push, one pop, no allocation, no lock, no system call. Only if
// a thief took g and it is still running does the parent suspend its fiber
// (the slow path, in src/core/join.cpp).
//
// Exceptions: both f and g always run; if either throws, the first thrown (f
// before g when both do) is rethrown after both are done.
#pragma once

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/trace_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/task_group.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

#ifdef LOCUS_SERIAL_ELISION

template <class F, class G>
void fork_join(F&& f, G&& g) {
  std::forward<F>(f)();
  std::forward<G>(g)();
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
// queued as parent-first children and the parent syncs; each branch's
// exception is kept apart so that f's still wins over g's.
template <class F, class G>
[[gnu::noinline]] void both_parent_first(F& f, G& g) {
  std::exception_ptr errors[2];
  {
    task_group both;
    both.spawn([&] {
      try { f(); } catch (...) { errors[0] = std::current_exception(); }
    }, parent_first);
    both.spawn([&] {
      try { g(); } catch (...) { errors[1] = std::current_exception(); }
    }, parent_first);
    both.sync();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Tracing (hook_trace): the same fork_join with each branch drawn as a
// slice; the second remembers where it was forked, for the arrow to a thief.
template <class F, class G>
[[gnu::noinline]] void traced(F& f, G& g);

// Cold: a worker with hooks (policy hooks or tracing). Pushes the job and
// returns true, or runs both branches another way and returns false: traced,
// or parent-first when the policy chose it.
template <class F, class G>
[[gnu::noinline]] bool hooked_push(detail::worker_view& w, detail::fork_job& job, F& f, G& g) {
  if constexpr (!detail::is_traced_task<std::remove_cvref_t<G>>) {
    if (w.hooks & detail::hook_trace) {
      traced(f, g);
      return false;
    }
  }
  if (detail::push_fork_hooked(w, &job)) return true;
  both_parent_first(f, g);
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
  detail::fork_job job(std::addressof(g), &detail_fj::invoke_callable<G>, w->ctx);
  if (w->hooks == 0) [[likely]] {
    w->deque.push(&job);
  } else if (!detail_fj::hooked_push(*w, job, f, g)) {
    return;  // run another way: parent-first, or traced
  }
#ifndef LOCUS_NO_SPAWN_COUNTER
  w->spawns.bump();
#endif
  detail::notify_push();

  std::exception_ptr first_error;
  try {
    std::forward<F>(f)();
  } catch (...) {
    first_error = std::current_exception();
  }
  // f may have suspended and resumed on another worker: ask again.
  w = detail::current_worker();
  if (w->deque.pop() == &job) [[likely]] {
    try {
      g();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
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
  fork_join(detail::traced_task<F&>{f, nullptr, slice_kind::fork, {}},
            detail::traced_task<G&>{g, nullptr, slice_kind::fork, detail::trace_spawn_point()});
}
}  // namespace detail_fj

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
