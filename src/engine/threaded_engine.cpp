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

  // Spin politely a while, then give the core away: with more workers than
  // cores the thread we wait for may need this one.
  void relax(unsigned spins) override { detail::relax_cpu(spins); }

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

  std::uint64_t base_seed_;
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<engine> make_threaded_engine(long long seed) { return std::make_unique<threaded_engine>(seed); }

}  // namespace locus::detail
