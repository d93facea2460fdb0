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
#include <vector>

namespace locus {

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
  std::uint64_t mailbox_hits = 0;    // frames taken from a mailbox (policies)
  std::uint64_t pushes = 0;          // frames pushed to another worker's mailbox (numa-ws)
  std::uint64_t push_attempts = 0;   // tries to push, successful or not (numa-ws)
  std::uint64_t at_hinted_place = 0;   // hinted frames the scheduler ran at their place
  std::uint64_t off_hinted_place = 0;  // ... and elsewhere
  // Simulator only (LOCUS_ENGINE=sim): memory accesses, in cache blocks, by
  // where they were served (docs/simulator.md). Zero with real threads.
  std::uint64_t l1_hits = 0, l2_hits = 0, l3_hits = 0, remote_l3_hits = 0;
  std::uint64_t local_dram = 0, remote_dram = 0;

  // Adds every time and counter of `other` (worker and place stay).
  worker_stats& operator+=(const worker_stats& other);
};

struct stats {
  std::vector<worker_stats> workers;
  // Time during which at least one computation submitted from outside the
  // pool was running: simulated time under the simulator (its T_P).
  double elapsed_s = 0;
  bool simulated = false;          // counted by the simulator
  std::size_t block_bytes = 0;     // the simulator's unit of memory access (a line, or LOCUS_SIM_BLOCK)
  worker_stats total() const;      // sums (worker = -1)
  std::string summary() const;     // a readable table
  std::string to_json() const;     // one JSON object
};

// Counters accumulated since the pool started or since the last reset.
stats get_stats();
void reset_stats();

}  // namespace locus
