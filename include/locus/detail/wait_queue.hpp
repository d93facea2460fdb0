// The contended path shared by locus::mutex and locus::semaphore: a FIFO of
// waiters (suspended tasks, or blocked threads that are not workers) under
// a small spinlock, and the two halves of a handoff (src/core/task_wait.cpp).
//
// A primitive keeps its own state word (fast paths: one atomic RMW, no
// queue) and changes it under the queue lock whenever the queue is
// involved, so a waiter is never queued while the resource is free.
#pragma once

#include <atomic>
#include <cstdint>

#include "locus/detail/spin_lock.hpp"

namespace locus::detail {

struct task_waiter;

class wait_queue {
 public:
  // Held for a few instructions: no switch, no system call while held.
  void lock() noexcept { lock_.lock(); }
  void unlock() noexcept { lock_.unlock(); }
  // Under the lock.
  void push(task_waiter* w) noexcept;
  task_waiter* pop() noexcept;  // the oldest waiter, or nullptr
  bool empty() const noexcept { return head_ == nullptr; }

 private:
  spin_lock lock_;
  task_waiter* head_ = nullptr;
  task_waiter* tail_ = nullptr;
};

// Waits until a hand_to gives the caller the resource: a task suspends (its
// worker goes on with other work), a thread that is not a worker blocks.
// take_or_enqueue(sync, w) is called once the waiter can be resumed (for a
// task: its context is saved); it takes the queue lock, and either takes the
// resource (returns true: the caller goes on at once) or queues w.
void wait_until_handed(void* sync, bool (*take_or_enqueue)(void* sync, task_waiter* w));

// Resumes a waiter popped from a queue; call it after the queue lock is
// released (the waiter may be gone as soon as it runs).
void hand_to(task_waiter* w) noexcept;

// A one-shot event for a task or a thread that waits for work done
// elsewhere (locus::arena::execute from a task of another arena, or from a
// thread outside the pool): set() once, by anyone; wait() returns once it
// is set (a task suspends meanwhile, a thread blocks). set() touches nothing
// of the event after it hands the waiter on, so the waiter may destroy it as
// soon as wait() returns.
class one_shot {
 public:
  void wait();
  void set() noexcept;
  // Whether set() has been called (for a bounded spin before wait()).
  bool is_set() const noexcept { return state_.load(std::memory_order_acquire) == set_state; }

 private:
  static bool take_or_enqueue(void* self, task_waiter* w) noexcept;
  static constexpr std::uintptr_t set_state = 1;
  std::atomic<std::uintptr_t> state_{0};  // 0: pending, set_state, or the waiter
};

}  // namespace locus::detail
