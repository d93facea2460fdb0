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
  void give(frame* f, bool as_returned, std::uint32_t depth) {
    std::lock_guard lock(lock_);
    if (as_returned) {
      returned_.push_back(f);
    } else {
      if (migration_.size() <= depth) migration_.resize(depth + 1);
      migration_[depth].push_back(f);
    }
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
  frame* take_migrated() {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    for (auto& q : migration_) {
      if (q.empty()) continue;
      frame* f = q.front();
      q.pop_front();
      count_.fetch_sub(1, std::memory_order_relaxed);
      return f;
    }
    return nullptr;
  }

  // Lines 44-46, a thief: deepest first down to min_depth, newest first.
  frame* steal_migrated(std::uint32_t min_depth) {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    for (auto d = static_cast<std::int64_t>(migration_.size()) - 1; d >= static_cast<std::int64_t>(min_depth); --d) {
      auto& q = migration_[static_cast<std::size_t>(d)];
      if (q.empty()) continue;
      frame* f = q.back();
      q.pop_back();
      count_.fetch_sub(1, std::memory_order_relaxed);
      return f;
    }
    return nullptr;
  }

  // adws: a frame a thief took from the top of this owner's deque because
  // it was shallower than the thief may steal, kept here at its depth: it
  // is still the owner's primary-queue frame (adws.cpp, steal_from).
  void set_aside(frame* f, std::uint32_t depth) {
    std::lock_guard lock(lock_);
    if (aside_.size() <= depth) aside_.resize(depth + 1);
    aside_[depth].push_back(f);
    count_.fetch_add(1, std::memory_order_seq_cst);  // as in give
  }

  // The owner, once its deque is empty: deepest first, newest first (the
  // order its deque would have popped them in).
  frame* take_aside() {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    for (auto d = static_cast<std::int64_t>(aside_.size()) - 1; d >= 0; --d) {
      auto& q = aside_[static_cast<std::size_t>(d)];
      if (q.empty()) continue;
      frame* f = q.back();
      q.pop_back();
      count_.fetch_sub(1, std::memory_order_relaxed);
      return f;
    }
    return nullptr;
  }

  // A thief (figure 11 lines 47-50, the primary queue's top-down scan):
  // shallowest first from min_depth on, oldest first.
  frame* steal_aside(std::uint32_t min_depth) {
    if (empty()) return nullptr;
    std::lock_guard lock(lock_);
    for (std::size_t d = min_depth; d < aside_.size(); ++d) {
      auto& q = aside_[d];
      if (q.empty()) continue;
      frame* f = q.front();
      q.pop_front();
      count_.fetch_sub(1, std::memory_order_relaxed);
      return f;
    }
    return nullptr;
  }

  // For the sleep check (seq_cst, see give).
  bool has_work() const { return count_.load(std::memory_order_seq_cst) != 0; }

 private:
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }

  std::mutex lock_;
  std::deque<frame*> returned_;
  std::vector<std::deque<frame*>> migration_;  // by depth, grown on demand
  std::vector<std::deque<frame*>> aside_;      // by depth, grown on demand
  std::atomic<int> count_{0};
};

}  // namespace locus::detail
