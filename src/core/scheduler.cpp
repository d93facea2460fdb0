// The scheduling loop: what a worker does when it is not running a task.
//
//   run_scheduler(ready):          (NUMA-WS figure 2, "scheduling loop")
//     loop: if a continuation is ready, switch to it;
//           else find work (the policy's search round, policy.hpp; by
//           default the own deque, the policy's local work, root tasks
//           submitted from outside, then one steal) and run it.
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
//
// No worker sleeps without a timer while a computation is in flight. A
// sleeper stores park_word (seq_cst), then reads roots_in_flight (seq_cst)
// to choose between a nap and a timer-less wait; the submitter that starts
// a computation (roots_in_flight 0 -> 1, seq_cst RMW) then reads every
// park_word (seq_cst) and wakes each parked worker (runtime.cpp,
// submit_root). One of the two sees the other, so a sleeper that missed the
// start is woken and naps from then on. Without this, the workers that fell
// asleep while the pool was idle slept through the computation: wake-ups
// come only when nobody searches, and the nappers' own timers keep somebody
// searching.
//
// Borrowed workers (roots.cpp): a thread entering an arena may take a
// parked worker (park_word parked -> borrowed) and run as it. The worker's
// own thread, back from its sleep, waits until the worker is given back
// (take_back_from_sleep); wakers skip it (their claim needs `parked`). A
// computation that a borrower starts does not wake every sleeper: the
// borrower works as long as it finds work, and when it gives the worker
// back with a computation still in flight, it wakes every sleeper then.
//
// A wake-up looks for a sleeper starting after the waker (wake_one_sleeper),
// not at worker 0: always starting at 0 woke the same few low-numbered
// nappers over and over while the others stayed asleep. Starting after the
// waker spreads the wake-ups and, workers being numbered place by place,
// wakes a neighbor of the work first.
//
// Adaptive spin: a worker whose previous search ended in work spins
// warm_spin_factor times longer than LOCUS_SPIN_US before it sleeps, so the
// workers of an iterative computation stay awake between its loops.
//
// Steal sessions (include/locus/detail/deque.hpp, asymmetric fence): a
// worker's first steal attempt pays one membarrier and makes owners fence
// their pops until its session ends: when it sleeps, when the pool stops,
// or once it has fenced enough pops of its own (fences.cpp). A worker that
// finds work keeps its session, so a worker of a fine-grained loop, back
// to stealing every few microseconds, does not pay membarrier each time.
//
// Inboxes (inbox.hpp): before the policy's search round a worker takes a
// frame posted to it (static loop blocks, loop-affinity sub-ranges); after a
// round that found nothing it tries one random other worker's inbox, so
// posted work never waits for a busy or descheduled worker.
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "core/fences.hpp"
#include "core/join.hpp"
#include "core/poll_services.hpp"
#include "core/runtime_state.hpp"
#include "core/stack_call.hpp"
#include "locus/detail/wait_queue.hpp"
#include "trace/events.hpp"

