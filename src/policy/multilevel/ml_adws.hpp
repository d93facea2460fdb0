// `ml-adws`: multi-level ADWS (seed 003, section 5, figure 14): the
// multi-level scheduling of ml-ws (leaders.hpp: leaders, domains, ties,
// figure 13) with single-level ADWS (section 3, figures 7 and 11) as the
// scheduler among the caches of each level.
//
// Within a level the caches play the part of SL-ADWS's workers: the group
// tied to node C has the distribution range [0, k) over C's k children,
// each child task takes its share of its group's range in proportion to
// its work hint (figure 7), and a task whose range spans several children
// (cross-worker) belongs to child floor(x). Its owner is that child node,
// not a worker: the node's current leader runs what is migrated to it and
// the continuations returned to it, and a node that is tied to a group of
// its own (a level-(l+1) leaf running) takes them once that group is done.
// So the per-worker queues of adws (migration queues by depth, returned
// continuations, steal ranges) are per node here; the primary queue of a
// node is its leader's deque, plus its parked frames. Load balancing is
// section 3.2's: a group becomes dominant when a cross-worker child of it
// finishes, and the children of its range then steal within it, deepest
// first.
//
// A level's tied group is that level's root task: ranges restart at [0, k)
// over the node's children, with depth 0 (policy[0] bits 16-30 hold the
// depth + 1, policy[1] and policy[2] x and y; leaders.hpp).
//
// Cache hierarchy flattening (figure 15, leaders.hpp): a group whose
// opener's range covers caches C_i..C_max(i,j-1) of its level and fits
// their total capacity is a level of its own over their descendants some
// levels down, [0, k) over those k caches. So a root group that fits the
// sum of the L3s runs as SL-ADWS over every worker, not over the sockets.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "policy/adws/inbound.hpp"
#include "policy/adws/range.hpp"
#include "policy/multilevel/leaders.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class ml_adws_policy final : public policy_base {
 public:
  // Indices in the registry entry's counters.
  enum counter : int {
    ties,
    parked,
    parked_takes,
    migrated,
    returned,
    returned_takes,
    migration_takes,
    local_steals,
    undominated_rounds,
    overlapping_ties,
    flattened,
    // Why a steal attempt in the steal range found nothing: the victim's
    // oldest deque frame is of another level, or shallower than the steal
    // range's depth (lines 48-50 take only frames at depth >= d), or its
    // deque, migration queues and parked frames were empty or excluded.
    misses_other_level,
    misses_shallow,
    misses_empty,
    // Frames a thief moved off a victim's deque to its node's per-depth
    // aside queues (figure 8's per-depth primary queues; adws.cpp).
    set_aside,
    // Caches with no leader and work sent to them that a leader of one of
    // their children came up to lead (section 4.2; leaders.hpp claim), or
    // that the worker that had left them for a larger cache came back down
    // to lead (step_down).
    claims
  };

  explicit ml_adws_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view&) override { return nullptr; }  // find_work steals within the steal range
  bool open_group(worker_view& w, task_context& group, std::size_t footprint) override;
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;
  void route_spawn(worker_view& w, frame* f) override;
  bool keep_at_sync(worker_view& w, const frame& parent) override;
  frame* on_ready(worker_view& w, frame* parent, ready_reason why) override;
  bool has_work_for(worker_view& w) override;
  bool may_take(const worker_view& w, const worker_view* owner) override;
  bool filters_work() const override { return true; }

  const cache_leaders& leaders() const { return leaders_; }

 private:
  struct alignas(64) steal_slot {
    std::atomic<std::uint64_t> word{0};
  };

  static range range_of(const task_context& c);
  static void store(task_context& c, const range& r);
  const range_codec& codec(int domain) const { return codecs_[static_cast<std::size_t>(domain)]; }
  // The child of `domain` that owns r (a node id).
  int owner_node(int domain, const range& r) const;
  // Whether the task with context c, ready on w, belongs elsewhere: the
  // node that owns it, or -1 if w may run it.
  int away_owner(const worker_view& w, const task_context& c) const;

  bool send_away(worker_view& w, frame* f);
  frame* steal_primary(worker_view& thief, worker_view& victim, int victim_node, int domain, std::uint32_t depth,
                       counter& miss);
  void give(worker_view& w, int node, frame* f, adws_inbound::queue queue);
  // The parent of the node w leads, if it has no leader, w may lead it
  // (cache_leaders::claimable) and work waits there; else -1.
  int claimable_with_work(const worker_view& w);
  // The first of cache_leaders::leaderless_below with work queued, or -1.
  int leaderless_below_with_work(const worker_view& w);
  // Work queued at the node: inbound (returned, migrated, set aside) or parked.
  bool queued_at(int node);
  adws_inbound& inbound_of(int node) { return *inbound_[static_cast<std::size_t>(node)]; }
  // The steal range a group of `domain` gives the children it dominates.
  steal_word word_of(int domain, const range& group) const;
  void dominate(worker_view& w, int domain, const range& group);
  void release(int domain, const range& group);
  steal_word steal_range(int node) const {
    return steal_word::from(steals_[static_cast<std::size_t>(node)].word.load(std::memory_order_acquire));
  }

  cache_leaders leaders_;
  std::vector<range_codec> codecs_;  // per domain: over its children
  std::vector<std::unique_ptr<adws_inbound>> inbound_;  // per node
  std::vector<steal_slot> steals_;                 // per node
};

policy_entry ml_adws_entry();

}  // namespace locus::detail
