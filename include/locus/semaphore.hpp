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
// Uncontended, acquire() and release() are one atomic read-modify-write
// each, with no system call; a release with waiters takes a small spinlock.
// The task that takes the last permit it waited for may destroy the
// semaphore at once: release() touches nothing of it once a waiter can go
// on. The interface is std::counting_semaphore's, without the timed waits.
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
  void release(std::ptrdiff_t n = 1) {
    if (!add_if_nobody_waits(n)) [[unlikely]] release_slow(n);
  }

 private:
  static constexpr std::ptrdiff_t waiters_queued = -1;

  // The permits go to count_ in one read-modify-write unless waiters are
  // queued (or n < 0: the slow path names the error).
  bool add_if_nobody_waits(std::ptrdiff_t n) noexcept {
    std::ptrdiff_t c = count_.load(std::memory_order_relaxed);
    while (c != waiters_queued && n >= 0)
      if (count_.compare_exchange_weak(c, c + n, std::memory_order_release, std::memory_order_relaxed)) return true;
    return false;
  }
  void acquire_slow();
  void release_slow(std::ptrdiff_t n);
  static bool take_or_enqueue(void* self, detail::task_waiter* w) noexcept;

  // Free permits, or waiters_queued: none free, and waiters are queued.
  // It becomes waiters_queued, and leaves it, only under the queue lock,
  // together with the queue change that makes it true or false.
  std::atomic<std::ptrdiff_t> count_;
  detail::wait_queue queue_;
};

}  // namespace locus
