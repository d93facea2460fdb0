// Per-worker storage that survives a task's moves: oneTBB's
// tbb::combinable, by the same names.
//
//   locus::combinable<long> count;                       // or combinable<T>(init)
//   locus::parallel_for(0, n, [&](std::int64_t i) { if (test(i)) ++count.local(); });
//   long total = count.combine(std::plus<>());
//
// `thread_local` is unsafe across a spawn: a task may resume on another
// worker after any spawn, sync, fork_join, loop or wait (docs/usage.md,
// "Tasks that move between threads"). local() is the slot of the worker
// the caller runs on *now*, made on first use (from the initializer, or
// T{}); slots are on separate cache lines, so workers never share one.
//
// What a caller may hold: the reference local() returns stays valid while
// the combinable lives, but it is the caller's to use only until its task's
// next scheduling point (spawn, sync, fork_join, a parallel loop, a
// mutex/semaphore/MPI wait). After one the task may be on another worker and
// the slot may be in use by whatever runs on the old one: call local()
// again. Between two such points nothing else runs on the worker, so
// `++c.local()` and a loop body that updates `c.local()` are safe.
//
// A thread outside the pool (main before it starts work, a std::thread)
// gets a slot of its own too, found under a lock. combine(op) folds every
// slot made (workers in index order, then threads; op need not be
// commutative only if that order suits it), combine_each(f) calls f on each;
// both, and clear(), must not run while tasks still call local() (call them
// after the parallel work is synced). Under LOCUS_SERIAL_ELISION the
// program runs on its own thread: one slot.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "locus/runtime.hpp"

namespace locus {

template <class T>
class combinable {
 public:
  combinable() : make_([] { return T{}; }) {}
  template <class Init>
    requires std::is_invocable_r_v<T, Init&>
  explicit combinable(Init init) : make_(std::move(init)) {}
  ~combinable() { clear(); }
  combinable(const combinable&) = delete;
  combinable& operator=(const combinable&) = delete;

  // The calling worker's (or thread's) slot, made on first use.
  T& local() {
    bool exists;
    return local(exists);
  }
  // The same; `exists` says whether the slot was there already.
  T& local(bool& exists) {
    std::optional<T>& slot = slot_here();
    exists = slot.has_value();
    if (!exists) slot.emplace(make_());
    return *slot;
  }

  template <class Op>
  T combine(Op op) const {
    std::optional<T> result;
    combine_each([&](const T& v) { result = result ? op(std::move(*result), v) : v; });
    return result ? std::move(*result) : make_();
  }

  template <class F>
  void combine_each(F f) const {
    for (const auto& chunk : chunks_)
      if (const auto* c = chunk.load(std::memory_order_acquire))
        for (const auto& s : c->slots)
          if (s.value) f(*s.value);
    const std::lock_guard lock(threads_mutex_);
    for (const auto& t : threads_)
      if (t.value) f(*t.value);
  }

  // Destroys every slot; the next local() makes a fresh one.
  void clear() {
    for (auto& chunk : chunks_) delete chunk.exchange(nullptr, std::memory_order_acq_rel);
    const std::lock_guard lock(threads_mutex_);
    threads_.clear();
  }

 private:
  // A worker's slot, alone on its cache line(s).
  struct alignas(64) slot {
    std::optional<T> value;
  };
  // Workers' slots by index, 64 to a chunk, chunks made on first use: a
  // combinable costs 512 bytes until workers touch it, and a slot never
  // moves once made (a reference stays valid).
  static constexpr int chunk_size = 64, max_chunks = 64;  // up to 4096 workers (LOCUS_WORKERS)
  struct chunk {
    std::array<slot, chunk_size> slots;
  };
  struct thread_slot {
    std::thread::id owner;
    std::optional<T> value;
  };

  std::optional<T>& slot_here() {
    const int id = worker_id();
    if (id < 0) return thread_slot_here();
    std::atomic<chunk*>& where = chunks_[static_cast<std::size_t>(id / chunk_size)];
    chunk* c = where.load(std::memory_order_acquire);
    if (c == nullptr) [[unlikely]] {
      auto fresh = std::make_unique<chunk>();
      if (where.compare_exchange_strong(c, fresh.get(), std::memory_order_acq_rel, std::memory_order_acquire))
        c = fresh.release();  // else c is the chunk another worker made first
    }
    return c->slots[static_cast<std::size_t>(id % chunk_size)].value;
  }

  std::optional<T>& thread_slot_here() {
    const std::thread::id me = std::this_thread::get_id();
    const std::lock_guard lock(threads_mutex_);
    for (auto& t : threads_)
      if (t.owner == me) return t.value;
    return threads_.emplace_back(thread_slot{me, std::nullopt}).value;  // a list: slots never move
  }

  std::function<T()> make_;
  std::array<std::atomic<chunk*>, max_chunks> chunks_{};
  mutable std::mutex threads_mutex_;
  std::list<thread_slot> threads_;
};

}  // namespace locus
