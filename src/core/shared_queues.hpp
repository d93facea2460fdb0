// The shared queues of one arena (TBB-NUMA section 4.4.3): root tasks
// submitted from outside the pool, enqueued tasks (task_group::enqueue,
// locus::enqueue) and woken waiters of locus::mutex and locus::semaphore.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>

#include "locus/detail/frame.hpp"

namespace locus::detail {

// One shared queue: root tasks submitted from outside the pool, enqueued
// tasks, woken waiters. A mutex is fine here: this is the entry of a whole
// computation or a detached task, not the fast path.
class injector {
 public:
  void push(frame* f) {
    std::lock_guard lock(mutex_);
    queue_.push_back(f);
    size_.fetch_add(1, std::memory_order_seq_cst);
  }
  frame* try_pop() {
    if (size_.load(std::memory_order_seq_cst) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    frame* f = queue_.front();
    queue_.pop_front();
    size_.fetch_sub(1, std::memory_order_relaxed);
    return f;
  }
  bool empty() const { return size_.load(std::memory_order_seq_cst) == 0; }

 private:
  std::mutex mutex_;
  std::deque<frame*> queue_;
  std::atomic<std::size_t> size_{0};
};

// The shared queues (TBB-NUMA section 4.4.3): one per place for frames
// with a place hint and one for the others, taken in the order of figure 7's
// rules 5', 5'' and 5''': the taker's place's queue, the queue without
// affinity, then the other places' queues. A hint is a hint: a frame for a
// place whose workers are all busy still runs elsewhere.
class shared_queues {
 public:
  void init(int places) {
    places_ = places;
    queues_ = std::make_unique<injector[]>(static_cast<std::size_t>(places) + 1);
  }
  void push(frame* f) {
    const int place = f->ctx.place;
    queues_[place >= 0 && place < places_ ? static_cast<std::size_t>(place) + 1 : 0].push(f);
    total_.fetch_add(1, std::memory_order_seq_cst);
  }
  frame* try_pop(int place) {
    if (total_.load(std::memory_order_seq_cst) == 0) return nullptr;
    frame* f = queues_[static_cast<std::size_t>(place) + 1].try_pop();  // 5'
    if (f == nullptr) f = queues_[0].try_pop();                         // 5''
    for (int i = 1; f == nullptr && i < places_; ++i)                    // 5'''
      f = queues_[static_cast<std::size_t>((place + i) % places_) + 1].try_pop();
    if (f != nullptr) total_.fetch_sub(1, std::memory_order_relaxed);
    return f;
  }
  bool empty() const { return total_.load(std::memory_order_seq_cst) == 0; }

 private:
  int places_ = 0;
  std::unique_ptr<injector[]> queues_;
  std::atomic<std::size_t> total_{0};  // frames in the queues (counted after their push, until their pop)
};

}  // namespace locus::detail
