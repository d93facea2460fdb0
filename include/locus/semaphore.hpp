// A counting semaphore for tasks.
//
//   locus::semaphore slots(4);   // four permits
//   slots.acquire();             // a task without a permit suspends
//   ...
//   slots.release();             // from any task or thread
//
// Like locus::mutex, it belongs to no thread: a task that finds no permit
// suspends (its worker goes on with other work) and is queued; release
// hands permits to the waiters in the order they came, each made ready to
// resume on any worker. A thread that is not a worker blocks instead.
// Unlike a mutex, a permit may be released by another task than the one
// that acquired it, which is what bounding work in flight needs
// (locus::pipeline uses one).
//
// Uncontended, acquire() is one atomic read-modify-write with no system
// call; release() takes a small spinlock (it must see the waiters). The
// interface is std::counting_semaphore's, without the timed waits.
#pragma once

#include <atomic>
#include <cstddef>

#include "locus/detail/wait_queue.hpp"

namespace locus {

class semaphore {
 public:
  // std::invalid_argument if initial < 0.
  explicit semaphore(std::ptrdiff_t initial);
  ~semaphore() = default;  // nobody may be waiting
  semaphore(const semaphore&) = delete;
  semaphore& operator=(const semaphore&) = delete;

  void acquire() {
    if (!try_acquire()) [[unlikely]] acquire_slow();
  }

  bool try_acquire() noexcept {
    std::ptrdiff_t c = count_.load(std::memory_order_relaxed);
    while (c > 0)
      if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
    return false;
  }

  // Gives n permits back (std::invalid_argument if n < 0).
  void release(std::ptrdiff_t n = 1);

 private:
  void acquire_slow();
  static bool take_or_enqueue(void* self, detail::task_waiter* w) noexcept;

  // Free permits. Raised only under the queue lock, so a waiter that finds
  // none there is queued before any release can look at the queue; while
  // anyone waits it is 0.
  std::atomic<std::ptrdiff_t> count_;
  detail::wait_queue queue_;
};

}  // namespace locus
