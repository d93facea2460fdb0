// The parts of policy_context that need the core: the root queue and the
// accounting of steal attempts, for a policy's search round.
#include "policy/spi/policy_context.hpp"

#include "core/runtime_state.hpp"
#include "trace/events.hpp"

namespace locus::detail {

int policy_context::arenas() const { return rt_->arenas.size(); }
int policy_context::allotted(int arena, int place) const { return rt_->arenas.allotted(arena, place); }
bool policy_context::arenas_in_use() const { return rt_->arenas.engaged(); }

frame* policy_context::take_root(worker_view& w) const {
  return rt_->arenas.queues_of(w.arena.load(std::memory_order_relaxed)).try_pop(w.place);
}

bool policy_context::steal_attempt(worker_view& w, worker_view& victim) const {
  // A thief steals only within its arena. A victim that moves to another
  // arena right after this check has an empty deque when it moves (it
  // moves only then), so a frame taken from it is at worst of its new
  // arena, which the scheduler forwards there.
  if (victim.arena.load(std::memory_order_relaxed) != w.arena.load(std::memory_order_relaxed)) [[unlikely]]
    return false;
  auto& self = static_cast<worker&>(w);
  self.attempt_start_ns = eng_->now_ns();
  self.counters.steal_attempts.bump();
  eng_->charge(sched_op::steal_attempt, w.id, victim.id);
  if (w.hooks & hook_trace) [[unlikely]] trace::steal_attempt(self, victim.id);
  return true;
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
