// locus::mutex (include/locus/mutex.hpp): the contended path.
//
// state_ is unlocked, locked, or locked_with_waiters (the queue is not
// empty). The fast paths are one CAS each: lock 0 -> 1, unlock 1 -> 0. Every
// other change of state_ happens under the queue lock, together with the
// queue change it describes:
//   - a waiter that finds the mutex held sets locked_with_waiters and
//     enqueues itself; one that finds it free takes it (0 -> 1);
//   - unlock with waiters dequeues the first one and hands it the mutex:
//     state_ stays locked (locked_with_waiters while more wait), the owner
//     changes without the mutex ever being free, so no later locker barges
//     ahead of the queue.
// So locked_with_waiters is never left with an empty queue, and the owner's
// fast unlock (1 -> 0) cannot succeed while anyone waits. How a waiter
// suspends and is handed the mutex: src/core/task_wait.cpp.
//
// Memory order: the fast paths acquire and release state_; a handoff passes
// the unlocker's writes on as task_wait.cpp says.
#include "locus/mutex.hpp"

#include <cstdio>
#include <cstdlib>

namespace locus {

bool mutex::acquire_or_enqueue(void* self, detail::task_waiter* w) noexcept {
  auto& m = *static_cast<mutex*>(self);
  m.queue_.lock();
  std::uint32_t s = m.state_.load(std::memory_order_relaxed);
  for (;;) {
    if (s == unlocked) {
      if (m.state_.compare_exchange_weak(s, locked, std::memory_order_acquire, std::memory_order_relaxed)) {
        m.queue_.unlock();
        return true;
      }
    } else if (s == locked_with_waiters ||
               m.state_.compare_exchange_weak(s, locked_with_waiters, std::memory_order_relaxed,
                                              std::memory_order_relaxed)) {
      break;
    }
  }
  m.queue_.push(w);
  m.queue_.unlock();
  return false;
}

void mutex::lock_slow() { detail::wait_until_handed(this, &mutex::acquire_or_enqueue); }

void mutex::unlock_slow() noexcept {
  queue_.lock();
  if (state_.load(std::memory_order_relaxed) == unlocked) {
    queue_.unlock();
    std::fputs("locus::mutex::unlock: the mutex is not locked (unlocked twice, or never locked)\n", stderr);
    std::abort();
  }
  // Only the owner's slow unlock takes locked_with_waiters back to locked,
  // so the queue is not empty here.
  detail::task_waiter* next = queue_.pop();
  if (queue_.empty()) state_.store(locked, std::memory_order_relaxed);  // now held by `next`
  queue_.unlock();
  detail::hand_to(next);
}

}  // namespace locus
