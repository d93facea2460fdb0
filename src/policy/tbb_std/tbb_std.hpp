// `tbb-std`: standard TBB's scheduling, the baseline of TBB-NUMA (seed 001,
// section 3 and figure 16), modeled on oneTBB's own design:
//   - TBB's spawn: task_group::spawn queues the child on the spawner's deque
//     and the parent goes on (parent-first); fork_join stays work-first
//     (locus's fast path, as under tbb-numa).
//   - a mailbox per worker thread and arena (oneTBB: one per arena slot,
//     src/tbb/mailbox.h, arena::mailbox(slot)).
//   - the affinity partitioner's proxies (oneTBB: task_proxy): a
//     loop_affinity sub-range posted to worker t (policy_base::post) is
//     present twice, on the poster's deque and in t's mailbox; whichever
//     side takes it first runs it, the other frees the proxy. The loop
//     records the worker that ran each sub-range (loop_piece::ran_on;
//     oneTBB: note_affinity) and the next run posts it there, with no cap
//     of a share per worker (hook_exact_affinity). The poster's own
//     sub-ranges are plain tasks on its deque, queued last (oneTBB: a
//     task whose affinity is the spawner's own slot).
//   - the search of an idle worker (oneTBB: task_dispatcher::
//     receive_or_steal_task): own deque, newest first; then, marked idle,
//     its own mailbox, the shared queues (oneTBB's streams of enqueued
//     tasks), and one steal from a victim chosen uniformly at random.
//   - the idle mark (oneTBB: mail_outbox::my_is_idle): a worker's mailbox
//     counts as idle while the worker searches or sleeps, and, in an arena
//     it does not serve, always (oneTBB: a slot without a thread). A thief
//     leaves a proxy on top of a victim's deque while the proxy's recipient
//     is idle and the victim is not (oneTBB: arena_slot::steal_task): the
//     recipient is expected to take it from its mailbox.
// Place hints are ignored: standard TBB has no places.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>

#include "policy/spi/registry.hpp"

namespace locus::detail {

class tbb_std_policy final : public policy_base {
 public:
  explicit tbb_std_policy(policy_context& ctx);
  ~tbb_std_policy();

  search_result find_work(worker_view& w) override;
  frame* steal_from(worker_view& thief, worker_view& victim) override;
  bool post(worker_view& w, frame* f, int target) override;
  // TBB's spawn is parent-first; forks stay work-first.
  bool parent_first(worker_view&, bool fork, std::int32_t) override { return !fork; }
  bool keep_at_sync(worker_view& w, const frame& parent) override;
  frame* on_ready(worker_view& w, frame* parent, ready_reason why) override;
  bool has_work_for(worker_view& w) override;
  void on_sleep(worker_view& w) override;

  // Indices in the registry entry's counters and costs. mailed: sub-ranges
  // sent to a mailbox; received: run from the recipient's mailbox; revoked:
  // run by their poster from its own deque; stolen: taken from the poster's
  // deque by a thief; skipped: steal attempts that left a proxy to its idle
  // recipient.
  enum counter : int { mailed, received, revoked, stolen, skipped };
  enum cost : int { mailbox_op };

  // The proxy that stands for a sub-range in its poster's deque and in its
  // recipient's mailbox (oneTBB's task_proxy): each side claims it once;
  // the first runs the sub-range, the second frees the proxy.
  struct proxy : frame {
    frame* child = nullptr;
    int owner = -1;      // the poster, whose deque holds it
    int recipient = -1;  // the worker whose mailbox holds it
    std::atomic<int> claims{0};
  };

  // Whether worker `id`'s mailbox in `arena` counts as idle (oneTBB:
  // mail_outbox::recipient_is_idle): the worker searches, sleeps, or serves
  // another arena.
  bool recipient_idle(int arena, int id) const;

 private:
  struct alignas(64) mailbox {
    std::mutex lock;
    std::deque<proxy*> queue;  // under lock, oldest first
    std::atomic<int> size{0};  // queue.size(), read without the lock
  };
  struct alignas(64) worker_state {
    std::atomic<bool> idle{true};  // oneTBB: my_is_idle; a worker starts outside any task
  };

  mailbox& box(int arena, int id) const {
    return mail_[static_cast<std::size_t>(arena) * static_cast<std::size_t>(workers_) + static_cast<std::size_t>(id)];
  }
  void set_idle(worker_view& w, bool idle) {
    state_[static_cast<std::size_t>(w.id)].idle.store(idle, std::memory_order_relaxed);
  }
  // The oldest live proxy's sub-range in w's mailbox, or nullptr.
  frame* receive(worker_view& w);
  // The sub-range of a proxy taken from a deque, or nullptr if the mailbox
  // side ran it (the proxy is then freed). Other frames pass through.
  frame* claim_from_deque(worker_view& w, frame* f);
  void drop_dead_proxies(worker_view& w);

  int workers_ = 0;
  std::unique_ptr<mailbox[]> mail_;
  std::unique_ptr<worker_state[]> state_;
};

// Deque tags: a proxy carries its recipient's id + 1 with the top bit set;
// other frames 0.
inline constexpr std::uint32_t std_proxy_bit = 0x80000000u;
inline std::uint32_t std_proxy_tag(int recipient) { return static_cast<std::uint32_t>(recipient + 1) | std_proxy_bit; }
// The recipient of the proxy with this tag, or -1 for any other frame.
inline int std_proxy_recipient(std::uint32_t tag) {
  return (tag & std_proxy_bit) == 0 ? -1 : static_cast<int>(tag & ~std_proxy_bit) - 1;
}

// Its registry entry: counters mailed, received, revoked, stolen, skipped,
// and the simulated cost of a mailbox operation.
policy_entry tbb_std_entry();

}  // namespace locus::detail
