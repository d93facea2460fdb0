// The recording calls of the scheduler core (scheduler.cpp, join.cpp,
// post.cpp, policy_context.cpp). Each is called only behind
// `w.hooks & hook_trace`, so with tracing off a site costs one test of a
// byte the worker already has in cache.
#pragma once

#include <cstdint>

#include "trace/traced_worker.hpp"

namespace locus::detail {
struct frame;
}

namespace locus::detail::trace {

// Where a search found the frame about to run, as far as its slice shows
// it: taken from another worker, a root task, posted to this worker's
// inbox, or anything else (here: own deque, the policy's local work).
enum class found_by : std::uint8_t { here, steal, roots, posted };

// The worker is back in its scheduling loop: the slices of its last run of
// work end here (a task that suspended and goes on elsewhere is drawn there).
void enter_scheduler(traced_worker& w);
// A search for work begins / a steal attempt on `victim` / the search ended
// (where: found_by::here when the pool stops). Failed attempts become a
// counter per interval; a steal becomes an arrow from the victim.
void search_begin(traced_worker& w);
void steal_attempt(traced_worker& w, int victim);
void search_end(traced_worker& w, found_by where);
// The scheduler starts or resumes f (a job, or a continuation in resume()).
void frame_begin(traced_worker& w, const frame& f);
// The worker parked at `since` and is awake again.
// Before parking (flushes the failed attempts), and once awake again.
void before_sleep(traced_worker& w);
void slept(traced_worker& w, std::uint64_t since);
std::uint64_t now(traced_worker& w);
// The calling worker (if it is one and traces) woke `sleeper`.
void woke(int sleeper);
// A named instant event on w's track, about worker `other` (-1: none).
void named(traced_worker& w, const char* name, int other);

}  // namespace locus::detail::trace
