// `sb`: a space-bounded scheduler (Chowdhury et al.; Simhadri et al.'s
// experimental analysis, the comparator of seed 003 section 6), over the
// same tree of caches as the multi-level policies (cache_tree.hpp).
//
// A task group whose footprint (locus::footprint) fits a cache below the
// one its task is anchored to is anchored to the smallest such cache on
// the opening worker's path that still has room: a cache holds several
// anchored groups as long as their footprints add up to at most its
// capacity (where the multi-level policies tie one group per cache). The
// group's tasks, and the rest of the running task until the sync, may
// then run only on workers below that cache; the sync gives its bytes
// back. A group without a footprint, or one that fits no cache with room,
// stays where its task is anchored. Root tasks are anchored to memory:
// every worker may run them, so a program without footprints runs as ws.
//
// Stealing: a thief tries, half of the time, a random worker of its own
// lowest shared cache, otherwise any worker, and takes the oldest frame of
// the victim's deque only if the frame's cache holds the thief (the deque
// tag is the frame's cache). A cache's tasks stay below it, and since a
// deque's older frames are anchored to larger caches (which hold every
// worker the newer ones' do), what a thief may take is never hidden
// behind what it may not.
//
// Where this differs from Simhadri et al.'s implementation: no per-cache
// task queues and no dilation parameter (sigma = 1: a cache is full at its
// capacity); a group that fits a cache with no room left is not queued for
// it but scheduled one level up (at the next larger cache with room).
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
  enum counter : int { anchored, no_room, near_steals, far_steals };

  explicit sb_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view&) override { return nullptr; }  // find_work chooses
  bool open_group(worker_view& w, task_context& group, std::size_t footprint) override;
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;
  void route_spawn(worker_view& w, frame* f) override { push_own(w, f); }

  const cache_tree& tree() const { return tree_; }
  // Bytes anchored to a node now (in 64-byte lines).
  std::uint64_t used_lines(int node) const { return used_[static_cast<std::size_t>(node)].lines.load(); }

 private:
  struct alignas(64) room {
    std::atomic<std::uint64_t> lines{0};
  };
  bool holds(int node, int worker) const;
  bool reserve(int node, std::uint64_t lines);

  cache_tree tree_;
  std::vector<room> used_;            // per node
  std::vector<int> lowest_shared_;    // per worker: the parent of its leaf
};

policy_entry sb_entry();

}  // namespace locus::detail
