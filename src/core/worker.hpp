// A worker: one per pinned thread. Owner-only state and state that thieves
// touch are kept apart (the deque separates its own ends; the park word and
// counters are read by others but written by the owner).
#pragma once

#include <atomic>
#include <cstdint>
#include <new>
#include <vector>

#include "fiber/fiber.hpp"
#include "core/inbox.hpp"
#include "engine/random.hpp"
#include "policy/spi/policy_context.hpp"
#include "locus/detail/span_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "trace/traced_worker.hpp"

namespace locus::detail {

struct runtime_state;
class one_shot;

// NUMA-WS section II: every moment of a worker is work, scheduling or idle.
enum class activity : std::uint8_t { work = 0, sched = 1, idle = 2 };

struct worker_counters {
  owner_counter steal_attempts, steals, suspends, resumes, sleeps;
  // Frames with a place hint that the scheduler started or resumed at that
  // place, or elsewhere (NUMA-WS: hints are hints).
  owner_counter at_hinted_place, off_hinted_place;
  // Arenas: moves from one arena to another (the resource manager's
  // shares changed), and frames of another arena sent on to their own.
  owner_counter arena_moves, arena_forwards;
  std::atomic<std::uint64_t> time_ns[3] = {};  // by activity; owner writes
  // The policy's counters, in the order its registry entry names them.
  owner_counter policy[max_policy_counters];
};

// The core's own bit of worker_view::hooks that no header reads: the
// running task entered an arena in place and has not yet told the resource
// manager (register_entry_demand, roots.cpp). Spawns, forks, posts and
// suspensions take the cold path, which tells it first.
inline constexpr std::uint16_t hook_arena_entry = 256;

// One arena entered in place by a running task (roots.cpp), on that task's
// stack for as long as its function runs.
struct in_place_entry {
  int arena = 0;
  bool demand = false;            // counted as a root of the arena (root_started)
  in_place_entry* outer = nullptr;  // an entry it is nested in, itself not counted yet
};

// Also what the trace sees of it (trace::traced_worker: its log, the
// steal counters, the start of the last steal attempt).
struct worker : worker_view, trace::traced_worker {
  worker(runtime_state& rt, int id, int place, fiber_pool& pool) : rt(&rt), fibers(pool) {
    this->id = id;
    this->place = place;
    steal_attempts = &counters.steal_attempts;
    steals = &counters.steals;
  }
  ~worker() {
    for (auto& list : free_jobs)
      for (void* block : list) ::operator delete(block);
  }
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;

  runtime_state* rt;
  fiber_cache fibers;
  fiber* home = nullptr;  // the thread's own stack; the loop returns there at shutdown
  // A finished fiber to return to the cache once we are off its stack: set
  // before leaving a fiber without a Boost.Context switch (which would carry
  // the release in its message), taken by whoever arrives.
  fiber* pending_release = nullptr;
  rng64 rng;
  // LOCUS_SPAN: the measure of the task running here (null outside a root)
  // and the root's own, kept here because a root runs to its end on the
  // worker that took it (nothing is stolen in that mode).
  span_frame* span_top = nullptr;
  span_frame span_root;

  // `parked` while asleep in the engine; a waker claims it by CAS to 0. A
  // thread that enters an arena may instead take a parked worker by CAS to
  // `borrowed` and run as it on its own thread, while the worker's thread
  // waits; it gives it back `parked` (core/roots.cpp).
  static constexpr std::uint32_t parked = 1, borrowed = 2;
  alignas(64) std::atomic<std::uint32_t> park_word{0};
  // Takes the worker out of its sleep: park_word parked -> `to`, 0 for a
  // waker or the sleeper itself (scheduler.cpp, claim_parked), `borrowed`
  // for a thread entering an arena (roots.cpp, borrow). Exactly one caller
  // wins. The seq_cst load is the read of park_word that the sleep protocol
  // pairs with the sleeper's seq_cst store (scheduler.cpp); the CAS is
  // acq_rel: the winner sees what was written before the worker parked.
  bool leave_parked(std::uint32_t to) noexcept {
    std::uint32_t expected = parked;
    return park_word.load(std::memory_order_seq_cst) == parked &&
           park_word.compare_exchange_strong(expected, to, std::memory_order_acq_rel);
  }
  // Whether a thread outside the pool runs as this worker now (roots.cpp);
  // its search leaves at the first round that finds nothing. For whoever
  // runs as the worker: the borrower set park_word to `borrowed` itself and
  // nobody else changes it until the borrower gives the worker back
  // (claims and borrows need `parked`, the worker's own thread waits in
  // take_back_from_sleep); the worker's own thread runs only once park_word
  // is 0 (its claim, or a waker's that it read), and nobody changes that
  // until it sleeps again. Either way the value read is the reader's own
  // or one it has synchronized with, so relaxed suffices.
  bool borrowed_now() const noexcept { return park_word.load(std::memory_order_relaxed) == borrowed; }
  // The borrower's own: the root it borrowed this worker to run (roots.cpp,
  // run_as) is done once this is set; nullptr when not borrowed.
  const one_shot* borrowed_for = nullptr;
  // Set by the worker's own thread while it waits in its sleep, having
  // written all it writes of the worker before: only then may a thread
  // borrow it (park_word alone turns `parked` before that bookkeeping).
  std::atomic<bool> borrowable{false};
  // Set by a thread that would borrow this worker while it searches: its
  // search goes to sleep at its next failed round instead of spinning on.
  std::atomic<bool> sleep_request{false};

  // Frames posted to this worker by the loop layer (core/inbox.hpp).
  alignas(64) inbox posted;
  // Owner-only: the last search for work ended in work, not in sleep. A
  // warm worker spins longer before sleeping (scheduler.cpp, adaptive spin).
  bool warm = false;
  // Owner-only: when this worker last polled the poll services
  // (core/poll_services.hpp), engine time.
  std::uint64_t last_poll_ns = 0;
  // Owner-only: the arena this worker is lent to (arenas.hpp, try_lend), or -1.
  int lent_to = -1;
  // Owner-only: the innermost arena the running task entered in place
  // (roots.cpp, enter_arena_in_place) whose demand is not counted yet, or
  // nullptr; hook_arena_entry is set exactly while it is not.
  in_place_entry* entry = nullptr;

  alignas(64) worker_counters counters;
  activity current_activity = activity::idle;
  std::uint64_t activity_since_ns = 0;
  std::atomic<std::uint8_t> published_activity{static_cast<std::uint8_t>(activity::idle)};
  std::atomic<std::uint64_t> published_since_ns{0};

  // Free lists of parent-first job blocks, by 64-byte size class.
  static constexpr std::size_t job_classes = 8;
  std::vector<void*> free_jobs[job_classes];
};

// The worker running the caller. Only valid on a worker.
inline worker& this_worker() noexcept { return *static_cast<worker*>(current_worker()); }

// Sets this worker's thread-local identity (on the worker thread).
void bind_thread_to_worker(worker* w) noexcept;

// Moves the worker to a new activity, charging the time since the last change
// to the old one. Called only on scheduling paths.
void switch_activity(worker& w, activity next, std::uint64_t now_ns) noexcept;

}  // namespace locus::detail
