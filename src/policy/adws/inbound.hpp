// What other workers hand to one ADWS owner (a worker under adws, a cache
// under ml-adws; seed 003, figures 7 and 8): continuations returned to it
// (figure 7 line 31), tasks migrated to it (line 24), kept by depth, and
// (adws) frames of its primary queue that a thief set aside, by depth.
// Written by any worker under the lock; `count` lets the owner and the
// sleep check skip the lock when there is nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "locus/detail/frame.hpp"

namespace locus::detail {

class alignas(64) adws_inbound {
 public:
  // Which of the owner's queues a frame goes to: a continuation returned to
  // it, a task migrated to it, or (adws) a frame of its primary queue that a
  // thief set aside because it was shallower than the thief may steal (kept
  // at its depth: it is still the owner's, adws.cpp steal_primary).
  enum class queue { returned, migrated, aside };

  void give(frame* f, queue to, std::uint32_t depth) {
    std::lock_guard lock(lock_);
    if (to == queue::returned) returned_.push_back(f);
    else (to == queue::migrated ? migration_ : aside_).push(f, depth);
    // seq_cst: pairs with has_work's load in the receiver's last look
    // before it sleeps (the sleep protocol's store-load order).
    count_.fetch_add(1, std::memory_order_seq_cst);
  }

  // The oldest returned continuation.
  frame* take_returned() {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    if (returned_.empty()) return nullptr;
    frame* f = returned_.front();
    returned_.pop_front();
    count_.fetch_sub(1, std::memory_order_relaxed);
    return f;
  }

  // Figure 11 lines 36-38, the owner: shallowest first, oldest first.
  frame* take_migrated() { return take(migration_, false, false, 0); }

  // Lines 44-46, a thief: deepest first down to min_depth, newest first.
  frame* steal_migrated(std::uint32_t min_depth) { return take(migration_, true, true, min_depth); }

  // The owner, once its deque is empty: deepest first, newest first (the
  // order its deque would have popped them in).
  frame* take_aside() { return take(aside_, true, true, 0); }

  // A thief (figure 11 lines 47-50, the primary queue's top-down scan):
  // shallowest first from min_depth on, oldest first.
  frame* steal_aside(std::uint32_t min_depth) { return take(aside_, false, false, min_depth); }

  // For the sleep check (seq_cst, see give).
  bool has_work() const { return count_.load(std::memory_order_seq_cst) != 0; }

 private:
  // One queue per depth, grown on demand.
  struct by_depth {
    std::vector<std::deque<frame*>> queues;
    void push(frame* f, std::uint32_t depth) {
      if (queues.size() <= depth) queues.resize(depth + 1);
      queues[depth].push_back(f);
    }
  };

  // From the first non-empty queue at min_depth or deeper, looking from
  // the deepest or the shallowest: its newest frame or its oldest.
  frame* take(by_depth& q, bool deepest_first, bool newest, std::uint32_t min_depth) {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    const auto n = static_cast<std::int64_t>(q.queues.size());
    for (std::int64_t i = 0; i < n - static_cast<std::int64_t>(min_depth); ++i) {
      auto& queue = q.queues[static_cast<std::size_t>(deepest_first ? n - 1 - i : min_depth + i)];
      if (queue.empty()) continue;
      frame* f = newest ? queue.back() : queue.front();
      if (newest) queue.pop_back();
      else queue.pop_front();
      count_.fetch_sub(1, std::memory_order_relaxed);
      return f;
    }
    return nullptr;
  }

  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }

  std::mutex lock_;
  std::deque<frame*> returned_;
  by_depth migration_;
  by_depth aside_;
  std::atomic<int> count_{0};
};

}  // namespace locus::detail
