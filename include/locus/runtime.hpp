// Starting, configuring and querying the worker pool.
//
// A program may create one `locus::runtime` to start the pool with explicit
// options; it stops the pool when destroyed. Without one, the pool starts on
// first use with options taken from the environment (LOCUS_WORKERS,
// LOCUS_POLICY, LOCUS_TOPOLOGY, LOCUS_PLACES, LOCUS_STACK_SIZE, ...; see
// docs/configuration.md) and stops at program exit.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace locus {

// Every field left at its default is taken from the environment, and failing
// that from the built-in default written beside it.
struct runtime_options {
  int workers = 0;            // LOCUS_WORKERS; default: one per core
  std::string policy;         // LOCUS_POLICY; default "ws"
  std::string topology;       // LOCUS_TOPOLOGY; default: the host (hwloc)
  std::string places;         // LOCUS_PLACES: numa|socket|l3|l2|core; default numa
  std::size_t stack_size = 0; // LOCUS_STACK_SIZE, bytes (K/M suffix); default 512K
  int pin = -1;               // LOCUS_PIN: 1 pins workers to cores, 0 does not; default 1
  int pack = -1;              // LOCUS_PACK: 1 puts the workers on the fewest places that hold
                              //   them; default 0 (spread evenly over every place)
  long spin_us = -1;          // LOCUS_SPIN_US: idle spin before sleeping; default 100
  long long seed = -1;        // LOCUS_SEED: seed of the victim choice; default random
                              //   (1 with the simulator, so that runs repeat)
  std::string fence;          // LOCUS_FENCE: asymmetric|symmetric; default asymmetric
                              //   (owner pops without a fence; thieves use membarrier)
  std::string spawn_switch;   // LOCUS_SPAWN_SWITCH: stack|fiber; default stack on x86-64
                              //   (how a work-first spawn moves the child to its own stack)
  // The policy's own options, by name, e.g. {{"push_threshold", "2"}} for
  // numa-ws; each also has an environment variable (numa-ws: steal_weights,
  // LOCUS_STEAL_WEIGHTS; push_threshold, LOCUS_PUSH_THRESHOLD). Options given
  // here win over the environment. docs/configuration.md lists them; a name
  // the chosen policy does not declare is a config_error.
  std::vector<std::pair<std::string, std::string>> policy_options;
  std::string engine;         // LOCUS_ENGINE: threaded|sim; default threaded. sim runs the
                              //   workers on a simulated machine (docs/simulator.md)
  std::string machine;        // LOCUS_MACHINE: the simulated machine, a preset name or a
                              //   machine file; default host. Only with engine sim
  std::string trace;          // LOCUS_TRACE: write a Chrome trace-event JSON file of the run
                              //   here when the pool stops; default none (docs/observability.md)
  std::size_t trace_max = 0;  // LOCUS_TRACE_MAX, bytes (K/M/G suffix): recording stops before the
                              //   file would pass this size, and says so; default 512M
  int span = -1;              // LOCUS_SPAN: 1 measures work and span (T_1, T_inf; constructs
                              //   then run serially, timed; locus::get_stats() and LOCUS_STATS
                              //   report them); default 0 (docs/observability.md)
  int arena_max = 0;          // LOCUS_ARENA_MAX: how many arenas may exist at once, the default
                              //   arena included (locus::arena); default 64
  std::string arena_shares;   // LOCUS_ARENA_SHARES: places (each arena with work gets an equal
                              //   share of the workers of every place, TBB-NUMA) or pool (shares
                              //   by count, consecutive workers, as standard TBB); default places
  // Worker observers (rayon's start_handler/exit_handler, oneTBB's
  // task_scheduler_observer): called with the worker's index on the
  // worker's own thread (named locus-w<index>), before it takes its first
  // task and after its last, e.g. to set per-thread state. Under the
  // simulator the workers are fibers of one thread and each call runs
  // there. A handler may ask worker_id() and current_place(), not start
  // work; it must not throw: a throw ends the program with its message on
  // stderr.
  std::function<void(int worker)> on_worker_start;
  std::function<void(int worker)> on_worker_stop;
};

class runtime {
 public:
  // Starts the pool. Throws locus::config_error for a bad setting, and
  // std::logic_error if a pool is already running (one pool per process).
  runtime();
  explicit runtime(const runtime_options& options);
  ~runtime();  // waits for nothing: all work must have been synced
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
};

// Number of workers of the pool (starts the pool if needed).
int num_workers();
// Index of the calling worker, 0..num_workers()-1, or -1 off the pool.
int worker_id() noexcept;
// Number of places (see LOCUS_PLACES; starts the pool if needed).
int num_places();
// Place of the calling worker, or -1 off the pool.
int current_place() noexcept;
// Name of the scheduling policy in use (starts the pool if needed).
std::string policy_name();
// The engine running the workers: "threaded" or "sim" (starts the pool if needed).
std::string engine_name();
// The simulator's machine presets (LOCUS_MACHINE), in a stable order.
struct machine_info {
  std::string name;
  std::string summary;  // one line: shape, caches, clock, the paper it comes from
};
std::vector<machine_info> available_machines();
// Names LOCUS_POLICY accepts.
std::vector<std::string> available_policies();

}  // namespace locus
