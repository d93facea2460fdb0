// A mutex for tasks.
//
// A task may resume on another worker thread after any spawn or sync, so a
// thread-bound lock such as std::mutex must not be held across one: its
// unlock would come from a thread that does not own it. locus::mutex belongs
// to the task, not to a thread: it may be held across spawn and sync and be
// unlocked on whichever worker the task runs on by then.
//
// A task that finds it locked suspends (its worker goes on with other work)
// and is queued; unlock hands the mutex to the first waiter, in the order
// they came, and makes it ready to resume on any worker. A thread that is
// not a worker blocks instead (it has no continuation to queue).
//
// Uncontended, lock() and unlock() are one atomic read-modify-write each,
// with no system call. Meets the standard Lockable requirements, so
// std::lock_guard, std::unique_lock and std::scoped_lock work with it; the
// lock must be released by the task (or thread) that holds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "locus/detail/wait_queue.hpp"

namespace locus {

class mutex {
 public:
  mutex() noexcept = default;
  ~mutex() = default;  // must not be locked
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;

  void lock() {
    if (!try_lock()) [[unlikely]] lock_slow();
  }

  bool try_lock() noexcept {
    std::uint32_t expected = unlocked;
    return state_.compare_exchange_strong(expected, locked, std::memory_order_acquire, std::memory_order_relaxed);
  }

  // Releases the mutex, or hands it to the first waiter. Unlocking a mutex
  // that is not locked ends the program with a message.
  void unlock() noexcept {
    std::uint32_t expected = locked;
    if (!state_.compare_exchange_strong(expected, unlocked, std::memory_order_release, std::memory_order_relaxed))
        [[unlikely]]
      unlock_slow();
  }

 private:
  static constexpr std::uint32_t unlocked = 0;
  static constexpr std::uint32_t locked = 1;
  static constexpr std::uint32_t locked_with_waiters = 2;  // the queue is not empty

  void lock_slow();
  void unlock_slow() noexcept;
  static bool acquire_or_enqueue(void* self, detail::task_waiter* w) noexcept;

  std::atomic<std::uint32_t> state_{unlocked};
  detail::wait_queue queue_;  // taken only when the mutex is contended
};

// The matching scoped guard: locks at construction, unlocks at scope exit
// (also when an exception leaves the scope).
using mutex_guard = std::lock_guard<mutex>;

}  // namespace locus
