// locus::semaphore (include/locus/semaphore.hpp): the contended path. How a
// waiter suspends and is handed a permit: src/core/task_wait.cpp.
//
// count_ is the free permits, or waiters_queued. A waiter that finds no
// permit under the queue lock sets waiters_queued and queues itself, so a
// release that finds count_ >= 0 can add its permits in one CAS: nobody is
// queued. A release that finds waiters_queued takes the lock, pops up to n
// waiters and, if that empties the queue, sets count_ back to 0; the
// permits left over are added after the lock is released, then the popped
// waiters are handed theirs. So release never touches the semaphore after
// a waiter it serves can go on (the waiter may destroy it at once), and
// the permits it adds are visible only after its last touch of the queue.
#include "locus/semaphore.hpp"

#include <stdexcept>
#include <string>

namespace locus {

semaphore::semaphore(std::ptrdiff_t initial) : count_(initial) {
  if (initial < 0)
    throw std::invalid_argument("locus::semaphore(" + std::to_string(initial) +
                                "): the initial number of permits must be >= 0");
}

bool semaphore::take_or_enqueue(void* self, detail::task_waiter* w) noexcept {
  auto& s = *static_cast<semaphore*>(self);
  s.queue_.lock();
  std::ptrdiff_t c = s.count_.load(std::memory_order_relaxed);
  for (;;) {
    if (c > 0) {
      if (s.count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        s.queue_.unlock();
        return true;
      }
    } else if (c == waiters_queued ||
               s.count_.compare_exchange_weak(c, waiters_queued, std::memory_order_relaxed,
                                              std::memory_order_relaxed)) {
      break;
    }
  }
  s.queue_.push(w);
  s.queue_.unlock();
  return false;
}

void semaphore::acquire_slow() { detail::wait_until_handed(this, &semaphore::take_or_enqueue); }

void semaphore::release_slow(std::ptrdiff_t n) {
  if (n < 0)
    throw std::invalid_argument("locus::semaphore::release(" + std::to_string(n) +
                                "): the number of permits to release must be >= 0");
  detail::wait_queue served;  // the popped waiters, in order; local, so no lock
  do {
    queue_.lock();
    // Only here does count_ leave waiters_queued, and only a waiter under
    // this lock makes it so: still waiters_queued, or now >= 0.
    if (count_.load(std::memory_order_relaxed) == waiters_queued) {
      for (; n > 0 && !queue_.empty(); --n) served.push(queue_.pop());
      if (queue_.empty()) count_.store(0, std::memory_order_relaxed);
    }
    queue_.unlock();
    // What is left goes to count_, unless waiters came meanwhile.
  } while (n > 0 && !add_if_nobody_waits(n));
  // The semaphore is not touched from here on.
  while (detail::task_waiter* w = served.pop()) detail::hand_to(w);  // the permit goes straight to the waiter
}

}  // namespace locus
