// Posting a child to a chosen worker (the loop layer's static partitions and
// loop affinity, include/locus/partition.hpp). The child is counted as
// outstanding in its group, like a routed or stolen one, so the group's sync
// waits for it; the target finds it in its inbox (inbox.hpp), and a thief
// takes it from there if the target does not get to it first. A policy may
// place a loop-affinity sub-range itself instead (policy_base::post).
#include "core/runtime_state.hpp"
#include "trace/events.hpp"

namespace locus::detail {

bool post_child(group_state& g, parent_first_job* job, int target, bool owner_only) noexcept {
  worker& self = this_worker();
  runtime_state& rt = *self.rt;
  count_entry_demand(self);  // roots.cpp
  if (target < 0 || target >= static_cast<int>(rt.workers.size())) return false;
  worker& to = *rt.workers[static_cast<std::size_t>(target)];
  // Counted before it can run: the child's -1 must not come before its +1
  // once the parent may be waiting (join.cpp's task_group protocol).
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  // A loop-affinity sub-range goes where the policy puts it, if it takes it
  // (policy_base::post; tbb-std's mailboxes), else to the target's inbox.
  const bool placed = !owner_only && rt.policy->post(self, job, target);
  if (!placed && !to.posted.deposit(job, owner_only)) {
    g.outstanding.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  g.stolen = true;  // runs elsewhere: sync must wait for it
  if (self.hooks & hook_trace) [[unlikely]] trace::named(self, "post", target);
  // After the deposit (seq_cst): a target going to sleep either sees the
  // frame or is parked by the time we look (scheduler.cpp, sleep protocol).
  rt.eng->notify_idle();
  if (!wake_if_parked(rt, to)) notify_push();
  return true;
}

}  // namespace locus::detail
