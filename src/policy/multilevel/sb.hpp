// `sb`: a space-bounded scheduler (Chowdhury et al.; Blelloch, Fineman,
// Gibbons and Simhadri; Simhadri et al.'s experimental analysis, whose
// "SB-D" variant is the comparator of seed 003 section 6, with sigma = 0.5
// and mu = 0.2), over the same tree of caches as the multi-level policies
// (cache_tree.hpp), leaves (a worker's private cache) included.
//
// sigma (the dilation, option `sigma`, default 0.5): a task group whose
// footprint (locus::footprint) is S is anchored to the smallest cache C on
// the opening worker's path, below the one its task is anchored to, with
// S <= sigma * M(C) (it "befits" C) and room left. mu (option `mu`,
// default 0.2): a cache's occupancy is the sum of S over the groups
// anchored to it, plus min(mu * M, S) for every group anchored below it
// whose task was anchored above it (a task that skips its level); a group
// is anchored only if every cache it charges stays within its capacity M.
// The group's tasks, and the rest of the running task until the sync, may
// then run only on workers below C; the sync gives the charges back. A
// group without a footprint, or one that fits no cache with room, stays
// where its task is anchored. Root tasks are anchored to memory: every
// worker may run them, so a program without footprints runs as ws.
//
// Stealing: a thief tries, half of the time, a random worker of its own
// lowest shared cache, otherwise any worker, and takes the oldest frame of
// the victim's deque only if the frame's cache holds the thief (the deque
// tag is the frame's cache). A cache's tasks stay below it, and since a
// deque's older frames are anchored to larger caches (which hold every
// worker the newer ones' do), what a thief may take is never hidden
// behind what it may not.
//
// Where this differs from Simhadri et al.'s SB-D: no per-cache task queues
// (a group that befits a cache with no room left is not queued for it but
// anchored to the next larger cache with room, or not at all); sizes are
// given per task group (locus::footprint), where the paper gave SB a size
// per task (seed 003 section 6.1); steals go to random victims within the
// anchor's cache rather than to the anchor's queue.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "policy/multilevel/cache_tree.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class sb_policy final : public policy_base {
 public:
  // Indices in the registry entry's counters.
  enum counter : int { anchored, no_room, near_steals, far_steals, private_anchored };

  explicit sb_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view&) override { return nullptr; }  // find_work chooses
  bool open_group(worker_view& w, task_context& group, std::size_t footprint) override;
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;
  void route_spawn(worker_view& w, frame* f) override { push_own(w, f); }

  const cache_tree& tree() const { return tree_; }
  // A node's occupancy now, in 64-byte lines.
  std::uint64_t used_lines(int node) const { return used_[static_cast<std::size_t>(node)].lines.load(); }
  double sigma() const { return sigma_; }
  double mu() const { return mu_; }

 private:
  struct alignas(64) room {
    std::atomic<std::uint64_t> lines{0};
  };
  bool holds(int node, int worker) const;
  bool reserve(int node, std::uint64_t lines);
  // What a group of `lines` anchored below `node` by a task anchored above
  // it charges there: min(mu * M, S).
  std::uint64_t skip_charge(int node, std::uint64_t lines) const;
  // Gives back a group's charges: `lines` at `anchor`, skip_charge at each
  // cache above it up to `outer` (excluded); `until` (not -1): stops there.
  void release(int anchor, int outer, std::uint64_t lines, int until = -1);

  cache_tree tree_;
  std::vector<room> used_;            // per node
  std::vector<int> lowest_shared_;    // per worker: the parent of its leaf
  double sigma_ = 0.5;
  double mu_ = 0.2;
};

policy_entry sb_entry();

}  // namespace locus::detail
