// Settings: runtime_options filled in from the environment and defaults, and
// validated. Every error names the setting, the value, and what is accepted.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/arenas.hpp"
#include "locus/runtime.hpp"
#include "sim/machine_model.hpp"
#include "topology/topology.hpp"
#include "util/parse_setting.hpp"

namespace locus::detail {

// Tunables, each with its default and the reason for it.
struct tunables {
  // 512 KiB: deep enough for recursive kernels with sizeable base cases;
  // stacks are reserved, not committed, so unused depth costs no memory.
  static constexpr std::size_t default_stack_bytes = 512 * 1024;
  static constexpr std::size_t min_stack_bytes = 16 * 1024;
  static constexpr std::size_t max_stack_bytes = std::size_t{1} << 30;
  // Idle spin before sleeping: long enough to bridge the serial gaps between
  // parallel loops of one computation, short enough to leave no visible load.
  static constexpr long default_spin_us = 100;
  // Adaptive spin: a worker whose last search found work spins this many
  // times longer (1 ms by default), so the workers of an iterative
  // computation stay awake across the serial gaps between its loops (a
  // futex wake costs more than a short step), while a pool whose work is
  // over still falls asleep within a millisecond (OpenMP keeps spinning for
  // 200 ms, oneTBB a while and then yields).
  static constexpr long warm_spin_factor = 10;
  // While a computation runs, a sleeper also wakes on a timer, because the
  // push fast path looks for sleepers without a fence and can miss one that
  // is just going to sleep; the timer bounds the cost of such a miss.
  static constexpr std::uint64_t min_nap_ns = 200'000;
  static constexpr std::uint64_t max_nap_ns = 10'000'000;
  // Poll services (locus::mpi's requests, detail/poll_service.hpp): a busy
  // worker polls at a scheduling point once this long has passed since its
  // last poll, and while a task waits on a service a sleeper naps at most
  // service_nap_ns, so a message that arrives while every worker sleeps is
  // seen within about that long (a futex wake-up per nap: cheap next to a
  // message's latency, and only while something is outstanding).
  static constexpr std::uint64_t service_poll_ns = 50'000;
  static constexpr std::uint64_t service_nap_ns = 50'000;
  // LOCUS_SPAN: what the burdened span charges where a thief would take
  // work, in ns (Cilkscale's burden is 15000 cycles, 5 us at 3 GHz).
  static constexpr std::uint64_t span_burden_ns = 5'000;
  // The size a trace may reach before recording stops (LOCUS_TRACE_MAX):
  // some seconds of fine-grained tasks on a few workers, and a file the
  // Perfetto UI still opens (it loads traces of up to about 1 GB in the
  // browser). At least 1 MiB: room for the header and a few chunks.
  static constexpr std::size_t default_trace_max = std::size_t{512} << 20;
  static constexpr std::size_t min_trace_max = std::size_t{1} << 20;
  static constexpr std::size_t max_trace_max = std::size_t{1} << 40;
};

struct settings {
  bool simulate = false;                      // LOCUS_ENGINE=sim
  std::optional<sim::machine_model> machine;  // with simulate: LOCUS_MACHINE's model
  std::size_t sim_block_bytes = 0;            // LOCUS_SIM_BLOCK; 0: the cache line
  bool sim_idle_attempts = true;              // LOCUS_SIM_IDLE=attempts (the default): every failed idle attempt simulated
  int workers = 1;
  std::string policy = "ws";
  topology topo;
  place_kind places = place_kind::numa;
  std::size_t stack_bytes = tunables::default_stack_bytes;
  bool pin = true;
  bool pack = false;  // LOCUS_PACK: workers on the fewest places instead of spread over all
  long spin_us = tunables::default_spin_us;
  long long seed = -1;
  bool asymmetric_fence = true;  // falls back to symmetric if the kernel lacks membarrier
  bool spawn_on_stack = true;    // x86-64 only; elsewhere spawn always uses two fiber switches
  // The chosen policy's options, every one its registry entry declares, in
  // its order, resolved (runtime_options::policy_options, then the
  // environment, then the default) and validated.
  std::vector<std::pair<std::string, std::string>> policy_options;
  bool wrap_hints = false;       // LOCUS_HINT_RANGE=wrap: out-of-range places taken modulo
  std::string stats_at_exit;  // LOCUS_STATS: "" (off), "summary", "json" (stderr) or "json:FILE"
  bool span = false;          // LOCUS_SPAN: measure work and span (span_hooks.hpp)
  std::string trace_path;     // LOCUS_TRACE: "" (off) or the trace file (docs/observability.md)
  std::size_t trace_max = tunables::default_trace_max;  // LOCUS_TRACE_MAX
  int arena_max = 64;                          // LOCUS_ARENA_MAX
  arena_shares shares = arena_shares::places;  // LOCUS_ARENA_SHARES
  std::function<void(int)> on_worker_start, on_worker_stop;  // runtime_options' observers
};

settings resolve_settings(const runtime_options& options);

// The OS cpus the workers are pinned within: the cpus this process may use
// (its binding), or under the simulator the modeled machine's cores, so
// simulated workers never share a core unless there are more of them.
std::vector<int> placement_cpus(const settings& cfg);

}  // namespace locus::detail
