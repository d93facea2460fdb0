// The shared queues of one arena (TBB-NUMA section 4.4.3): root tasks
// submitted from outside the pool, enqueued tasks (task_group::enqueue,
// locus::enqueue) and woken waiters of locus::mutex and locus::semaphore.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "locus/detail/frame.hpp"
#include "locus/detail/spin_lock.hpp"

namespace locus::detail {

// A FIFO of frames in a ring that grows by doubling; nothing is allocated
// until the first push (an arena's queues mostly stay empty).
class frame_ring {
 public:
  bool empty() const { return count_ == 0; }
  void push(frame* f) {
    if (count_ == capacity_) grow();
    slots_[(head_ + count_) & (capacity_ - 1)] = f;
    ++count_;
  }
  frame* pop() {
    frame* f = slots_[head_];
    head_ = (head_ + 1) & (capacity_ - 1);
    --count_;
    return f;
  }

 private:
  void grow() {
    const std::size_t capacity = capacity_ == 0 ? 16 : capacity_ * 2;
    auto slots = std::make_unique<frame*[]>(capacity);
    for (std::size_t i = 0; i < count_; ++i) slots[i] = slots_[(head_ + i) & (capacity_ - 1)];
    slots_ = std::move(slots);
    capacity_ = capacity;
    head_ = 0;
  }
  std::unique_ptr<frame*[]> slots_;
  std::size_t head_ = 0, count_ = 0, capacity_ = 0;
};

// A turn for this thread's next shared-queue operation (shared_queues.cpp):
// a counter per thread, started at a different value on each, so that two
// threads seldom go for the same lane.
unsigned next_lane_turn() noexcept;

// One shared queue: root tasks submitted from outside the pool, enqueued
// tasks, woken waiters. It has a few lanes, each a spin lock and a FIFO on
// its own cache line, as oneTBB's task_stream has for its enqueued tasks
// (an exchange to take the lock, a store to let it go): a push
// goes to the first lane from this thread's turn whose lock is free, a pop
// takes from the first non-empty lane it can lock, and waits for a lock
// only when every non-empty lane is held. So a producer and a consumer (or
// two producers) seldom wait for one lock or write one line at once, which
// one lock made them do on every operation. The order is FIFO within a lane
// and roughly FIFO across them, as oneTBB's. With one lane (the simulator,
// where nothing contends; a pool of one worker) it is one FIFO.
class injector {
 public:
  void init(unsigned lanes) {
    count_ = lanes < 1 ? 1 : lanes;
    lanes_ = std::make_unique<lane[]>(count_);
  }
  void push(frame* f) {
    const unsigned start = count_ == 1 ? 0 : next_lane_turn();
    for (unsigned i = 0; i < count_; ++i) {
      lane& l = lanes_[(start + i) % count_];
      std::unique_lock lock(l.lock, std::try_to_lock);
      if (lock) return l.push(f);
    }
    lane& l = lanes_[start % count_];
    std::lock_guard lock(l.lock);
    l.push(f);
  }
  // nullptr when every lane was empty. A caller that read the shared
  // queues' total (seq_cst) after a push's count sees that push's lane size.
  frame* try_pop() {
    const unsigned start = count_ == 1 ? 0 : next_lane_turn();
    lane* held = nullptr;  // a non-empty lane whose lock was taken
    for (unsigned i = 0; i < count_; ++i) {
      lane& l = lanes_[(start + i) % count_];
      if (l.size.load(std::memory_order_relaxed) == 0) continue;
      std::unique_lock lock(l.lock, std::try_to_lock);
      if (!lock) {
        if (held == nullptr) held = &l;
        continue;
      }
      if (frame* f = l.take()) return f;
    }
    if (held == nullptr) return nullptr;
    std::lock_guard lock(held->lock);
    return held->take();
  }

 private:
  struct alignas(64) lane {
    spin_lock lock;
    std::atomic<std::size_t> size{0};  // changed under the lock; read without it as a hint
    frame_ring items;
    // Under the lock, which orders every writer of size: a load and a
    // store, not a locked read-modify-write.
    void push(frame* f) {
      items.push(f);
      size.store(size.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    frame* take() {
      if (items.empty()) return nullptr;
      size.store(size.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
      return items.pop();
    }
  };
  unsigned count_ = 1;
  std::unique_ptr<lane[]> lanes_;
};

// The shared queues (TBB-NUMA section 4.4.3): one per place for frames
// with a place hint and one for the others, taken in the order of figure 7's
// rules 5', 5'' and 5''': the taker's place's queue, the queue without
// affinity, then the other places' queues. A hint is a hint: a frame for a
// place whose workers are all busy still runs elsewhere.
class shared_queues {
 public:
  void init(int places, unsigned lanes) {
    places_ = places;
    queues_ = std::make_unique<injector[]>(static_cast<std::size_t>(places) + 1);
    for (int q = 0; q <= places; ++q) queues_[static_cast<std::size_t>(q)].init(lanes);
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
