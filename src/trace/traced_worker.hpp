// What the trace sees of a worker: its log and the few figures of the core
// that a trace shows, never the worker itself or the runtime state. The
// core's worker is a traced_worker (core/worker.hpp) and fills it in: the
// log when tracing starts, the counters' addresses when it is built, the
// start of each steal attempt.
#pragma once

#include <cstdint>

#include "locus/detail/worker_view.hpp"

namespace locus::detail::trace {

struct worker_log;

struct traced_worker {
  // This worker's log (trace/recorder.hpp) while tracing; written only
  // behind hooks & hook_trace.
  worker_log* trace_log = nullptr;
  // The worker's steal attempts and steals, for the failed-steal counter.
  const owner_counter* steal_attempts = nullptr;
  const owner_counter* steals = nullptr;
  std::uint64_t attempt_start_ns = 0;  // the last steal attempt (policy_context::steal_attempt)
};

// The traced_worker of a worker the inline constructs name by its view
// (current_worker()); the core provides it, as it knows what a worker is.
traced_worker& traced(worker_view& w) noexcept;

}  // namespace locus::detail::trace
