// Detached tasks (TBB-NUMA section 4.4.3; oneTBB's task_arena::enqueue):
//
//   locus::enqueue([=] { refresh(block); }, locus::at(p));
//
// runs the task asynchronously on the pool. It goes to the shared queue of
// place p (or, with locus::any, the queue without affinity), not to the
// caller's deque: a worker of place p takes it first, then any worker
// (figure 7, rules 5', 5'' and 5'''). Nobody waits for it:
//   - the pool does not stop (locus::runtime's destructor, program exit)
//     before every enqueued task has returned;
//   - an exception escaping it ends the program through std::terminate,
//     after printing what it was, as one escaping a std::thread does. To
//     wait for tasks, or to get their exceptions back, use
//     task_group::enqueue, which its group's sync joins.
// A place outside 0..num_places()-1 throws std::out_of_range at the call.
// Callable from the pool's tasks and from any other thread. In the serial
// elision the task runs at once.
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/place.hpp"

namespace locus {

namespace detail {
template <class Fn>
struct enqueued_task : detached_job {
  explicit enqueued_task(Fn&& f) : fn(std::move(f)) { invoke = &run_and_destroy; }
  explicit enqueued_task(const Fn& f) : fn(f) { invoke = &run_and_destroy; }
  static void run_and_destroy(detached_job* base) {
    auto* self = static_cast<enqueued_task*>(base);
    try {
      self->fn();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "locus::enqueue: a detached task threw: %s\n", e.what());
      std::terminate();
    } catch (...) {
      std::fprintf(stderr, "locus::enqueue: a detached task threw an exception not derived from std::exception\n");
      std::terminate();
    }
    delete self;
  }
  Fn fn;
};

// A detached task of f at place `where` (checked: std::out_of_range).
template <class F>
detached_job* make_detached(F&& f, place_hint where) {
  const std::int32_t place = checked_place(where);
  auto* task = new enqueued_task<std::decay_t<F>>(std::forward<F>(f));
  task->ctx.place = static_cast<std::int16_t>(place);
  return task;
}
}  // namespace detail

inline namespace LOCUS_CONSTRUCTS_NS {

template <class F>
void enqueue(F&& f, place_hint where = any) {
#ifdef LOCUS_SERIAL_ELISION
  (void)where;
  std::forward<F>(f)();
#else
  detail::submit_detached(detail::make_detached(std::forward<F>(f), where));
#endif
}

}  // namespace LOCUS_CONSTRUCTS_NS

}  // namespace locus
