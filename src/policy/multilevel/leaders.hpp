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
// Cache hierarchy flattening (section 5, figure 15; ml-adws): a group whose
// opener's task covers caches C_i..C_m of its level (its distribution
// range) and that fits their total capacity is scheduled over their
// descendants some levels down (a flattened domain), as one level. The
// covered caches are tied to it; their leaders step down into the domain,
// and back up at its end, when they next look for work (settle): a leader
// may be busy with its level's work when the group opens, and nothing
// running is preempted.
//
// Claims (ml-adws; section 4.2: a leader is chosen from the leaders of the
// node's children, and can be absent). A node may have no leader while
// work waits there (its leader settles lazily, above). A leader of one of
// its children, idle with nothing of its own node queued, may come up to
// lead it if no group is tied to it (then neither the node's level nor the
// claimant's has a task, so nothing is left behind) and it is no worker's
// lead (a covered node's old leader keeps it until it settles). A worker
// on its way to a claimed node (settle, tie) leads the first free node
// below it.
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
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "policy/multilevel/cache_tree.hpp"
#include "policy/spi/policy.hpp"

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
    int flattened = -1;  // ml-adws only
    int claims = -1;     // ml-adws only
  };

  // `flattening`: cache hierarchy flattening (figure 15, ml-adws) may tie a
  // group to several caches at once (a flattened domain).
  cache_leaders(policy_context& ctx, counters ids, bool flattening = false);

  const cache_tree& tree() const { return tree_; }
  int lead_of(int worker) const { return lead_[index(worker)].value.load(std::memory_order_acquire); }
  int leader_of(int node) const { return leader_[index(node)].value.load(std::memory_order_acquire); }
  // Whether `worker` takes frames from the shared queues: memory's leader
  // (they hold the root tasks, which start at the top of the tree), or
  // anyone while a group is tied to memory and memory has no leader: the
  // frames there are then that group's enqueued children and woken waiters
  // (task_group::enqueue, locus::mutex), which would otherwise wait for
  // the group's own sync.
  bool takes_shared(int worker) const { return lead_of(worker) == cache_tree::root || leader_of(cache_tree::root) < 0; }

  // Domains: what a task's context names as its level. The tree's nodes
  // (ids below tree().size(): a node's domain is its children) and then the
  // flattened domains (figure 15: the caches some level down under several
  // caches, or under one cache more than one level down).
  int domains() const { return tree_.size() + static_cast<int>(flat_.size()); }
  const std::vector<int>& children_of(int domain) const {
    return domain < tree_.size() ? tree_.at(domain).children : flat(domain).children;
  }
  // A child's place among its domain's children.
  int index_in(int domain, int node) const;
  // The child of `domain` that holds `worker` (-1 if none does).
  int child_toward(int domain, int worker) const;
  // The domain whose tasks the leader of `node` runs: its parent, or the
  // flattened domain that holds it while one does.
  int domain_of(int node) const { return domain_of_[index(node)].value.load(std::memory_order_acquire); }
  // The domain of the level `worker` runs (-1 for memory's leader, which
  // runs root tasks).
  int level_of(int worker) const { return domain_of(lead_of(worker)); }

  // Figure 13 lines 54-57: if w leads a node that is not a leaf and
  // `footprint` fits it (unknown_footprint fits), ties the group there:
  // parks w's deque, steps w down, sets the group's context and the
  // running task's to the node's domain (the group's marked as tied), and
  // wakes the node's children's leaders. With flattening (figure 15), the
  // caches from w's node through `through` (a later sibling the running
  // task's range covers, -1: w's node alone) decide where the group goes,
  // possibly a flattened domain. Returns the domain, or -1 (not tied).
  int tie(worker_view& w, task_context& group, std::size_t footprint, int through = -1);
  // Line 58: the tied group's sync is done on w; w leads the domain's
  // (first) cache again and the running task's context is as before tie().
  void untie(worker_view& w, int domain);
  // Applies what a flattening asked of w: to step down into the flattened
  // domain, or, at its end, back up. Lazily, when w looks for work, so that
  // nothing running is preempted; a worker that must settle ties nothing.
  void settle(worker_view& w);
  bool must_settle(int worker) const { return pending_[index(worker)].value.load(std::memory_order_acquire) >= 0; }

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

  // Section 4.2: a cache's leader is chosen from the leaders of its
  // children, and may be absent (stepped down, or settling lazily after a
  // flattening). The parent of the node w leads, if w may lead it now: it
  // is not memory, has no leader and no tied group (so no task of its own
  // domain exists, nor of w's), and its own level is the one w runs. -1
  // otherwise. Lock-free, for the sleep check; claim() decides.
  int claimable(const worker_view& w) const;
  // w, idle, with nothing queued at the node it leads (the caller checks),
  // leads that parent instead, so that work sent there does not wait for
  // an absent leader. Whoever was to settle there settles below it
  // (lead_toward). Returns whether w leads it now.
  bool claim(worker_view& w, int parent);
  // The other way: the nodes below the one w leads, on w's path to its
  // core, that have no leader (w left them when it went up: a claim, an
  // untie, a settle). A node there is w's to lead again (section 4.2: a
  // cache's leader is one of its children's). Returns the first from the
  // top for which `wanted(node)` holds, or -1; -1 also if w must settle
  // first or runs a flattened domain. No allocation: every idle search
  // round and sleep check asks.
  template <class Wanted>
  int leaderless_below(const worker_view& w, Wanted wanted) const {
    if (must_settle(w.id)) return -1;
    for (int n = lead_of(w.id); !tree_.is_leaf(n);) {
      const int c = tree_.child_toward(n, w.id);
      if (c < 0 || domain_of(c) != n) break;  // a flattened domain: its leaders settle
      if (leader_of(c) < 0 && wanted(c)) return c;
      n = c;
    }
    return -1;
  }
  // w, idle, with nothing queued at the node it leads, leads `node` (one of
  // leaderless_below's) instead, so that work sent there is not stranded.
  // Returns whether w leads it now.
  bool step_down(worker_view& w, int node);

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
  // A flattened domain (figure 15 line 69): the level-`level` caches under
  // the sibling caches first..last (or under one cache, two or more levels
  // down).
  struct flat_domain {
    int first = -1, last = -1, level = 0;
    std::vector<int> children;  // by first worker
    std::vector<int> covered;   // first..last and the nodes between them and `children`: tied while it runs
    std::vector<int> workers;   // below first..last
    // While it runs: the workers that led covered nodes, and those nodes,
    // led again at its end (written at flatten, read at unflatten, both
    // under flatten_lock_).
    std::vector<std::pair<int, int>> restore;
  };
  static std::size_t index(int i) { return static_cast<std::size_t>(i); }
  const flat_domain& flat(int domain) const { return flat_[index(domain - tree_.size())]; }
  flat_domain& flat(int domain) { return flat_[index(domain - tree_.size())]; }
  void build_flat_domains();
  // The domain figure 15 chooses for a group of `footprint` bytes opened by
  // the leader of `first`, whose task covers first..through: -1 (it fits
  // none of them), `first` (figure 13's tie) or a flattened domain.
  int choose(int first, int through, std::size_t footprint) const;
  int tie_to(worker_view& w, task_context& group, int node);
  int flatten(worker_view& w, task_context& group, int domain);
  void unflatten(worker_view& w, int domain);
  void set_contexts(worker_view& w, task_context& group, int domain);
  void lead(int worker, int from, int to);
  // The node `worker` should lead on its way to `to`: `to` if nobody else
  // leads it, else the first node toward the worker that nobody else leads
  // (a worker's own leaf at worst: only its worker leads a leaf). A node
  // led by another is one a worker claimed (claim).
  int lead_toward(int to, int worker) const;
  static constexpr int no_domain = -2;
  void park(worker_view& w, int node, int keep = no_domain);
  void park_frames(worker_view& w, int node, const std::vector<frame*>& oldest_first);
  void wake_leaders(int domain, int except, int skip_worker);

  policy_context* ctx_;
  counters ids_;
  cache_tree tree_;
  std::vector<flat_domain> flat_;
  std::map<std::tuple<int, int, int>, int> flat_ids_;  // (first, last, level) -> domain
  std::vector<slot> lead_;       // per worker: the node it leads
  std::vector<slot> pending_;    // per worker: the node to lead once it settles, -1 if none
  std::vector<slot> leader_;     // per node: its leader, -1 if none
  std::vector<slot> tied_;       // per node: groups tied to it now (0 or 1)
  std::vector<slot> domain_of_;  // per node: the domain its leader runs
  // Per domain: the running task's context before the tie, given back at
  // untie (one tied group per domain at a time).
  std::vector<task_context> saved_;
  std::vector<std::unique_ptr<parked_frames>> parked_;  // per node
  // Flattening and settling change other workers' leads; they take turns.
  std::mutex flatten_lock_;
};

}  // namespace locus::detail