namespace locus::detail {

std::atomic<std::uint64_t> g_idle_state{0};

namespace {

constexpr std::uint64_t one_sleeping = std::uint64_t{1} << 32;

void leave_searching() { g_idle_state.fetch_sub(1, std::memory_order_acq_rel); }

// The arena whose work `self` may take: the one it serves, or the one the
// resource manager moves it to once its own deque is empty.
int arena_of(const runtime_state& rt, const worker& self) {
  return rt.arenas.engaged() ? rt.arenas.target(self.id) : 0;
}

// Work that `self` may take is visible somewhere. A policy that forbids
// some work to some workers (may_take) is asked, so that a worker it
// forbids sleeps instead of bouncing between sleep and a search that
// cannot succeed.
bool work_visible(runtime_state& rt, worker& self) {
  const bool filtered = rt.policy_filters_work;
  const int arena = arena_of(rt, self);
  if (!rt.arenas.queues_of(arena).empty() && (!filtered || rt.policy->may_take(self, nullptr))) return true;
  if (rt.policy->has_work_for(self)) return true;
  const bool engaged = rt.arenas.engaged();
  if (engaged && rt.arenas.starving() && rt.arenas.lendable_work(arena, self.place)) return true;  // lend_to_starving takes it
  for (auto& w : rt.workers) {
    if (engaged && w->arena.load(std::memory_order_relaxed) != arena) continue;
    if (w.get() == &self ? !w->posted.looks_empty() : w->posted.looks_raidable()) return true;
    if (!w->deque.looks_empty() && (!filtered || rt.policy->may_take(self, w.get()))) return true;
  }
  return false;
}

// A policy forbids `self` every frame in sight, or all of it belongs to
// other arenas: spinning cannot help, so the worker sleeps at once (a wake
// comes when work it may take appears).
bool only_forbidden_work(runtime_state& rt, worker& self) {
  if ((!rt.policy_filters_work && !rt.arenas.engaged()) || work_visible(rt, self)) return false;
  for (auto& w : rt.workers)
    if (!w->deque.looks_empty()) return true;
  for (int a = 0; a < rt.arenas.used(); ++a)
    if (!rt.arenas.slot(a).roots.empty()) return true;
  return false;
}

// Takes a parked worker out of its sleep (park_word 1 -> 0) and moves it
// from sleeping to searching. Exactly one caller wins the claim: the
// sleeper itself or one waker, so the counts stay exact.
bool claim_parked(worker& w) noexcept {
  if (!w.leave_parked(0)) return false;
  g_idle_state.fetch_add(1 - one_sleeping, std::memory_order_acq_rel);
  return true;
}


// The worker's own thread, back from its sleep (or about to sleep), takes
// the worker back: a waker claimed it already (park_word 0), or it claims
// itself. A thread that entered an arena may have borrowed it meanwhile
// (roots.cpp): that thread runs as this worker, so this one waits, with the
// nap as its timer, until the worker is given back asleep, and claims it.
void take_back_from_sleep(worker& w, std::uint64_t nap_ns) {
  for (std::uint32_t word; (word = w.park_word.load(std::memory_order_seq_cst)) != 0 && !claim_parked(w);)
    if (word == worker::borrowed) w.rt->eng->wait(w.park_word, worker::borrowed, nap_ns);
}

void sleep(worker& w, std::uint64_t nap_ns) {
  runtime_state& rt = *w.rt;
  end_stealing();  // a sleeper steals nothing: owners need not fence for it
  // seq_cst: a policy that hands this worker a frame (a mailbox) stores it,
  // then reads park_word; one of the two sees the other.
  w.park_word.store(worker::parked, std::memory_order_seq_cst);
  g_idle_state.fetch_add(one_sleeping - 1, std::memory_order_seq_cst);
  if (work_visible(rt, w) || rt.stopping.load(std::memory_order_seq_cst)) return take_back_from_sleep(w, nap_ns);
  rt.policy->on_sleep(w);
  w.counters.sleeps.bump();
  const bool traced = w.hooks & hook_trace;
  std::uint64_t slept_at = 0;
  if (traced) [[unlikely]] {
    trace::before_sleep(w);
    slept_at = trace::now(w);
  }
  // A task waiting on a poll service (MPI) needs somebody to poll.
  const bool polling = poll_services_registered() && poll_services_pending();
  const bool computing = polling || rt.roots_in_flight.load(std::memory_order_seq_cst) > 0;
  // From here to the wait's end this thread writes nothing of the worker's:
  // a thread entering an arena may borrow it (roots.cpp), and sees what was
  // written above through this release.
  w.borrowable.store(true, std::memory_order_release);
  if (computing) {
    rt.eng->wait(w.park_word, worker::parked, polling ? std::min(nap_ns, tunables::service_nap_ns) : nap_ns);
  } else {
    while (w.park_word.load(std::memory_order_acquire) == worker::parked) rt.eng->wait(w.park_word, worker::parked, 0);
  }
  w.borrowable.store(false, std::memory_order_relaxed);
  // Woken by a waker, who claimed us, or by the timer.
  take_back_from_sleep(w, nap_ns);
  if (traced) [[unlikely]] trace::slept(w, slept_at);
}

// A frame posted to another worker that has not taken it yet: one random
// other worker's inbox, as a steal.
search_result raid_posted(runtime_state& rt, worker& w) {
  const auto n = static_cast<std::uint32_t>(rt.workers.size());
  if (n < 2) return {};
  worker& victim = *rt.workers[(w.id + 1 + w.rng.below(n - 1)) % n];
  if (!victim.posted.looks_raidable() || victim.arena.load(std::memory_order_relaxed) != w.arena.load(std::memory_order_relaxed))
    return {};
  w.attempt_start_ns = rt.eng->now_ns();
  frame* f = victim.posted.raid();
  if (f == nullptr) return {};
  w.counters.steals.bump();
  if (w.hooks & hook_trace) [[unlikely]] trace::steal_attempt(w, victim.id);
  return {f, found_at::steal};
}

void move_to_target_arena(runtime_state& rt, worker& w) {
  if (!w.deque.looks_empty()) return;
  if (w.lent_to >= 0) {  // the lent arena's frames are done here
    rt.arenas.end_lend(w.lent_to);
    w.lent_to = -1;
  }
  const std::uint16_t target = rt.arenas.target(w.id);
  if (target != w.arena.load(std::memory_order_relaxed)) serve_arena(w, target);
}

// Nothing to do in its own arena: help an arena that has work and no
// worker (arenas.hpp), with one round of the policy's search there. A
// frame found keeps the worker there until its deque is empty again.
search_result lend_to_starving(runtime_state& rt, worker& w) {
  if (!rt.arenas.starving() || w.lent_to >= 0) return {};
  const int arena = rt.arenas.try_lend(w.arena.load(std::memory_order_relaxed), w.place);
  if (arena < 0) return {};
  w.lent_to = arena;
  serve_arena(w, arena);
  search_result found = rt.policy->find_work(w);
  if (found.f == nullptr) move_to_target_arena(rt, w);
  return found;
}

// Returns a frame to run, or nullptr when the pool is stopping.
// How a trace draws where a search found its frame (trace/events.hpp).
trace::found_by traced_as(found_at where) {
  switch (where) {
    case found_at::steal: return trace::found_by::steal;
    case found_at::roots: return trace::found_by::roots;
    case found_at::posted: return trace::found_by::posted;
    default: return trace::found_by::here;
  }
}

// One round of the policy's search. By default own frames first: thieves
// take the oldest frames, so by the time a worker gets here its deque is
// normally empty; what can be left is a parent-first child a policy routed
// to this very deque. Then what the policy keeps for this worker, then
// root tasks from outside, then one steal attempt. Posted frames only with
// the own deque empty: a frame found here may complete a join and resume
// its parent on this worker, whose pop after the resume must not take a
// frame of ours (join.cpp, take_back_parent).
search_result search_round(runtime_state& rt, worker& w) {
  // Arenas: a worker the resource manager moved serves its new arena from
  // the first round its own deque is empty (arenas.hpp).
  if (rt.arenas.engaged()) [[unlikely]] move_to_target_arena(rt, w);
  search_result found{w.deque.looks_empty() ? w.posted.take() : nullptr, found_at::posted};
  if (found.f == nullptr) found = rt.policy->find_work(w);
  if (found.f == nullptr) found = raid_posted(rt, w);
  if (found.f == nullptr && rt.arenas.engaged()) [[unlikely]] found = lend_to_starving(rt, w);
  return found;
}

// What a search does with the frame it found, once it no longer counts as
// searching (or never did: its first round, find_work). Go-style spreading:
// the last searcher that found a stolen frame or a root wakes a sleeper to
// search in its place, since where there was one frame there may be more.
// The failed attempts were idle time; the one that succeeded, and what the
// policy did with the frame, is scheduling time. A first round's frame
// leaves the worker's activity as it was, work, through the round.
frame* take_found(runtime_state& rt, worker& w, search_result found) {
  w.warm = true;
  const bool stolen = found.where == found_at::steal;
  if ((stolen || found.where == found_at::roots) && sleeper_should_wake(g_idle_state.load(std::memory_order_relaxed)))
    wake_one_sleeper(rt, w.id + 1, w.arena.load(std::memory_order_relaxed));
  if (stolen) switch_activity(w, activity::sched, w.attempt_start_ns);
  if (stolen || w.current_activity != activity::work) switch_activity(w, activity::work, rt.eng->now_ns());
  return found.f;
}

frame* find_work(worker& w) {
  runtime_state& rt = *w.rt;
  engine& eng = *rt.eng;
  assert(&w == &this_worker() && "only a worker searches for itself");
  const bool traced = (w.hooks & hook_trace) != 0;
  // A thread that borrowed this worker to run a root (roots.cpp) leaves
  // without a search once the root has returned and nothing of the
  // worker's own is left, as oneTBB's thread leaves the arena when
  // execute's function returns: a search could only find other work, which
  // the sleepers it wakes as it leaves take (run_as). The root's end
  // switched the worker to idle (run_root_task) unless it found more since.
  if (w.borrowed_for != nullptr && w.borrowed_for->is_set() && w.deque.looks_empty() && w.posted.looks_empty() &&
      !traced) [[unlikely]] {
    if (w.current_activity != activity::idle) switch_activity(w, activity::idle, eng.now_ns());
    end_stealing();
    return nullptr;
  }
  // The first round, before the search counts as one (issue 44): a worker
  // whose next frame is at hand (its deque, its inbox, a shared queue, one
  // steal) takes it without two clock reads and two RMWs on g_idle_state,
  // a line every worker writes, per frame. Until it fails, the worker does
  // not count as searching, so a push meanwhile may wake a sleeper that it
  // would have spared; never the reverse. Traced workers search as always
  // (a trace shows every search).
  search_result found{};
  if (!traced) {
    found = search_round(rt, w);
    if (found.f != nullptr) return take_found(rt, w, found);
  }
  std::uint64_t now = eng.now_ns();
  switch_activity(w, activity::idle, now);
  g_idle_state.fetch_add(1, std::memory_order_acq_rel);
  if (traced) [[unlikely]] trace::search_begin(w);

  std::uint64_t spin_start = now;
  std::uint64_t nap = tunables::min_nap_ns;
  unsigned spins = 0;
  std::uint64_t round_start = 0;  // when the last round began, once one has failed
  // Adaptive spin (config.hpp, warm_spin_factor): longer while the last
  // search found work, back to the base once this worker has slept.
  std::uint64_t spin_ns = w.warm ? rt.spin_ns * tunables::warm_spin_factor : rt.spin_ns;
  for (bool searched = !traced;; searched = false) {  // searched: the first round failed
    if (!searched) found = search_round(rt, w);
    // Nothing to run: complete what a poll service can (an MPI request a
    // task waits on); what it completes is found in the next round.
    if (found.f == nullptr && poll_services_registered()) [[unlikely]] poll_services(w);
    // A thread working as this worker (borrowed, roots.cpp) leaves at the
    // first round that finds nothing: it gives the worker back asleep.
    if (found.f == nullptr && w.borrowed_now()) [[unlikely]] {
      if (w.hooks & hook_trace) [[unlikely]] trace::search_end(w, trace::found_by::here);
      end_stealing();
      leave_searching();
      return nullptr;
    }
    if (found.f != nullptr) {
      if (w.hooks & hook_trace) [[unlikely]] trace::search_end(w, traced_as(found.where));
      leave_searching();
      return take_found(rt, w, found);
    }
    if (rt.stopping.load(std::memory_order_acquire)) {
      if (w.hooks & hook_trace) [[unlikely]] trace::search_end(w, trace::found_by::here);
      end_stealing();  // for good: a pool started later must not see us as a thief
      leave_searching();
      return nullptr;
    }
    now = eng.now_ns();
    // Under the simulator nothing comes from outside while a worker spins
    // (from_outside waits until every worker sleeps), so with no root in
    // flight spinning cannot find work: sleep at once. Spinning on would
    // only cost the host a steal attempt and a fiber switch per spin for
    // every worker the last root woke.
    const bool nothing_can_come =
        eng.outside_waits_for_sleepers() && rt.roots_in_flight.load(std::memory_order_relaxed) == 0;
    // A thread entering an arena asked this worker to sleep now, to borrow
    // it (roots.cpp): it skips the rest of its spin.
    const bool asked_to_sleep =
        w.sleep_request.load(std::memory_order_relaxed) && w.sleep_request.exchange(false, std::memory_order_acq_rel);
    if (now - spin_start < spin_ns && !nothing_can_come && !asked_to_sleep && !only_forbidden_work(rt, w)) {
      // Nothing this worker may take is in sight: every further attempt
      // would fail until another worker shows work. The simulator waits
      // for that instead of running the attempts (engine.hpp); threads spin.
      std::uint64_t skipped = 0;
      if (eng.waits_for_work() && !work_visible(rt, w) &&
          eng.wait_for_work(spin_start + spin_ns, round_start != 0 ? now - round_start : 0, skipped)) {
        if (skipped != 0) rt.policy->skipped_rounds(w, skipped);
        round_start = eng.now_ns();
        continue;
      }
      round_start = now;
      eng.relax(spins++);
      continue;
    }
    w.warm = false;
    spin_ns = rt.spin_ns;
    sleep(w, nap);
    nap = std::min(nap * 2, tunables::max_nap_ns);
    spin_start = eng.now_ns();
    spins = 0;
    round_start = 0;
  }
}

bool of_my_arena(const worker& w, const frame& f) {
  return f.ctx.arena == w.arena.load(std::memory_order_relaxed) || !w.rt->arenas.isolating();
}

// Counts where hinted frames run (slow path: frames the scheduler handles).
void note_place(worker& w, const frame& f) {
  if (f.ctx.place == any_place) return;
  (f.ctx.place == w.place ? w.counters.at_hinted_place : w.counters.off_hinted_place).bump();
}

[[noreturn]] void resume(frame* ready) {
  auto* c = static_cast<continuation*>(ready);
  worker& w = this_worker();
  assert(c->kind == frame_kind::continuation && "only continuations resume");
  note_place(w, *c);
  w.ctx = c->ctx;
  if (w.hooks & hook_trace) [[unlikely]] trace::frame_begin(w, *c);
  if (w.hooks & hook_task_events) [[unlikely]] w.rt->policy->on_task(w, task_event::resume, c);
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

void serve_arena(worker& w, int arena) {
  w.arena.store(static_cast<std::uint16_t>(arena), std::memory_order_release);
  w.counters.arena_moves.bump();
  if (w.hooks & hook_trace) [[unlikely]] trace::named(w, "arena", arena);
}

namespace {
// The loop of run_scheduler and run_scheduler_from: `job`, if any, is run
// first, as a frame found by a search would be.
[[noreturn]] void scheduling_loop(frame* ready, frame* job) {
  for (;;) {
    worker& w = this_worker();  // resume() does not return, so w is where we are
    if (w.hooks & hook_trace) [[unlikely]] trace::enter_scheduler(w);
    if (ready != nullptr) {
      if (!of_my_arena(w, *ready)) [[unlikely]] forward_to_arena(*w.rt, w, ready);
      else resume(ready);
    }
    frame* f = job != nullptr ? std::exchange(job, nullptr) : find_work(w);
    if (f == nullptr) go_home(w);
    // A frame of another arena (a steal that raced with its worker's move,
    // a policy's mailbox or hand-off, an inbox) runs only in its own.
    if (!of_my_arena(w, *f)) [[unlikely]] {
      forward_to_arena(*w.rt, w, f);
      ready = nullptr;
      continue;
    }
    const bool job = f->kind == frame_kind::job;
    if (job) note_place(w, *f);  // a continuation is counted when it resumes
    w.ctx = f->ctx;
    if (job && (w.hooks & hook_task_events)) [[unlikely]] w.rt->policy->on_task(w, task_event::begin, f);
    if (job && (w.hooks & hook_trace)) [[unlikely]] trace::frame_begin(w, *f);
    ready = f->run(f);
    // The job ran to its end, possibly after moving to another worker.
    if (job) {
      worker& now_on = this_worker();
      if (now_on.hooks & hook_task_events) [[unlikely]] now_on.rt->policy->on_task(now_on, task_event::end, nullptr);
      poll_services_if_due(now_on);  // a busy worker polls too, at a bounded interval
    }
  }
}
}  // namespace

// Runs on any fiber whose own work is finished; never returns (it leaves by
// switching to a continuation or, at shutdown, to the thread's own stack).
void run_scheduler(frame* ready) { scheduling_loop(ready, nullptr); }

void run_scheduler_from(frame* job) { scheduling_loop(nullptr, job); }

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
  if (rt.trace) [[unlikely]] trace::woke(w.id);
  rt.eng->wake(w.park_word);
  return true;
}

bool serves(const runtime_state& rt, const worker& w, int arena) noexcept {
  // An arena without workers is served by whoever is lent to it.
  return !rt.arenas.engaged() || rt.arenas.target(w.id) == arena || w.arena.load(std::memory_order_relaxed) == arena ||
         rt.arenas.unserved(arena);
}

void wake_one_sleeper(runtime_state& rt, int start, int arena) noexcept {
  const std::size_t n = rt.workers.size();
  for (std::size_t i = 0; i < n; ++i) {
    worker& w = *rt.workers[(static_cast<std::size_t>(start) + i) % n];
    if (serves(rt, w, arena) && wake_if_parked(rt, w)) return;
  }
}

void wake_sleeper_for(runtime_state& rt, const worker_view* source, int arena) noexcept {
  const int start = source != nullptr ? source->id + 1 : 0;
  if (!rt.policy_filters_work) return wake_one_sleeper(rt, start, arena);
  // Only a sleeper the policy lets take the new work; if there is none,
  // the work waits for its own worker or a permitted searcher (and the
  // sleepers' nap timers while a computation runs).
  const std::size_t n = rt.workers.size();
  for (std::size_t i = 0; i < n; ++i) {
    worker& w = *rt.workers[(static_cast<std::size_t>(start) + i) % n];
    if (serves(rt, w, arena) && rt.policy->may_take(w, source) && wake_if_parked(rt, w)) return;
  }
}

void wake_all_sleepers(runtime_state& rt) noexcept {
  for (auto& w : rt.workers) wake_if_parked(rt, *w);
}

void wake_for_new_work() noexcept {
  if (runtime_state* rt = pool_if_started()) {
    worker_view* w = current_worker();
    wake_sleeper_for(*rt, w, w != nullptr ? w->arena.load(std::memory_order_relaxed) : 0);
  }
}

namespace {
// runtime_options' worker observers; a throw has nowhere to go on a
// worker's own stack, so it ends the program, saying what it was.
void observe_worker(const std::function<void(int)>& handler, int index, const char* which) noexcept {
  if (!handler) return;
  try {
    handler(index);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus: runtime_options::%s threw for worker %d: %s\n", which, index, e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "locus: runtime_options::%s threw for worker %d (not a std::exception)\n", which, index);
    std::abort();
  }
}
}  // namespace

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
  observe_worker(rt.cfg.on_worker_start, index, "on_worker_start");
  w.activity_since_ns = rt.eng->now_ns();

  switch_msg start{switch_msg::kind::none, nullptr, nullptr};
  after_resume(switch_fiber(w.home, w.fibers.take_to_start(), &start, false));

  // Back on the thread's own stack: the pool is stopping.
  switch_activity(w, activity::idle, rt.eng->now_ns());
  w.fibers.flush();
  observe_worker(rt.cfg.on_worker_stop, index, "on_worker_stop");
  if (engine_stack == nullptr) {
    remove_alt_stack_for_thread();
    delete w.home;
  }
  w.home = nullptr;
  set_running_fiber(nullptr);
  bind_thread_to_worker(nullptr);
}

}  // namespace locus::detail
