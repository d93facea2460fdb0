// The simulator's machine model: what a modeled machine looks like (the same
// topology struct the runtime schedules on) and what things cost on it, in
// core clock cycles: a memory access served at each level of the hierarchy,
// and each scheduling operation the engine charges to a virtual worker.
//
// Remote costs are given at one NUMA distance (`reference_distance`) and
// scaled to any other by one rule, linear in distance (see at_distance). The
// presets, their sources and the machine file format are described in
// src/sim/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "topology/topology.hpp"

namespace locus::detail::sim {

using cycles = std::uint64_t;

// NUMA distance of a node to itself (ACPI SLIT convention, as in topology).
inline constexpr int local_distance = 10;

// The remote rule. A cost is `local` at distance 10 and `remote` at
// `reference_distance`, and linear in distance between and beyond: the
// part of a remote access that crosses the interconnect grows with the
// number of hops, which SLIT distances count. Rounded to the nearest cycle.
// Distances at or below 10 cost `local`.
cycles at_distance(cycles local, cycles remote, int reference_distance, int distance);

// What one access costs, by where it is served. The remote figures hold at
// `reference_distance` (normally the one-hop distance of the machine).
struct latency_table {
  cycles l1_hit = 0;
  cycles l2_hit = 0;
  cycles l3_hit = 0;         // the L3 shared by the accessing core
  cycles remote_l3_hit = 0;  // the line is in another L3 instance
  cycles local_dram = 0;     // the page is homed on the core's own NUMA node
  cycles remote_dram = 0;    // the page is homed on another node
  int reference_distance = 20;

  bool operator==(const latency_table&) const = default;
};

// What the core's scheduling operations cost. Steals touch another worker's
// lines, so they have a local and a remote figure (at the latency table's
// reference distance) and scale like memory accesses. Operations a policy
// brings (a NUMA-WS mailbox) are priced by operation_cost below.
struct scheduling_costs {
  cycles deque_push = 0;
  cycles deque_pop = 0;
  cycles steal_local = 0;     // one steal attempt on a victim on the same node
  cycles steal_remote = 0;
  cycles fiber_switch = 0;
  cycles sleep = 0;           // a worker going to sleep
  cycles wake = 0;            // waking a sleeping worker (charged to the waker)
  cycles spin = 0;            // one step of an idle worker's spin loop (a pause)

  bool operator==(const scheduling_costs&) const = default;
};

// The scheduling costs every preset uses, derived from its latencies (the
// derivation and its sources are in machine_model.cpp). Machine files get
// the same derivation for every cost they do not give.
scheduling_costs derive_scheduling_costs(const latency_table& latency);

// A scheduling operation that a policy declares (policy registry, engine::
// declare_cost): its local and remote cost, scaled by distance like steals.
struct operation_cost {
  cycles local = 0;
  cycles remote = 0;
  bool operator==(const operation_cost&) const = default;
};
// An operation that moves `lines` cache lines the other worker last wrote and
// then does one locked read-modify-write (the derivation of steals).
operation_cost derive_operation_cost(const latency_table& latency, unsigned lines);
// What a machine file gives for an operation (keys <name>_local and
// <name>_remote); what it leaves out is derived when a policy declares it.
struct operation_cost_given {
  std::optional<cycles> local, remote;
};

struct machine_model {
  std::string name;
  std::string source;   // where every number comes from
  topology topo;
  double clock_ghz = 0;
  latency_table latency;
  scheduling_costs costs;
  // Bandwidth of each memory controller (one per NUMA node) in GB/s; 0
  // means unlimited. The engine enforces it with the links' (a queue per
  // resource in virtual time, sim/contention.hpp).
  double memory_controller_gbps = 0;
  // Bandwidth of one interconnect link in each direction, GB/s (0:
  // unlimited), and how many parallel links join two adjacent nodes. Which
  // nodes are adjacent comes from the distances (sim/contention.hpp).
  double link_gbps = 0;
  int links_per_hop = 1;
  // What a link carries besides the data, in bytes of its quoted bandwidth
  // per 64-byte line (sim/contention.hpp): the header of each data packet, a
  // read request toward the home, and, on a machine that keeps no directory,
  // a snoop to every other node per miss and each snooped node's response to
  // the home (snoop_bytes 0: no broadcast). All 0: only the data crosses.
  struct link_protocol {
    double data_header_bytes = 0;
    double request_bytes = 0;
    double snoop_bytes = 0;
    double snoop_response_bytes = 0;
  } protocol;
  // Memory-level parallelism of a core (sim_engine::touch): the misses of
  // one touch overlap up to `outstanding_misses` at a time (the L1's line
  // fill buffers); 1 makes every miss wait for the previous one. After
  // `prefetch_trigger` misses of a sequential run within a page, a stream
  // prefetcher keeps `prefetch_outstanding` lines in flight for the rest of
  // the page (0: no prefetcher).
  unsigned outstanding_misses = 1;
  unsigned prefetch_outstanding = 0;
  unsigned prefetch_trigger = 2;
  // Policy operations' costs a machine file gives, by operation name.
  std::map<std::string, operation_cost_given> operation_costs;

  // Costs at the NUMA distance between the accessing core's node and the
  // node that serves it, by the remote rule.
  cycles remote_l3_cycles(int distance) const;
  cycles dram_cycles(int distance) const;
  cycles steal_cycles(int distance) const;
  cycles operation_cycles(const operation_cost& cost, int distance) const;
  // The cost of a declared operation on this machine: what the machine file
  // gives, the rest derived from the latencies.
  operation_cost resolve_operation(const std::string& name, unsigned lines) const;
};

struct machine_preset {
  std::string_view name;
  std::string_view summary;  // one line, for --list-machines
};

// The presets, in the order --list-machines prints them.
std::span<const machine_preset> machine_presets();

// The preset called `name` (exact spelling), or nullopt. `host` reads this
// machine with hwloc.
std::optional<machine_model> find_preset(std::string_view name);

// "numa-ws-4x8, tbb-numa-westmere-4x8, ...": for error messages.
std::string preset_name_list();

// LOCUS_MACHINE: a preset name, or else the path of a machine file. Throws
// config_error naming LOCUS_MACHINE, the value and the accepted names when
// it is neither.
machine_model find_machine(std::string_view preset_or_file);

// Reads a machine file (format in src/sim/README.md). Throws config_error
// naming the file, the line and the key of the first problem.
machine_model load_machine_file(const std::string& path);

}  // namespace locus::detail::sim
