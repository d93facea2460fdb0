// Multi-level scheduling's leaders and ties (seed 003, section 4.2, figure
// 13), shared by the multi-level policies (ml-ws, ml-adws): what makes
// them multi-level, whatever each does within a level.
//
// Every worker leads one node of the cache tree at a time, and a node has
// at most one leader; at the start the leaders are elected bottom up
// (cache_tree::initial_lead). A task carries a domain, a node: only the
// leaders of the domain's children run it. A root task's domain is above
// memory: memory's leader runs it.
//
// tie(): when the leader W of a node C that is not a leaf opens a task
// group that fits C (line 55), the group is tied to C: W steps down to
// lead its child of C (line 56), and the group is scheduled among the
// leaders of C's children (line 57). At most one group is tied to a node
// at a time, since only its leader ties and it steps down to do so.
// untie(): at the group's sync the worker that runs the continuation (a
// leader of one of C's children) becomes C's leader again (line 58).
//
// Parked frames (where locus differs from the paper; docs/architecture.md).
// A worker has one deque, and when it ties a group its deque holds frames
// of the level above (its ancestors' continuations) that would sit above
// the tied group's frames, where the new level's thieves could not reach
// past them. So tie() moves them to the tied node's parked frames: the
// node's next leader takes them newest first, the leaders of its sibling
// nodes (who run the same level) may steal them oldest first. To the core
// each move is a steal: the child that returns finds its parent gone and
// takes the stolen path, and whoever runs the frame later resumes it.
//
// Context words: policy[0] holds the domain + 1 in its low 16 bits (0: a
// root task; the deque tag, so that thieves check a frame's level before
// taking it), the policy's own depth + 1 in bits 16-30 (ml-adws) and, in a
// tied group's own context only, the tie mark in bit 31; policy[1] and
// policy[2] are the policy's (ml-adws: the distribution range).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "policy/multilevel/cache_tree.hpp"
#include "policy/policy.hpp"

namespace locus::detail {

namespace level_word {
inline constexpr std::uint32_t domain_bits = 0xffff;
inline constexpr std::uint32_t tie_mark = 1u << 31;
// The domain a context names (-1: above memory, a root task).
inline int domain(std::uint32_t word) { return static_cast<int>(word & domain_bits) - 1; }
inline int domain(const task_context& c) { return domain(c.policy[0]); }
inline std::uint32_t tag(int domain) { return static_cast<std::uint32_t>(domain + 1); }
inline bool tied(const task_context& c) { return (c.policy[0] & tie_mark) != 0; }
}  // namespace level_word

class cache_leaders {
 public:
  // The owning policy's counters for what happens here (policy_context::count).
  struct counters {
    int ties, parked, overlapping_ties;
  };

  cache_leaders(policy_context& ctx, counters ids);

  const cache_tree& tree() const { return tree_; }
  int lead_of(int worker) const { return lead_[index(worker)].value.load(std::memory_order_acquire); }
  int leader_of(int node) const { return leader_[index(node)].value.load(std::memory_order_acquire); }
  // The domain of the level `worker` runs: the parent of the node it leads
  // (-1 for memory's leader, which runs root tasks).
  int level_of(int worker) const { return tree_.at(lead_of(worker)).parent; }

  // Figure 13 lines 54-57: if w leads a node that is not a leaf and
  // `footprint` fits it (unknown_footprint fits), ties the group there:
  // parks w's deque, steps w down, sets the group's context and the
  // running task's to the node's domain (the group's marked as tied), and
  // wakes the node's children's leaders. Returns the node, or -1.
  int tie(worker_view& w, task_context& group, std::size_t footprint);
  // Line 58: the tied group's sync is done on w; w leads `node` again and
  // the running task goes back to the level above it.
  void untie(worker_view& w, int node);

  // Whether w runs the level of a task with context c: w leads a child of
  // the task's domain (memory, for a root task). A frame posted to a
  // worker (static partitions, loop affinity: partition.hpp) may run on
  // any worker; what it opens is not tied, and its continuation goes back
  // to its level (hand_over).
  bool at_level(const worker_view& w, const task_context& c) const { return level_of(w.id) == level_word::domain(c); }
  // Parks f, whose level w does not run, where its level finds it: at the
  // child of its domain that holds w (else the first; its leader takes it,
  // its siblings' leaders may steal it), or at memory for a root task's.
  void hand_over(worker_view& w, frame* f);

  // A parked frame of `node`: the newest (its leader) or the oldest (a thief).
  frame* take_parked(int node, bool newest);
  bool has_parked(int node) const;

 private:
  struct alignas(64) slot {
    std::atomic<int> value{-1};
  };
  struct alignas(64) parked_frames {
    std::mutex lock;
    std::deque<frame*> frames;  // oldest first
    std::atomic<int> count{0};
  };
  static std::size_t index(int i) { return static_cast<std::size_t>(i); }
  void park(worker_view& w, int node);
  void park_frames(worker_view& w, int node, const std::vector<frame*>& oldest_first);
  void wake_leaders(int parent, int except, int skip_worker);

  policy_context* ctx_;
  counters ids_;
  cache_tree tree_;
  std::vector<slot> lead_;    // per worker: the node it leads
  std::vector<slot> leader_;  // per node: its leader, -1 if none
  std::vector<slot> tied_;    // per node: groups tied to it now (0 or 1)
  std::vector<std::unique_ptr<parked_frames>> parked_;  // per node
};

}  // namespace locus::detail
