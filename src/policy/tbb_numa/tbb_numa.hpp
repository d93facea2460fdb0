// `tbb-numa`: the task scheduler of TBB-NUMA (Majo and Gross, seed 001,
// section 4.3 and 4.4) on locus's default arena:
//   - TBB's spawn: task_group::spawn queues the child on the spawner's deque
//     and the parent goes on (parent-first, as a TBB task spawns its
//     children); fork_join stays work-first unless a branch is hinted at
//     another place.
//   - sticky task-to-place affinity (4.4): a child hinted at place p is
//     present twice, as in TBB: on the spawner's deque and in the mailbox
//     of place p, through a proxy that whichever side takes first runs (the
//     other side drops it). The affinity is never rewritten. When every
//     place has one worker, a child for the spawner's own place is a plain
//     parent-first child: only the spawner would receive it.
//   - one mailbox per place, served only by that place's workers (rule 4'
//     of figure 7): a worker out of its own deque receives from its
//     place's mailbox before it steals.
//   - the idle counter and the bypass of figure 9: a worker of place p that
//     has run out of its own deque counts itself idle at p until it has
//     looked into its mailbox; a thief stealing a proxy for another place
//     leaves it (bypasses the victim) while p's mailbox is idle or p has
//     fewer active workers than the resource manager allots the arena
//     there (core/arenas.hpp), since p will receive it soon, and wakes a
//     worker of p. A worker is active at its place in the arena it serves
//     unless it went to sleep. Options (ours, off by default) widen both
//     rules: idle_while_stealing, bypass_plain_frames.
//   - arenas (4.2): every arena has its own mailbox per place, served only
//     by the workers of that place that serve the arena.
//   - revokes (4.4.3): the spawner's own pops (rule 3) never bypass, so a
//     proxy nobody at p received runs on its spawner, and every child runs.
// The retrieval order (figure 7): own deque (3), own place's mailbox (4'),
// the P+1 shared queues of enqueued tasks (5', 5'', 5''': the core's
// root_queues, own place first), a random victim's deque (6).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>

#include "policy/spi/registry.hpp"

namespace locus::detail {

// Rule 6 picks its victim as ws does (policy_base::choose_victim).
class tbb_numa_policy final : public policy_base {
 public:
  explicit tbb_numa_policy(policy_context& ctx);
  ~tbb_numa_policy();

  search_result find_work(worker_view& w) override;
  frame* steal_from(worker_view& thief, worker_view& victim) override;
  // The hinted children are mailed (all of them when places have several
  // workers, else those hinted at another place).
  bool routes(const worker_view& w, std::int32_t place) override {
    return place != any_place && (route_all_hinted_ || place != w.place);
  }
  void route_spawn(worker_view& w, frame* f) override;
  // TBB's spawn is parent-first; a fork_join branch hinted at another place
  // is spawned so too, so that it is mailed there (the other forks stay
  // work-first, locus's fast path).
  bool parent_first(worker_view& w, bool fork, std::int32_t place) override {
    return !fork || (place != any_place && place != w.place);
  }
  bool keep_at_sync(worker_view& w, const frame& parent) override;
  frame* on_ready(worker_view& w, frame* parent, ready_reason why) override;
  bool has_work_for(worker_view& w) override;
  void on_sleep(worker_view& w) override;

  // Indices in the registry entry's counters and costs. mailed: affinity
  // children sent to a mailbox; received: run from a mailbox at their place
  // (successful affinization); revoked: run by their spawner from its deque;
  // stolen: taken from a deque by a thief (unsuccessful affinization,
  // section 4.4.2); bypassed: steal attempts that left an affinity child to
  // its idle place.
  enum counter : int { mailed, received, revoked, stolen, bypassed };

