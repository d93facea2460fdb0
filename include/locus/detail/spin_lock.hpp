// A lock held for a few instructions (a shared-queue lane's growth at
// worst), never across a fiber switch: taking it is one atomic exchange,
// letting it go one release store (oneTBB's spin_mutex, which its
// task_stream lanes and pipeline filters use). A thread that finds it held spins on a plain load with the
// CPU's pause, and past a few rounds yields, in case the holder's thread
// was preempted (an oversubscribed pool, a loaded machine).
#pragma once

#include <atomic>
#include <thread>

namespace locus::detail {

class spin_lock {
 public:
  bool try_lock() noexcept {
    return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
  }
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire)) wait_until_free();
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  void wait_until_free() const noexcept {
    for (unsigned spins = 0; held_.load(std::memory_order_relaxed); ++spins) {
      if (spins >= 64) {
        std::this_thread::yield();
        continue;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    }
  }
  std::atomic<bool> held_{false};
};

}  // namespace locus::detail
