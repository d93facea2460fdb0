// The recording calls of the scheduler core (scheduler.cpp, join.cpp,
// post.cpp, policy_context.cpp). Each is called only behind
// `w.hooks & hook_trace`, so with tracing off a site costs one test of a
// byte the worker already has in cache.
#pragma once

#include <cstdint>

#include "policy/spi/policy.hpp"

namespace locus::detail {
struct worker;
struct frame;
}

namespace locus::detail::trace {

// The worker is back in its scheduling loop: the slices of its last run of
// work end here (a task that suspended and goes on elsewhere is drawn there).
void enter_scheduler(worker& w);
// A search for work begins / a steal attempt on `victim` / the search ended
// (where: found_at::nothing when the pool stops). Failed attempts become a
// counter per interval; a steal becomes an arrow from the victim.
void search_begin(worker& w);
void steal_attempt(worker& w, int victim);
void search_end(worker& w, found_at where);
// The scheduler starts or resumes f (a job, or a continuation in resume()).
void frame_begin(worker& w, const frame& f);
// The worker parked at `since` and is awake again.
// Before parking (flushes the failed attempts), and once awake again.
void before_sleep(worker& w);
void slept(worker& w, std::uint64_t since);
std::uint64_t now(worker& w);
// The calling worker (if it is one and traces) woke `sleeper`.
void woke(int sleeper);
// A named instant event on w's track, about worker `other` (-1: none).
void named(worker& w, const char* name, int other);

}  // namespace locus::detail::trace
