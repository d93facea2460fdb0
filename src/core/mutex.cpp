// locus::mutex (include/locus/mutex.hpp): the contended path.
//
// state_ is unlocked, locked, or locked_with_waiters (the queue is not
// empty). The fast paths are one CAS each: lock 0 -> 1, unlock 1 -> 0. Every
// other change of state_ happens under the queue lock, together with the
// queue change it describes:
//   - a waiter that finds the mutex held sets locked_with_waiters and
//     enqueues itself; one that finds it free takes it (0 -> 1);
//   - unlock with waiters dequeues the first one and hands it the mutex:
//     state_ stays locked (locked_with_waiters while more wait), the owner
//     changes without the mutex ever being free, so no later locker barges
//     ahead of the queue.
// So locked_with_waiters is never left with an empty queue, and the owner's
// fast unlock (1 -> 0) cannot succeed while anyone waits.
//
// A waiting task suspends like a parent at a join (join.cpp): it leaves its
// fiber for a fresh one, which enqueues it only once its context is saved
// (the park_from message), because the unlock that dequeues it may come at
// once from another worker. The handoff makes the continuation ready through
// the pool's injection queue, the one root tasks use: any worker takes it
// when it looks for work, and the push wakes a sleeper with the same seq_cst
// pairing as a root submission (runtime.cpp), so the pool never sleeps with
// a ready waiter unseen. It cannot go on the unlocking worker's deque: the
// task running there still expects its own frames at the bottom.
//
// Memory order: the fast paths acquire and release state_. A handoff passes
// the unlocker's writes through the queue lock and the injection queue (or
// the blocked thread's semaphore) to the waiter.
#include "locus/mutex.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <semaphore>
#include <thread>

#include "core/join.hpp"
#include "core/runtime_state.hpp"

namespace locus {
namespace detail {

struct mutex_waiter : park_request {
  locus::mutex* m = nullptr;
  mutex_waiter* next = nullptr;
  // A blocked thread (not a worker) waits on this; a task has none.
  std::binary_semaphore* blocked_thread = nullptr;
  // A suspended task; constructed only for one.
  union {
    continuation task;
  };
  mutex_waiter() noexcept {}
  ~mutex_waiter() {}

  static frame* resume_self(frame* f) { return f; }

  // Runs on a fresh fiber once the waiting task's context is saved.
  static frame* finish_park(park_request& req, fiber* from) {
    auto& self = static_cast<mutex_waiter&>(req);
    self.task.fiber = from;
    if (self.m->acquire_or_enqueue(&self)) return &self.task;  // freed meanwhile: resume at once
    return nullptr;  // queued: `self` may already be gone
  }
};

namespace {

// The mutex was handed to a suspended task: make it ready on the pool.
void make_ready(continuation* task) {
  runtime_state& rt = *pool_if_started();  // a task waits, so the pool runs
  auto push = [&] {
    rt.roots.push(task);
    // Pairs with the seq_cst RMW of a worker going to sleep (scheduler.cpp),
    // as in submit_root: it sees the frame, or we see it sleeping.
    if (sleeper_should_wake(g_idle_state.load(std::memory_order_seq_cst))) wake_one_sleeper(rt);
  };
  if (current_worker() != nullptr)
    push();
  else
    rt.eng->run_from_outside(push);
}

// A task waits: leave its fiber; returns holding the mutex, possibly on
// another worker.
void park(worker& w, mutex_waiter& waiter) {
  new (&waiter.task) continuation();
  waiter.task.kind = frame_kind::continuation;
  waiter.task.run = &mutex_waiter::resume_self;
  waiter.task.ctx = w.ctx;
  waiter.task.owner = w.id;
  waiter.finish = &mutex_waiter::finish_park;
  if (w.hooks & hook_task_events) [[unlikely]] w.rt->policy->on_task(w, task_event::suspend, nullptr);
  w.counters.suspends.bump();
  w.rt->eng->charge(sched_op::fiber_switch, w.id, -1);
  switch_activity(w, activity::sched, w.rt->eng->now_ns());
  switch_msg msg{switch_msg::kind::park_from, nullptr, static_cast<park_request*>(&waiter)};
  after_resume(switch_fiber(running_fiber(), w.fibers.take_to_start(), &msg, false));
}

}  // namespace
}  // namespace detail

void mutex::lock_queue() noexcept {
  // Held for a few instructions; yield so that an oversubscribed holder
  // gets its turn.
  while (queue_busy_.exchange(true, std::memory_order_acquire))
    while (queue_busy_.load(std::memory_order_relaxed)) std::this_thread::yield();
}

void mutex::unlock_queue() noexcept { queue_busy_.store(false, std::memory_order_release); }

bool mutex::acquire_or_enqueue(detail::mutex_waiter* w) noexcept {
  lock_queue();
  std::uint32_t s = state_.load(std::memory_order_relaxed);
  for (;;) {
    if (s == unlocked) {
      if (state_.compare_exchange_weak(s, locked, std::memory_order_acquire, std::memory_order_relaxed)) {
        unlock_queue();
        return true;
      }
    } else if (s == locked_with_waiters ||
               state_.compare_exchange_weak(s, locked_with_waiters, std::memory_order_relaxed,
                                            std::memory_order_relaxed)) {
      break;
    }
  }
  w->next = nullptr;
  if (tail_ == nullptr)
    head_ = w;
  else
    tail_->next = w;
  tail_ = w;
  unlock_queue();
  return false;
}

void mutex::lock_slow() {
  detail::mutex_waiter waiter;
  waiter.m = this;
  if (detail::worker_view* view = detail::current_worker()) {
    detail::park(*static_cast<detail::worker*>(view), waiter);
    return;
  }
  std::binary_semaphore handed{0};
  waiter.blocked_thread = &handed;
  if (!acquire_or_enqueue(&waiter)) handed.acquire();
}

void mutex::unlock_slow() noexcept {
  lock_queue();
  const std::uint32_t s = state_.load(std::memory_order_relaxed);
  if (s == unlocked) {
    unlock_queue();
    std::fputs("locus::mutex::unlock: the mutex is not locked (unlocked twice, or never locked)\n", stderr);
    std::abort();
  }
  // Only the owner's slow unlock takes locked_with_waiters back to locked,
  // so the queue is not empty here.
  detail::mutex_waiter* next = head_;
  head_ = next->next;
  if (head_ == nullptr) {
    tail_ = nullptr;
    state_.store(locked, std::memory_order_relaxed);  // now held by `next`
  }
  // Read what the handoff needs before it: the waiter may be gone after.
  std::binary_semaphore* thread = next->blocked_thread;
  detail::continuation* task = thread == nullptr ? &next->task : nullptr;
  unlock_queue();
  if (thread != nullptr)
    thread->release();
  else
    detail::make_ready(task);
}

}  // namespace locus
