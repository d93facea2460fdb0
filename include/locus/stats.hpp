// Per-worker counters: where the time went and what the scheduler did.
//
// Time is split into the three categories of the NUMA-WS paper (section II):
// work (running the program, including spawn overhead), scheduling (steals
// that succeeded, suspending and resuming frames, non-trivial syncs) and idle
// (failed steal attempts and sleeping). Counters are always on; their cost is
// measured by the fib benchmark, which compiles one copy of its kernel with
// LOCUS_NO_SPAWN_COUNTER (the only counter on the fast path) for comparison.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locus {

// A counter that a policy or an engine declares, by name.
struct named_count {
  std::string name;
  std::uint64_t value = 0;
};

struct worker_stats {
  int worker = 0;
  int place = 0;
  double work_s = 0, sched_s = 0, idle_s = 0;
  std::uint64_t spawns = 0;          // task_group spawns and fork_join forks
  std::uint64_t steal_attempts = 0;
  std::uint64_t steals = 0;          // successful steals
  std::uint64_t suspends = 0;        // frames suspended at a sync, a join or a locus::mutex
  std::uint64_t resumes = 0;         // suspended frames resumed
  std::uint64_t sleeps = 0;          // times the worker went to sleep
  std::uint64_t at_hinted_place = 0;   // hinted frames the scheduler ran at their place
  std::uint64_t off_hinted_place = 0;  // ... and elsewhere
  std::uint64_t arena_moves = 0;       // moves to another arena (locus::arena; the shares changed)
  std::uint64_t arena_forwards = 0;    // frames of another arena sent on to their own
  // The policy's own counters, in the order its registry entry names them
  // (numa-ws: mailbox_hits, pushes, push_attempts; docs/configuration.md).
  std::vector<named_count> policy_counters;
  // The engine's own counters: with the simulator (LOCUS_ENGINE=sim), memory
  // accesses in blocks by where they were served, l1_hits, l2_hits, l3_hits,
  // remote_l3_hits, local_dram, remote_dram (docs/simulator.md); none with
  // real threads.
  std::vector<named_count> engine_counters;

  // Any counter by name: the fixed ones above, then the policy's and the
  // engine's. Throws std::out_of_range naming the counters there are.
  std::uint64_t counter(std::string_view name) const;
  // Adds every time and counter of `other` (worker and place stay); named
  // counters add by name, those only `other` has are appended.
  worker_stats& operator+=(const worker_stats& other);
};

struct stats {
  std::vector<worker_stats> workers;
  // Time during which at least one computation submitted from outside the
  // pool was running: simulated time under the simulator (its T_P).
  double elapsed_s = 0;
  bool simulated = false;          // counted by the simulator
  std::size_t block_bytes = 0;     // the simulator's unit of memory access (a line, or LOCUS_SIM_BLOCK)
  // With LOCUS_SPAN=1: the work (T_1), span (T_inf) and burdened span of
  // the roots that finished, in seconds (simulated under the simulator),
  // summed over roots; zero otherwise (docs/observability.md).
  bool span_measured = false;
  double work_s = 0, span_s = 0, burdened_span_s = 0;
  std::uint64_t span_roots = 0;
  double parallelism() const { return span_s > 0 ? work_s / span_s : 0; }
  double burdened_parallelism() const { return burdened_span_s > 0 ? work_s / burdened_span_s : 0; }
  worker_stats total() const;      // sums (worker = -1)
  std::string summary() const;     // a readable table
  std::string to_json() const;     // one JSON object
};

// Counters accumulated since the pool started or since the last reset.
stats get_stats();
void reset_stats();

}  // namespace locus
