// `ml-ws`: multi-level work stealing (seed 003, section 4: multi-level
// scheduling, figures 12 and 13, with random work stealing at each level).
//
// The machine is a tree of caches (cache_tree.hpp). Every worker leads one
// node of it at a time, and a node has at most one leader; at the start
// the leaders are elected bottom up (worker 0 leads memory, the first
// worker of each other shared cache leads it, every other worker its own
// leaf). A task carries a domain (its context's policy[0] - 1, a node): it
// runs only on the leaders of the domain's children. A root task's domain
// is above memory (policy[0] == 0): memory's leader runs it.
//
// Tying (figure 13, open_group). When the leader W of a node C that is not
// a leaf opens a task group whose footprint fits C (memory fits all), the
// group is tied to C: its children, and the rest of the running task until
// the group's sync, take domain C, and W becomes the leader of its child
// of C, so that the group is scheduled among the leaders of C's children
// (line 57). At most one group is tied to a node at a time, since only its
// leader ties and the leader steps down to do so. At the group's sync the
// worker that runs the continuation becomes C's leader again (line 58) and
// the running task takes back the domain above C. A group that does not
// fit (or is opened by a leaf's leader) stays at the current level (line
// 60). A group without locus::footprint is taken to fit the first node
// that can take it, so a program without footprints is scheduled as
// random work stealing within each of the top-level caches.
//
// Random work stealing per level (section 4.2: "we can easily apply
// existing schedulers ... to each cache level"): a worker that leads L
// steals from a random sibling S of L: from S's parked frames (below),
// then from the deque of S's leader, taking the oldest frame only if its
// domain is L's parent (the deque tag, hook_tag_frames).
//
// Where locus differs (docs/architecture.md): a worker has one deque, and
// frames of the level above a tie would sit above the tied group's frames,
// where the thieves of the new level could not reach past them. So a tie
// first moves the leader's deque (frames of the level above, all of them
// its ancestors' continuations) to the node it ties, as its parked
// frames: taken newest first by the node's leader, stolen oldest first by
// its siblings' leaders. For the core this is a steal of each of them.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "policy/multilevel/cache_tree.hpp"
#include "policy/registry.hpp"

namespace locus::detail {

class ml_ws_policy : public policy_defaults {
 public:
  // Indices in the registry entry's counters.
  enum counter : int { ties, parked, parked_takes, parked_steals, level_steals, overlapping_ties };

  explicit ml_ws_policy(policy_context& c);

  search_result find_work(worker_view& w);
  worker_view* choose_victim(worker_view&) { return nullptr; }  // find_work steals per level
  bool open_group(worker_view& w, task_context& group, std::size_t footprint);
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi);
  void share_done(worker_view& w, const task_context& group, const task_context* child);
  void route_spawn(worker_view& w, frame* f) { push_own(w, f); }
  bool has_work_for(worker_view& w);
  bool may_take(const worker_view& w, const worker_view* owner);

  const cache_tree& tree() const { return tree_; }
  int lead_of(int worker) const { return lead_[static_cast<std::size_t>(worker)].value.load(std::memory_order_acquire); }

 private:
  struct alignas(64) slot {
    std::atomic<int> value{-1};
  };
  // Frames of the level above a tie, moved off the leader's deque.
  struct alignas(64) parked_frames {
    std::mutex lock;
    std::deque<frame*> frames;  // oldest first
    std::atomic<int> count{0};
  };

  frame* take_parked(int node, bool newest);
  void park(worker_view& w, int node);
  int parent_of_lead(int worker) const;

  cache_tree tree_;
  std::vector<slot> lead_;     // per worker: the node it leads
  std::vector<slot> leader_;   // per node: its leader, -1 if none
  std::vector<slot> tied_;     // per node: groups tied to it now (0 or 1)
  std::vector<std::unique_ptr<parked_frames>> parked_;  // per node
};
static_assert(scheduling_policy<ml_ws_policy>);

policy_entry ml_ws_entry();

}  // namespace locus::detail
