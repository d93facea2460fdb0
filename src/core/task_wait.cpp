// Waiting for a task-aware primitive (include/locus/detail/wait_queue.hpp):
// the waiter queue and the handoff that locus::mutex and locus::semaphore
// share.
//
// A waiting task suspends like a parent at a join (join.cpp): it leaves its
// fiber for a fresh one, which queues it only once its context is saved (the
// park_from message), because the release that dequeues it may come at once
// from another worker. A handoff makes the continuation ready through the
// pool's injection queue, the one root tasks use: any worker takes it when
// it looks for work, and the push wakes a sleeper with the same seq_cst
// pairing as a root submission (runtime.cpp), so the pool never sleeps with
// a ready waiter unseen. It cannot go on the releasing worker's deque: the
// task running there still expects its own frames at the bottom.
//
// Memory order: a handoff passes the releaser's writes through the queue
// lock and the injection queue (or the blocked thread's semaphore) to the
// waiter.
#include <new>
#include <semaphore>

#include "core/join.hpp"
#include "core/runtime_state.hpp"
#include "locus/detail/wait_queue.hpp"

namespace locus::detail {

struct task_waiter : park_request {
  void* sync = nullptr;
  bool (*take_or_enqueue)(void*, task_waiter*) = nullptr;
  task_waiter* next = nullptr;
  // A blocked thread (not a worker) waits on this; a task has none.
  std::binary_semaphore* blocked_thread = nullptr;
  // A suspended task; constructed only for one.
  union {
    continuation task;
  };
  task_waiter() noexcept {}
  ~task_waiter() {}

  static frame* resume_self(frame* f) { return f; }

  // Runs on a fresh fiber once the waiting task's context is saved.
  static frame* finish_park(park_request& req, fiber* from) {
    auto& self = static_cast<task_waiter&>(req);
    self.task.fiber = from;
    if (self.take_or_enqueue(self.sync, &self)) return &self.task;  // free meanwhile: resume at once
    return nullptr;  // queued: `self` may already be gone
  }
};

void wait_queue::push(task_waiter* w) noexcept {
  w->next = nullptr;
  if (tail_ == nullptr)
    head_ = w;
  else
    tail_->next = w;
  tail_ = w;
}

task_waiter* wait_queue::pop() noexcept {
  task_waiter* w = head_;
  if (w == nullptr) return nullptr;
  head_ = w->next;
  if (head_ == nullptr) tail_ = nullptr;
  return w;
}

namespace {

// A waiter was handed the resource: make its task ready on the pool.
void make_ready(continuation* task) {
  runtime_state& rt = *pool_if_started();  // a task waits, so the pool runs
  if (current_worker() != nullptr)
    queue_shared(rt, task);
  else
    rt.eng->run_from_outside([&] { queue_shared(rt, task); });
}

// A task waits: leave its fiber; returns once handed, possibly on another
// worker.
void park(worker& w, task_waiter& waiter) {
  new (&waiter.task) continuation();
  waiter.task.kind = frame_kind::continuation;
  waiter.task.run = &task_waiter::resume_self;
  waiter.task.ctx = w.ctx;
  waiter.finish = &task_waiter::finish_park;
  count_entry_demand(w);  // its arena's workers resume it (roots.cpp)
  if (w.hooks & hook_task_events) [[unlikely]] w.rt->policy->on_task(w, task_event::suspend, nullptr);
  w.counters.suspends.bump();
  w.rt->eng->charge(sched_op::fiber_switch, w.id, -1);
  switch_activity(w, activity::sched, w.rt->eng->now_ns());
  switch_msg msg{switch_msg::kind::park_from, nullptr, static_cast<park_request*>(&waiter)};
  after_resume(switch_fiber(running_fiber(), w.fibers.take_to_start(), &msg, false));
}

}  // namespace

void wait_until_handed(void* sync, bool (*take_or_enqueue)(void*, task_waiter*)) {
  task_waiter waiter;
  waiter.sync = sync;
  waiter.take_or_enqueue = take_or_enqueue;
  if (worker_view* view = current_worker()) {
    park(*static_cast<worker*>(view), waiter);
    return;
  }
  std::binary_semaphore handed{0};
  waiter.blocked_thread = &handed;
  if (!take_or_enqueue(sync, &waiter)) handed.acquire();
}

void hand_to(task_waiter* w) noexcept {
  // Read what the handoff needs before it: the waiter may be gone after.
  if (std::binary_semaphore* thread = w->blocked_thread)
    thread->release();
  else
    make_ready(&w->task);
}

bool one_shot::take_or_enqueue(void* self, task_waiter* w) noexcept {
  auto& event = *static_cast<one_shot*>(self);
  std::uintptr_t pending = 0;
  // Fails only if set() came first.
  return !event.state_.compare_exchange_strong(pending, reinterpret_cast<std::uintptr_t>(w), std::memory_order_acq_rel,
                                               std::memory_order_acquire);
}

void one_shot::wait() {
  if (is_set()) return;
  wait_until_handed(this, &one_shot::take_or_enqueue);
}

void one_shot::set() noexcept {
  const std::uintptr_t waiter = state_.exchange(set_state, std::memory_order_acq_rel);
  if (waiter != 0) hand_to(reinterpret_cast<task_waiter*>(waiter));
}

}  // namespace locus::detail