  // Options (the registry entry): the paper's figure 9 rules by default;
  // ours, wider, when set.
  struct options {
    // idle_while_stealing: a worker counts idle at its place through its
    // whole search (shared queues and steal attempts included), not only
    // from falling through rule 3 until it has looked into its mailbox.
    bool idle_while_stealing = false;
    // bypass_plain_frames: every frame with a place is left to its idle
    // place (forks and continuations of a task hinted there), not only
    // affinitized (mailed) children.
    bool bypass_plain_frames = false;
  };
  enum cost : int { mailbox_op };

  // The proxy that stands for an affinity child in its spawner's deque and
  // in its place's mailbox (TBB's task proxy): each of the two sides claims
  // it once; the first runs the child, the second frees the proxy.
  struct proxy : frame {
    frame* child = nullptr;
    int owner = -1;  // the worker whose deque holds it (its spawner)
    std::atomic<int> claims{0};
  };

 private:
  bool route_all_hinted_ = false;  // places have several workers (the constructor)
  options opts_;
  // One per arena and place.
  struct alignas(64) mailbox {
    std::mutex lock;
    std::deque<proxy*> queue;   // under lock, oldest first
    std::atomic<int> size{0};   // queue.size(), read without the lock
    // Figure 9: workers of this place and arena searching beyond their own
    // deque (set_idle), and how many of them are awake.
    std::atomic<int> idle{0};
    std::atomic<int> active{0};
  };
  struct alignas(64) worker_state {
    int counted = -1;  // the mailbox whose active workers count this one; -1 asleep
  };

  mailbox& box(int arena, int place) const {
    return mail_[static_cast<std::size_t>(arena) * static_cast<std::size_t>(places_) + static_cast<std::size_t>(place)];
  }
  // Figure 9's is_idle, in an arena: a worker of place p is about to look
  // into its mailbox, or some worker allotted to p is not active.
  bool is_idle(int arena, int place) const;
  // w is awake at its place in the arena it serves (figure 9's
  // num_threads_active), counted in that mailbox only.
  void count_active(worker_view& w, int index);
  // Rule 4': the oldest live child in w's place's mailbox, or nullptr.
  frame* receive(worker_view& w);
  // The child of a proxy taken from a deque, or nullptr if the mailbox side
  // ran it (the proxy is then freed). Other frames pass through.
  frame* claim_from_deque(worker_view& w, frame* f);
  void wake_place(int arena, int place);
  // Pushes a proxy on w's deque with its tag (proxy_tag).
  void push_proxy(worker_view& w, proxy* p);
  void drop_dead_proxies(worker_view& w);

  int places_ = 0;
  std::unique_ptr<mailbox[]> mail_;
  std::unique_ptr<worker_state[]> state_;
};


// Deque tags (work_deque::push_tagged, steal_if). A proxy carries its
// place + 1 with the top bit set (its context's first policy word, so that
// every push of it, the core's included, tags it so); other frames carry 0,
// or, under bypass_plain_frames, their place + 1 (hook_tag_place).
inline constexpr std::uint32_t proxy_tag_bit = 0x80000000u;
inline std::uint32_t proxy_tag(int place) { return static_cast<std::uint32_t>(place + 1) | proxy_tag_bit; }
// The place a thief may leave the frame of this tag to (if that place is
// idle), or -1 if it never leaves it: figure 9's bypass applies to
// affinitized tasks (proxies) only, unless bypass_plain_frames.
inline int bypass_place(std::uint32_t tag, bool bypass_plain_frames) {
  if ((tag & proxy_tag_bit) == 0 && !bypass_plain_frames) return -1;
  return static_cast<int>(tag & ~proxy_tag_bit) - 1;
}

// Shutdown's check of a proxy left in a mailbox: its deque side must have
// claimed it (the child ran). Otherwise a message on stderr and abort(), in
// every build.
void check_ran_at_shutdown(const tbb_numa_policy::proxy& p) noexcept;

// Its registry entry: counters mailed, received, revoked, stolen, bypassed,
// and the simulated cost of a mailbox operation.
policy_entry tbb_numa_entry();

}  // namespace locus::detail
