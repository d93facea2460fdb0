// Work and span (LOCUS_SPAN=1, docs/observability.md), measured the way
// Cilkscale does: every strand (a stretch of a task between two parallel
// control points) is timed, and at each spawn and sync the work adds up
// while the span keeps the longest path. The mode runs every construct in
// its serial order on the worker that reaches it (nothing is pushed, so
// nothing is stolen): the measurement is of the program's DAG, with the
// strands' times as one worker sees them. The burdened span adds a steal's
// cost at each point where a thief would take work.
//
// The constructs reach these functions only through the hooked branch they
// already take when worker_view::hooks is not zero (hook_span): with the
// mode off the fast path is unchanged.
#pragma once

#include <cstdint>
#include <exception>

#include "locus/detail/worker_view.hpp"

namespace locus::detail {

// One running task's measure: its own strands and the children it has
// joined (work, span, burdened span), and the longest path through the
// children it has not joined yet, from the task's start.
struct span_frame {
  std::uint64_t work = 0, span = 0, burdened = 0;
  std::uint64_t longest = 0, longest_burdened = 0;
  std::uint64_t strand_start = 0;
  span_frame* parent = nullptr;
};

// The running task's strand ends; `child` starts as its child. Returns
// false (and does nothing) when no task is being measured on this worker.
bool span_child_begin(span_frame& child) noexcept;
// Where a thief would take work, for the burdened span.
enum class span_steal : std::uint8_t {
  child,         // the child (a queued child, fork_join's second branch)
  continuation,  // the parent's continuation (a work-first spawn)
  none,          // neither (fork_join's first branch: the second is the one)
};
// `child` returned: its work joins its parent's and its path is one of the
// parent's open paths, burdened where `steal` says. The parent's next
// strand starts.
void span_child_end(span_frame& child, span_steal steal) noexcept;
// The running task syncs: the longest open path joins its span.
void span_sync() noexcept;

// Runs f as a measured child; its exception, if any, is returned.
template <class F>
std::exception_ptr run_span_child(F&& f, span_steal steal) noexcept {
  span_frame child;
  const bool measured = span_child_begin(child);
  std::exception_ptr error;
  try {
    f();
  } catch (...) {
    error = std::current_exception();
  }
  if (measured) span_child_end(child, steal);
  return error;
}

}  // namespace locus::detail
