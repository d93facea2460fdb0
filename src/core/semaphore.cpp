// locus::semaphore (include/locus/semaphore.hpp): the contended path. How a
// waiter suspends and is handed a permit: src/core/task_wait.cpp.
//
// count_ only falls outside the queue lock (try_acquire) and only rises
// under it (release), so "no permit, queue me" under the lock cannot miss a
// release. release hands its permits one by one to the oldest waiters,
// taking the lock again for each, and adds what is left to count_ once the
// queue is empty.
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
  const bool took = s.try_acquire();
  if (!took) s.queue_.push(w);
  s.queue_.unlock();
  return took;
}

void semaphore::acquire_slow() { detail::wait_until_handed(this, &semaphore::take_or_enqueue); }

void semaphore::release(std::ptrdiff_t n) {
  if (n < 0)
    throw std::invalid_argument("locus::semaphore::release(" + std::to_string(n) +
                                "): the number of permits to release must be >= 0");
  while (n > 0) {
    queue_.lock();
    detail::task_waiter* w = queue_.pop();
    if (w == nullptr) {
      count_.fetch_add(n, std::memory_order_release);
      queue_.unlock();
      return;
    }
    queue_.unlock();
    detail::hand_to(w);  // the permit goes straight to the waiter
    --n;
  }
}

}  // namespace locus
