// `ml-ws`: multi-level work stealing (seed 003, section 4: multi-level
// scheduling, figures 12 and 13, with random work stealing at each level).
//
// Leaders, domains and ties are cache_leaders' (leaders.hpp): a group
// whose footprint fits the node its opener leads is tied to it and runs
// among the leaders of the node's children; at most one group per node. A
// group without locus::footprint is taken to fit the first node that can
// take it, so a program without footprints is scheduled as random work
// stealing within each of the top-level caches.
//
// Random work stealing per level (section 4.2: "we can easily apply
// existing schedulers ... to each cache level"): a worker that leads L
// steals from a random sibling S of L: from S's parked frames, then from
// the deque of S's leader, taking the oldest frame only if its domain is
// L's parent (the deque tag, hook_tag_frames).
#pragma once

#include "policy/multilevel/leaders.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class ml_ws_policy final : public policy_base {
 public:
  // Indices in the registry entry's counters.
  enum counter : int { ties, parked, parked_takes, parked_steals, level_steals, overlapping_ties };

  explicit ml_ws_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view&) override { return nullptr; }  // find_work steals per level
  bool open_group(worker_view& w, task_context& group, std::size_t footprint) override {
    return leaders_.tie(w, group, footprint) >= 0;
  }
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;
  void route_spawn(worker_view& w, frame* f) override { push_own(w, f); }
  // A continuation goes on only on a worker of its level (leaders.hpp, at_level).
  bool keep_at_sync(worker_view& w, const frame& parent) override { return leaders_.at_level(w, parent.ctx); }
  frame* on_ready(worker_view& w, frame* parent, ready_reason) override;
  bool has_work_for(worker_view& w) override;
  bool may_take(const worker_view& w, const worker_view* owner) override;
  bool filters_work() const override { return true; }

  const cache_leaders& leaders() const { return leaders_; }

 private:
  cache_leaders leaders_;
};

policy_entry ml_ws_entry();

}  // namespace locus::detail
