// The real-machine engine: one OS thread per worker, pinned; futex sleep.
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "locus/detail/spin_lock.hpp"

namespace locus::detail {
namespace {

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t val, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, val, timeout, nullptr, 0);
}

class threaded_engine final : public engine {
 public:
  explicit threaded_engine(long long seed)
      : base_seed_(seed >= 0 ? static_cast<std::uint64_t>(seed) : std::random_device{}()) {}

  const char* name() const override { return "threaded"; }

  void start_workers(const placement& places, bool pin_threads, const std::function<void(int)>& body) override {
    const int count = static_cast<int>(places.worker_core.size());
    yield_after_ = 2 * (static_cast<unsigned>(count) + 1);
    threads_.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      const int cpu = pin_threads ? places.worker_os_cpu[static_cast<std::size_t>(i)] : -1;
      // The thread names and pins itself before it runs anything of the
      // worker's, so the first task (and an on_worker_start observer)
      // already runs where it belongs, under its name.
      threads_.emplace_back([body, i, cpu] {
        // perf, gdb, htop and VTune show the workers by name (at most 15 chars).
        const std::string name = "locus-w" + std::to_string(i);
        pthread_setname_np(pthread_self(), name.c_str());
        if (cpu >= 0) pin_self(cpu);
        body(i);
      });
    }
  }

  void join_workers() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  std::uint64_t now_ns() override {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }

  void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::uint64_t timeout_ns) override {
    timespec ts{};
    if (timeout_ns != 0) {
      ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000ull);
      ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000ull);
    }
    futex(&word, FUTEX_WAIT_PRIVATE, expected, timeout_ns != 0 ? &ts : nullptr);
  }

  void wake(std::atomic<std::uint32_t>& word) override { futex(&word, FUTEX_WAKE_PRIVATE, 1, nullptr); }

  // One failed round of a wait (an idle worker's search, mostly), as
  // oneTBB's stealing loop backs off (stealing_loop_backoff): about 1,000
  // TSC ticks of pauses a round, and from round 2 (P + 1) on the core is
  // offered to another thread as well (an oversubscribed pool, a loaded
  // machine). A thief that tried again at once would take the victim's
  // deque line from it at every push and pop the owner makes in the
  // meantime: with a pause a round the owner of a short job (the next
  // input of a pipeline, issue 44) mostly takes it back itself, where with
  // one pause a round the two workers handed every item to each other.
  void relax(unsigned spins) override {
    prolonged_pause();
    if (spins >= yield_after_) std::this_thread::yield();
  }

  std::uint64_t seed(int worker) override {
    return base_seed_ * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(worker) + 1;
  }

 private:
  static void pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    // Pinning is best effort (a container may forbid some cpus); placement
    // is still reported by locus-topo.
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }

  // About 1,000 TSC ticks (oneTBB's prolonged_pause): pauses that double
  // up to 16 at a time until the counter has moved that far, or moved
  // back (the thread went to another CPU). Elsewhere a fixed run of pauses.
  static void prolonged_pause() {
#if defined(__x86_64__) || defined(__i386__)
    std::uint64_t prev = __builtin_ia32_rdtsc();
    const std::uint64_t until = prev + 1000;
    for (unsigned count = 1;; count = count < 16 ? count * 2 : 16) {
      for (unsigned i = 0; i < count; ++i) __builtin_ia32_pause();
      const std::uint64_t now = __builtin_ia32_rdtsc();
      if (now <= prev || now >= until) return;
      prev = now;
    }
#else
    for (unsigned i = 0; i < 80; ++i) detail::relax_cpu(0);
#endif
  }

  std::uint64_t base_seed_;
  unsigned yield_after_ = 4;  // 2 (P + 1), set by start_workers
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<engine> make_threaded_engine(long long seed) { return std::make_unique<threaded_engine>(seed); }

}  // namespace locus::detail
