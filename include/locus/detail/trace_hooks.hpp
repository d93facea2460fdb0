// What the inline constructs call when tracing is on (LOCUS_TRACE,
// docs/observability.md): a slice per task run, opened when the task starts
// on a worker and closed when it returns. Tracing sets hook_trace in every
// worker's hooks word, so fork_join and task_group::spawn reach these only
// through the branch they already take for policy hooks: with tracing off
// the fast path is unchanged. The recorder is src/trace/.
#pragma once

#include <cstdint>
#include <utility>

#include "locus/detail/worker_view.hpp"

namespace locus::detail {

// What a slice stands for (its "cat" in the trace; the name is the
// program's label when it gave one, the kind's name otherwise).
enum class slice_kind : std::uint8_t {
  spawned,  // a task_group child, started by its spawn
  fork,     // a fork_join branch run by the worker that forked it
  loop,     // a parallel_for leaf, with its range [lo, hi)
  stolen,   // a frame a thief took (job or continuation)
  root,     // a root task submitted from outside the pool
  resumed,  // a continuation resumed where it was left or handed back
  posted,   // a loop block taken from an inbox
  queued,   // a frame taken from the own deque or the policy's local work
  sleep,    // the worker slept
};

// Where a frame was created: the worker and the time, so that a thief can
// draw the arrow from the spawn to the steal.
struct spawn_origin {
  std::int32_t worker = -1;
  std::uint64_t ts = 0;
};

// A slice opened by trace_begin. It is closed by trace_end if the task is
// still on the worker it began on, in the same run of that worker (a task
// that suspended and went on elsewhere had its slice closed when its worker
// went back to the scheduler).
struct trace_token {
  worker_view* w = nullptr;
  std::uint32_t run = 0;
  std::int32_t depth = -1;
};

// Set while a pool with tracing runs: read by loops, whose leaves do not
// otherwise look at the worker (one predictable branch per leaf).
extern bool g_tracing;

trace_token trace_begin(slice_kind kind, const char* name, std::int64_t lo, std::int64_t hi,
                        const spawn_origin& from) noexcept;
void trace_end(const trace_token& t) noexcept;
spawn_origin trace_spawn_point() noexcept;

// A callable wrapped so that its run is a slice. Built only with tracing on.
template <class F>
struct traced_task {
  F fn;
  const char* name;
  slice_kind kind;
  spawn_origin from;
  void operator()() {
    struct closer {
      trace_token t;
      ~closer() { trace_end(t); }
    } c{trace_begin(kind, name, 0, 0, from)};
    fn();
  }
};
template <class T>
inline constexpr bool is_traced_task = false;
template <class F>
inline constexpr bool is_traced_task<traced_task<F>> = true;

}  // namespace locus::detail
