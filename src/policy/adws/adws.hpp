// `adws`: almost deterministic work stealing, single-level (SL-ADWS; seed
// 003, section 3, figures 5 to 11).
//
// Deterministic task mapping (section 3.1, figure 7). A task carries a
// distribution range [x, y) over the workers in its task context
// (range.hpp); the root task's is [0, P). A task group takes its task's
// range at its first spawn, and each child takes the next share of it in
// proportion to its work hint (policy/spi/work_shares.cpp: task_group, fork_join and the
// loops pass the shares; share_work turns a share into a range). A task
// whose range spans several workers (floor(x) != floor(y)) is a
// cross-worker task and belongs to worker floor(x). In a cross-worker
// group created on worker i:
//   (1) a child owned by another worker is migrated to it: queued
//       parent-first, into that worker's migration queue at the child's
//       depth (route_spawn);
//   (2) the cross-worker child owned by i runs at once (work-first), the
//       continuation pushed;
//   (3) non-cross-worker children owned by i run work-first too.
// Shares are taken from the top of the range, so a group's children are
// created (1) first, then (2), and the continuation holds only (3), as in
// section 3.1.
// After a cross-worker group's sync the continuation goes back to its
// owner (figure 7 line 31: keep_at_sync, on_ready), which takes it before
// anything but its own primary queue (find_work says why not first).
//
// Queues (figure 8): the worker's own deque is its primary queue (LIFO),
// every push tagged with the frame's depth (hook_tag_frames); migration
// queues are per depth, FIFO for the owner, stolen at the other end.
//
// Load balancing (section 3.2, figure 11). A cross-worker group becomes
// dominant when one of its cross-worker children has finished; the steal
// range of worker k is the range of the topmost (shallowest) dominant
// group with floor(x) <= k < floor(y), kept per worker as one word
// (steal_word) and widened when a group becomes dominant, cleared when it
// completes. A worker without a steal range does not steal (line 40); one
// with a range steals from a random worker of floor(x)..floor(y): from its
// migration queues (not those of floor(x)), deepest first down to the
// group's depth, then from its primary queue (not that of floor(y)). When
// the root group becomes dominant every worker steals from every other:
// the regression to random stealing of section 3.2.
//
// Where locus differs (documented in docs/architecture.md): the primary
// queues are one Chase-Lev deque (the core's) rather than one per depth.
// Depths are non-decreasing from the top of a deque to its bottom, so the
// oldest frame is where figure 11's top-down scan starts; a thief takes it
// if its depth is at least the group's. An older, shallower frame would
// hide deeper ones from the thief, so the thief sets it aside: it moves to
// the victim's per-depth aside queues (inbound.hpp), still the victim's
// primary-queue frame, which the victim takes once its deque is empty and
// thieves allowed its depth may steal (steal_primary). Root tasks start on
// worker 0, where the root range [0, P) puts them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "policy/adws/inbound.hpp"
#include "policy/adws/range.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class adws_policy final : public policy_base {
 public:
  // Indices in the registry entry's counters.
  enum counter : int {
    migrated,
    returned,
    returned_takes,
    migration_takes,
    local_steals,
    undominated_rounds,
    set_aside,
  };

  explicit adws_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view& thief) override;
  frame* steal_from(worker_view& thief, worker_view& victim) override;
  bool keep_at_sync(worker_view& w, const frame& parent) override;
  frame* on_ready(worker_view& w, frame* parent, ready_reason why) override;
  void route_spawn(worker_view& w, frame* f) override;
  bool has_work_for(worker_view& w) override;
  bool may_take(const worker_view& w, const worker_view* owner) override;
  bool filters_work() const override { return true; }
  bool open_group(worker_view& w, task_context& group, std::size_t footprint) override;
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;

  // Worker w's current steal range (none if it is not dominated).
  steal_word steal_range(int w) const { return steal_word::from(steals_[static_cast<std::size_t>(w)].word.load(std::memory_order_acquire)); }

 private:
  struct alignas(64) steal_slot {
    std::atomic<std::uint64_t> word{0};
  };

  void give(int to, frame* f, adws_inbound::queue queue);
  frame* steal_primary(worker_view& thief, worker_view& victim, std::uint32_t depth);
  void dominate(worker_view& w, const range& group);
  void release(const range& group);

  range_codec codec_;
  std::vector<std::unique_ptr<adws_inbound>> inbound_;  // per worker
  std::vector<steal_slot> steals_;
};

policy_entry adws_entry();

}  // namespace locus::detail
