// The scheduling loop: what a worker does when it is not running a task.
//
//   run_scheduler(ready):          (NUMA-WS figure 2, "scheduling loop")
//     loop: if a continuation is ready, switch to it;
//           else find work (policy's local work first, then root tasks
//           submitted from outside, then steal) and run it.
//
// Sleep protocol. g_idle_state packs (sleeping << 32 | searching). A worker
// that finds nothing for spin_us moves itself from searching to sleeping
// with a seq_cst RMW, then looks once more for work (root queue, every
// deque) before it parks. A submitter of a root task pushes (seq_cst) and
// then reads g_idle_state (seq_cst): one of the two sees the other, so a
// root task never waits for a sleeper that missed it. Pushes on the fast
// path read g_idle_state without a fence (notify_push); a sleeper they miss
// wakes on its nap timer while a computation is running (tunables), and a
// thief that succeeds wakes one more sleeper if nobody else is searching, so
// wake-ups spread along steals. With no computation in flight, sleepers wait
// without a timer: an idle pool uses no CPU.
#include "core/join.hpp"
#include "core/runtime_state.hpp"
#include "core/stack_call.hpp"

namespace locus::detail {

std::atomic<std::uint64_t> g_idle_state{0};

namespace {

constexpr std::uint64_t one_sleeping = std::uint64_t{1} << 32;

void leave_searching(runtime_state& rt, bool found_by_stealing) {
  const std::uint64_t after = g_idle_state.fetch_sub(1, std::memory_order_acq_rel) - 1;
  // Go-style spreading: the last searcher that found work wakes a sleeper
  // to search in its place, since where there was one frame there may be more.
  if (found_by_stealing && sleeper_should_wake(after)) wake_one_sleeper(rt);
}

bool work_visible(runtime_state& rt, worker& self) {
  if (!rt.roots.empty() || rt.policy->has_work_for(self)) return true;
  for (auto& w : rt.workers)
    if (!w->deque.looks_empty()) return true;
  return false;
}

// Takes a parked worker out of its sleep (park_word 1 -> 0) and moves it
// from sleeping to searching. Exactly one caller wins the claim: the
// sleeper itself or one waker, so the counts stay exact.
bool claim_parked(worker& w) noexcept {
  std::uint32_t parked = 1;
  if (w.park_word.load(std::memory_order_seq_cst) != 1 ||
      !w.park_word.compare_exchange_strong(parked, 0, std::memory_order_acq_rel))
    return false;
  g_idle_state.fetch_add(1 - one_sleeping, std::memory_order_acq_rel);
  return true;
}


void sleep(worker& w, std::uint64_t nap_ns) {
  runtime_state& rt = *w.rt;
  // seq_cst: a policy that hands this worker a frame (a mailbox) stores it,
  // then reads park_word; one of the two sees the other.
  w.park_word.store(1, std::memory_order_seq_cst);
  g_idle_state.fetch_add(one_sleeping - 1, std::memory_order_seq_cst);
  if (work_visible(rt, w) || rt.stopping.load(std::memory_order_seq_cst)) {
    claim_parked(w);
    return;
  }
  w.counters.sleeps.bump();
  const bool computing = rt.roots_in_flight.load(std::memory_order_seq_cst) > 0;
  if (computing) {
    rt.eng->wait(w.park_word, 1, nap_ns);
  } else {
    while (w.park_word.load(std::memory_order_acquire) == 1) rt.eng->wait(w.park_word, 1, 0);
  }
  // Woken by a waker, who claimed us, or by the timer: claim ourselves.
  claim_parked(w);
}

// Returns a frame to run, or nullptr when the pool is stopping.
frame* find_work(worker& w) {
  runtime_state& rt = *w.rt;
  engine& eng = *rt.eng;
  policy_base& policy = *rt.policy;
  std::uint64_t now = eng.now_ns();
  switch_activity(w, activity::idle, now);
  g_idle_state.fetch_add(1, std::memory_order_acq_rel);

  std::uint64_t spin_start = now;
  std::uint64_t nap = tunables::min_nap_ns;
  unsigned spins = 0;
  for (;;) {
    // Own frames first. Thieves take the oldest frames, so by the time a
    // worker gets here its deque is normally empty; what can be left is a
    // parent-first child a policy routed to this very deque. Then what the
    // policy keeps for this worker, then root tasks from outside.
    frame* f = w.deque.pop();
    if (f == nullptr) f = policy.find_local_work(w);
    const bool root = f == nullptr && (f = rt.roots.try_pop()) != nullptr;
    if (f != nullptr) {
      leave_searching(rt, root);
      switch_activity(w, activity::work, eng.now_ns());
      return f;
    }
    if (worker_view* victim = policy.choose_victim(w)) {
      const std::uint64_t attempt_start = eng.now_ns();
      w.counters.steal_attempts.bump();
      eng.charge(sched_op::steal_attempt, w.id, victim->id);
      frame* f = policy.steal_from(w, *victim);
      if (f != nullptr) {
        // A successful steal, even if the policy then sends the frame on.
        w.counters.steals.bump();
        f = policy.after_steal(w, f);
      }
      if (f != nullptr) {
        leave_searching(rt, true);
        // The failed attempts were idle time; the one that succeeded, and
        // what the policy did with the frame, is scheduling time.
        switch_activity(w, activity::sched, attempt_start);
        switch_activity(w, activity::work, eng.now_ns());
        return f;
      }
    }
    if (rt.stopping.load(std::memory_order_acquire)) {
      leave_searching(rt, false);
      return nullptr;
    }
    now = eng.now_ns();
    if (now - spin_start < rt.spin_ns) {
      eng.relax(spins++);
      continue;
    }
    sleep(w, nap);
    nap = std::min(nap * 2, tunables::max_nap_ns);
    spin_start = eng.now_ns();
    spins = 0;
  }
}

// Counts where hinted frames run (slow path: frames the scheduler handles).
void note_place(worker& w, const frame& f) {
  if (f.ctx.place == any_place) return;
  (f.ctx.place == w.place ? w.counters.at_hinted_place : w.counters.off_hinted_place).bump();
}

[[noreturn]] void resume(frame* ready) {
  auto* c = static_cast<continuation*>(ready);
  worker& w = this_worker();
  note_place(w, *c);
  w.ctx = c->ctx;
  w.counters.resumes.bump();
  w.rt->eng->charge(sched_op::fiber_switch, w.id, -1);
  auto* target = static_cast<fiber*>(c->fiber);
#ifdef LOCUS_HAVE_STACK_CALL
  if (void* sp = c->saved_sp) {
    // A spawn's parent saved by locus_call_on_stack (stack_call.hpp): the
    // parent releases this finished fiber when it arrives.
    w.pending_release = running_fiber();
    enter_fiber(nullptr, target);
    locus_resume_saved(sp);
  }
#endif
  switch_msg msg{switch_msg::kind::release_from, nullptr, nullptr};
  switch_fiber(running_fiber(), target, &msg, true);
  __builtin_unreachable();
}

[[noreturn]] void go_home(worker& w) {
  switch_msg msg{switch_msg::kind::release_from, nullptr, nullptr};
  switch_fiber(running_fiber(), w.home, &msg, true);
  __builtin_unreachable();
}

}  // namespace

// Runs on any fiber whose own work is finished; never returns (it leaves by
// switching to a continuation or, at shutdown, to the thread's own stack).
void run_scheduler(frame* ready) {
  for (;;) {
    if (ready != nullptr) resume(ready);
    worker& w = this_worker();
    frame* f = find_work(w);
    if (f == nullptr) go_home(w);
    if (f->kind == frame_kind::job) note_place(w, *f);  // a continuation is counted when it resumes
    w.ctx = f->ctx;
    ready = f->run(f);
  }
}

void switch_activity(worker& w, activity next, std::uint64_t now_ns) noexcept {
  auto& slot = w.counters.time_ns[static_cast<int>(w.current_activity)];
  if (now_ns > w.activity_since_ns)
    slot.store(slot.load(std::memory_order_relaxed) + (now_ns - w.activity_since_ns), std::memory_order_relaxed);
  w.current_activity = next;
  w.activity_since_ns = now_ns;
  w.published_since_ns.store(now_ns, std::memory_order_relaxed);
  w.published_activity.store(static_cast<std::uint8_t>(next), std::memory_order_relaxed);
}

bool wake_if_parked(runtime_state& rt, worker& w) noexcept {
  if (!claim_parked(w)) return false;
  rt.eng->wake(w.park_word);
  return true;
}

void wake_one_sleeper(runtime_state& rt) noexcept {
  for (auto& w : rt.workers)
    if (wake_if_parked(rt, *w)) return;
}

void wake_for_new_work() noexcept {
  if (runtime_state* rt = pool_if_started()) wake_one_sleeper(*rt);
}

void worker_main(runtime_state& rt, int index) {
  worker& w = *rt.workers[static_cast<std::size_t>(index)];
  bind_thread_to_worker(&w);
  // A simulated worker's body runs on a stack of the engine, which also
  // owns its thread's signal stack.
  fiber* engine_stack = rt.eng->home_fiber(index);
  if (engine_stack == nullptr) install_alt_stack_for_thread();
  w.home = engine_stack != nullptr ? engine_stack : thread_stack_fiber();
  set_running_fiber(w.home);
  w.rng.seed(rt.eng->seed(index));
  w.activity_since_ns = rt.eng->now_ns();

  switch_msg start{switch_msg::kind::none, nullptr, nullptr};
  after_resume(switch_fiber(w.home, w.fibers.take_to_start(), &start, false));

  // Back on the thread's own stack: the pool is stopping.
  switch_activity(w, activity::idle, rt.eng->now_ns());
  w.fibers.flush();
  if (engine_stack == nullptr) {
    remove_alt_stack_for_thread();
    delete w.home;
  }
  w.home = nullptr;
  set_running_fiber(nullptr);
  bind_thread_to_worker(nullptr);
}

}  // namespace locus::detail
