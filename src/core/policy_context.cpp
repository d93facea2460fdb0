// The parts of policy_context that need the core: the root queue and the
// accounting of steal attempts, for a policy's search round.
#include "policy/policy_context.hpp"

#include "core/runtime_state.hpp"
#include "trace/events.hpp"

namespace locus::detail {

frame* policy_context::take_root(worker_view& w) const { return rt_->roots.try_pop(w.place); }

void policy_context::steal_attempt(worker_view& w, worker_view& victim) const {
  auto& self = static_cast<worker&>(w);
  self.attempt_start_ns = eng_->now_ns();
  self.counters.steal_attempts.bump();
  eng_->charge(sched_op::steal_attempt, w.id, victim.id);
  if (w.hooks & hook_trace) [[unlikely]] trace::steal_attempt(self, victim.id);
}

void policy_context::trace_named(worker_view& w, const char* name, int other) const {
  trace::named(static_cast<worker&>(w), name, other);
}

void policy_context::stole(worker_view& w) const { static_cast<worker&>(w).counters.steals.bump(); }

void policy_context::sent_on(worker_view& w) const {
  // The search goes on as idle time from now (scheduler.cpp, find_work).
  auto& self = static_cast<worker&>(w);
  switch_activity(self, activity::sched, self.attempt_start_ns);
  switch_activity(self, activity::idle, eng_->now_ns());
}

}  // namespace locus::detail
