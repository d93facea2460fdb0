// Waiting for another thread for a few instructions: spin_lock, held that
// long (a shared-queue lane's growth at worst) and never across a fiber
// switch, and relax_cpu, one step of any such wait.
#pragma once

#include <atomic>
#include <thread>

namespace locus::detail {

// Step `spins` of a wait: the CPU's pause for the first 64, then the
// thread gives its core away, in case the thread waited for needs it (an
// oversubscribed pool, a loaded machine).
inline void relax_cpu(unsigned spins) noexcept {
  if (spins >= 64) {
    std::this_thread::yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Taking it is one atomic exchange, letting it go one release store
// (oneTBB's spin_mutex, which its task_stream lanes and pipeline filters
// use); a thread that finds it held waits on a plain load.
class spin_lock {
 public:
  bool try_lock() noexcept {
    return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
  }
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire))
      for (unsigned spins = 0; held_.load(std::memory_order_relaxed); ++spins) relax_cpu(spins);
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

}  // namespace locus::detail
