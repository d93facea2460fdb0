// The remote rule, the scheduling costs derived from a latency table, and
// LOCUS_MACHINE resolution (preset or machine file).
#include "sim/machine_model.hpp"

#include <cstdint>
#include <filesystem>

namespace locus::detail::sim {

cycles at_distance(cycles local, cycles remote, int reference_distance, int distance) {
  if (distance <= local_distance || reference_distance <= local_distance) return local;
  // Integer arithmetic, so that every platform computes the same cycles.
  // Signed, because nothing stops a hand-built table from having
  // remote < local; the cost then shrinks with distance, never below 0.
  const std::int64_t span = reference_distance - local_distance;
  const std::int64_t difference =
      static_cast<std::int64_t>(remote) - static_cast<std::int64_t>(local);
  const std::int64_t extra = difference * (distance - local_distance);
  const std::int64_t rounded = (extra >= 0 ? extra + span / 2 : extra - span / 2) / span;
  const std::int64_t value = static_cast<std::int64_t>(local) + rounded;
  return value < 0 ? 0 : static_cast<cycles>(value);
}

cycles machine_model::remote_l3_cycles(int distance) const {
  // Anchored at the own-L3 latency: an L3 of the same node (a socket with
  // several L3s) costs about what the own one does.
  return at_distance(latency.l3_hit, latency.remote_l3_hit, latency.reference_distance, distance);
}

cycles machine_model::dram_cycles(int distance) const {
  return at_distance(latency.local_dram, latency.remote_dram, latency.reference_distance,
                     distance);
}

cycles machine_model::steal_cycles(int distance) const {
  return at_distance(costs.steal_local, costs.steal_remote, latency.reference_distance, distance);
}

cycles machine_model::operation_cycles(const operation_cost& cost, int distance) const {
  return at_distance(cost.local, cost.remote, latency.reference_distance, distance);
}

operation_cost machine_model::resolve_operation(const std::string& name, unsigned lines) const {
  operation_cost cost = derive_operation_cost(latency, lines);
  if (const auto it = operation_costs.find(name); it != operation_costs.end()) {
    if (it->second.local) cost.local = *it->second.local;
    if (it->second.remote) cost.remote = *it->second.remote;
  }
  return cost;
}

namespace {
// A locked read-modify-write (the CAS of a steal, the exchange of a
// mailbox) on a line already fetched: Agner Fog's instruction tables give
// 18 to 25 cycles for LOCK CMPXCHG / XCHG on Intel cores from Nehalem to
// Skylake; the AMD presets use the same figure.
constexpr cycles locked_op = 20;
}  // namespace

operation_cost derive_operation_cost(const latency_table& latency, unsigned lines) {
  // NUMA-WS's mailbox deposit or take is one exchange on a line the other
  // worker last wrote: lines = 1.
  return {lines * latency.l3_hit + locked_op, lines * latency.remote_l3_hit + locked_op};
}

scheduling_costs derive_scheduling_costs(const latency_table& latency) {
  // The owner's push and pop touch only its own lines. Measured by locus on
  // the development host (docs/benchmarks.md): fork_join, which is one push,
  // one pop and a call, costs 8.7 ns = 22 cycles at 2.5 GHz; split evenly
  // and rounded down. Assumed the same in cycles on every machine.
  constexpr cycles push_or_pop = 10;
  // A Chase-Lev steal attempt reads the victim's top and bottom and the
  // frame slot, three lines the victim wrote, then CASes top: three line
  // transfers from the victim's caches (an L3 hit on the same node, a remote
  // L3 hit across nodes) plus the locked operation.
  constexpr cycles lines_per_steal = 3;
  // Boost.Context's own measurement of an fcontext switch (the primitive
  // locus fibers use): 9 ns / 19 cycles, Boost.Context documentation,
  // "Performance" (Boost 1.76 to 1.87, Xeon E5-2620 v4).
  constexpr cycles fcontext_switch = 19;
  // Going to sleep and waking a sleeper are each a futex system call and a
  // kernel thread switch: "more than thousand CPU cycles on x86"
  // (Boost.Context documentation, overview). A lower bound, not measured.
  constexpr cycles kernel_thread_switch = 1000;
  // PAUSE takes about 140 cycles from Skylake on and about 10 before (Intel
  // 64 and IA-32 Optimization Reference Manual, "Pause latency in Skylake
  // microarchitecture"); one spin step also re-reads the victim's deque
  // ends. A round 100 on every machine: it only sets how often an idle
  // worker polls, not what work costs.
  constexpr cycles spin_step = 100;

  scheduling_costs costs;
  costs.deque_push = push_or_pop;
  costs.deque_pop = push_or_pop;
  costs.steal_local = lines_per_steal * latency.l3_hit + locked_op;
  costs.steal_remote = lines_per_steal * latency.remote_l3_hit + locked_op;
  costs.fiber_switch = fcontext_switch;
  costs.sleep = kernel_thread_switch;
  costs.wake = kernel_thread_switch;
  costs.spin = spin_step;
  return costs;
}

machine_model find_machine(std::string_view preset_or_file) {
  if (auto preset = find_preset(preset_or_file)) return std::move(*preset);
  const std::string path(preset_or_file);
  std::error_code ignored;
  if (!path.empty() && std::filesystem::is_regular_file(path, ignored))
    return load_machine_file(path);

  throw config_error("LOCUS_MACHINE=\"" + path +
                     "\": neither a machine preset nor a readable machine file; presets: " +
                     preset_name_list() +
                     "; or the path of a machine file (key=value lines, format in "
                     "src/sim/README.md)");
}

}  // namespace locus::detail::sim
