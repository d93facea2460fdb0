// The running pool: settings, placement, engine, policy, workers, and the
// queue through which threads that are not workers submit root tasks.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/config.hpp"
#include "core/fiber.hpp"
#include "core/worker.hpp"
#include "engine/engine.hpp"
#include "locus/stats.hpp"
#include "policy/registry.hpp"
#include "topology/topology.hpp"
#include "trace/recorder.hpp"

namespace locus::detail {

// One shared queue: root tasks submitted from outside the pool, enqueued
// tasks, woken waiters. A mutex is fine here: this is the entry of a whole
// computation or a detached task, not the fast path.
class injector {
 public:
  void push(frame* f) {
    std::lock_guard lock(mutex_);
    queue_.push_back(f);
    size_.fetch_add(1, std::memory_order_seq_cst);
  }
  frame* try_pop() {
    if (size_.load(std::memory_order_seq_cst) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    frame* f = queue_.front();
    queue_.pop_front();
    size_.fetch_sub(1, std::memory_order_relaxed);
    return f;
  }
  bool empty() const { return size_.load(std::memory_order_seq_cst) == 0; }

 private:
  std::mutex mutex_;
  std::deque<frame*> queue_;
  std::atomic<std::size_t> size_{0};
};

// The shared queues (TBB-NUMA section 4.4.3): one per place for frames
// with a place hint and one for the others, taken in the order of figure 7's
// rules 5', 5'' and 5''': the taker's place's queue, the queue without
// affinity, then the other places' queues. A hint is a hint: a frame for a
// place whose workers are all busy still runs elsewhere.
class root_queues {
 public:
  void init(int places) {
    places_ = places;
    queues_ = std::make_unique<injector[]>(static_cast<std::size_t>(places) + 1);
  }
  void push(frame* f) {
    const int place = f->ctx.place;
    queues_[place >= 0 && place < places_ ? static_cast<std::size_t>(place) + 1 : 0].push(f);
    total_.fetch_add(1, std::memory_order_seq_cst);
  }
  frame* try_pop(int place) {
    if (total_.load(std::memory_order_seq_cst) == 0) return nullptr;
    frame* f = queues_[static_cast<std::size_t>(place) + 1].try_pop();  // 5'
    if (f == nullptr) f = queues_[0].try_pop();                         // 5''
    for (int i = 1; f == nullptr && i < places_; ++i)                    // 5'''
      f = queues_[static_cast<std::size_t>((place + i) % places_) + 1].try_pop();
    if (f != nullptr) total_.fetch_sub(1, std::memory_order_relaxed);
    return f;
  }
  bool empty() const { return total_.load(std::memory_order_seq_cst) == 0; }

 private:
  int places_ = 0;
  std::unique_ptr<injector[]> queues_;
  std::atomic<std::size_t> total_{0};  // frames in the queues (counted after their push, until their pop)
};

struct runtime_state {
  explicit runtime_state(settings s);
  ~runtime_state();
  runtime_state(const runtime_state&) = delete;
  runtime_state& operator=(const runtime_state&) = delete;

  settings cfg;
  placement places;
  std::unique_ptr<engine> eng;
  policy_context policy_ctx;  // what the policy sees of all this
  std::unique_ptr<policy_base> policy;
  bool policy_filters_work = false;  // policy->may_take can say no
  fiber_pool& fibers;  // process-wide (fiber_pool::shared)
  std::vector<std::unique_ptr<worker>> workers;
  root_queues roots;
  std::atomic<int> roots_in_flight{0};  // changed by root_started/root_finished
  std::mutex busy_mutex;
  std::uint64_t busy_since_ns = 0;
  std::atomic<std::uint64_t> busy_ns{0};
  std::atomic<bool> stopping{false};
  std::uint64_t spin_ns = 0;
  // LOCUS_TRACE: the recorder, or null (docs/observability.md). Written to
  // its file once the workers have stopped.
  std::unique_ptr<trace::recorder> trace;
  // LOCUS_SPAN: the roots' work, span and burdened span (ns), summed over
  // roots as they finish (core/span.cpp).
  struct span_totals {
    std::atomic<std::uint64_t> work_ns{0}, span_ns{0}, burdened_ns{0}, roots{0};
  } span;
  // What reset_stats() saw; get_stats() reports the difference (stats.cpp).
  struct {
    std::mutex mutex;
    std::vector<locus::worker_stats> workers;  // empty: never reset
    std::uint64_t busy_ns = 0;
    std::uint64_t span_work_ns = 0, span_ns = 0, span_burdened_ns = 0, span_roots = 0;
  } baseline;

 private:
  // Fills policy_ctx from the workers, placement, engine and settings, and
  // declares the policy's operations to the engine.
  void build_policy_context(const policy_entry& entry);
};

// The pool, or nullptr before it starts. Starting it on first use takes a
// lock; reading it afterwards is one acquire load.
runtime_state* pool_if_started() noexcept;
runtime_state& pool();  // starts the pool from the environment if needed

// Submits a root frame from outside the pool and wakes a worker.
void submit_root(runtime_state& rt, frame* f);
// Puts a frame in its shared queue from a worker and wakes a worker: one of
// the frame's place if it has a place hint and one sleeps there.
void queue_shared(runtime_state& rt, frame* f);
// A root task entered or left the pool; busy_ns() is the time during which
// at least one was in flight, by the engine's clock. root_started returns
// whether this root starts a computation (none was in flight).
bool root_started(runtime_state& rt);
void root_finished(runtime_state& rt);
std::uint64_t busy_ns(runtime_state& rt);

// The scheduling loop (scheduler.cpp).
void worker_main(runtime_state& rt, int index);
// Wakes one sleeper, looking from worker `start` on (modulo the count).
void wake_one_sleeper(runtime_state& rt, int start = 0) noexcept;
// Wakes every sleeper: a computation starts, and those that fell asleep
// while none was in flight have no timer (scheduler.cpp, sleep protocol).
void wake_all_sleepers(runtime_state& rt) noexcept;
// Wakes a sleeper the policy lets take work that appeared in source's
// deque (source == nullptr: in the root queue).
void wake_sleeper_for(runtime_state& rt, const worker_view* source) noexcept;
// Wakes w if it sleeps; returns whether it did (scheduler.cpp).
bool wake_if_parked(runtime_state& rt, worker& w) noexcept;

}  // namespace locus::detail
