// Topology: what the machine (or a virtual machine description) looks like,
// and how workers are grouped into places.
//
// A topology is a tree: machine > packages (sockets) > NUMA nodes > caches
// (L3, L2, L1, innermost last) > cores. It is discovered with hwloc
// (`discover_host`) or parsed from a string (`parse_topology`, grammar in
// docs/configuration.md), and it is plain data: the scheduler, the simulator
// (which models caches from it) and `locus-topo` all read the same struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <locus/errors.hpp>

namespace locus::detail {

// One cache of the machine. `cores` lists the core ids that share it.
struct cache_info {
  int level = 0;                 // 1, 2, 3, ...
  std::size_t size_bytes = 0;
  int line_bytes = 64;
  int associativity = 0;         // 0 = unknown / fully associative
  std::vector<int> cores;

  bool operator==(const cache_info&) const = default;
};

// Orders caches by level, then by first core, so host and virtual
// topologies read the same way.
void sort_caches(std::vector<cache_info>& caches);

// One core (we schedule on cores; hardware threads of a core are not used
// as separate workers unless the topology says cores are PUs).
struct core_info {
  int id = 0;           // dense, 0..num_cores-1, in topology order
  int os_cpu = -1;      // OS cpu index to pin to; -1 for a virtual core
  int package = 0;      // socket index
  int numa_node = 0;    // NUMA node index (dense, 0..num_numa_nodes-1)

  bool operator==(const core_info&) const = default;
};

// What a place is: the unit a locality hint names (NUMA-WS "virtual place").
enum class place_kind { numa, socket, l3, l2, core };

struct topology {
  bool is_virtual = false;
  std::string description;       // the string it was parsed from, or "host"
  int num_packages = 0;
  int num_numa_nodes = 0;
  std::vector<core_info> cores;  // indexed by core id
  std::vector<cache_info> caches;  // every cache instance, any level
  // numa_distance[a][b]: ACPI SLIT-style distance (10 = local).
  std::vector<std::vector<int>> numa_distance;
  // The host only: the CPUs the process may run on ("1", "0-3,8"), and what
  // of the machine that set leaves out ("cpus 0,2-3: 3 cores, 1 NUMA node"),
  // empty when nothing is left out (discover_host).
  std::string allowed_cpus;
  std::string left_out;

  int num_cores() const { return static_cast<int>(cores.size()); }

  bool operator==(const topology&) const = default;
};

// Thrown for a malformed topology string or an unusable setting. what()
// names the setting, the value, and what is accepted. It is the public
// locus::config_error (include/locus/errors.hpp), so programs can catch it.
using config_error = locus::config_error;

// Parses the virtual topology grammar, e.g. "4x8:L3=16M,L2=256K,dist=10/20/30".
// Throws config_error (setting name given by `setting`) on bad input.
topology parse_topology(std::string_view text, std::string_view setting = "LOCUS_TOPOLOGY");

// Discovers the host with hwloc, as far as this process may use it: only the
// cores, caches and NUMA nodes of the CPU set the process was given
// (taskset, numactl --cpunodebind, mpirun --bind-to, srun --cpu-bind, a
// container's cpuset) are in the topology. Never throws for a machine hwloc
// can read; falls back to a flat one-socket topology of the allowed CPUs if
// hwloc fails, and says so in `description`. With `whole_machine`, every
// core of the machine whatever the binding (the simulator's "host" machine
// models the machine, not the process).
topology discover_host(bool whole_machine = false);

// The OS cpus the calling thread may run on, ascending (sched_getaffinity);
// 0..hardware_concurrency-1 if the set cannot be read.
std::vector<int> allowed_os_cpus();

// Parses a place kind name: "numa", "socket", "l3", "l2", "core".
place_kind parse_place_kind(std::string_view text, std::string_view setting = "LOCUS_PLACES");
const char* to_string(place_kind k);

// Places and the assignment of workers to cores and places.
struct placement {
  place_kind kind = place_kind::numa;
  int num_places = 0;
  std::vector<std::vector<int>> place_cores;   // cores of each place
  std::vector<int> worker_core;                // core each worker runs on
  std::vector<int> worker_place;               // place each worker belongs to
  std::vector<int> worker_os_cpu;              // OS cpu to pin to, -1 = none
  std::vector<std::vector<int>> place_workers; // workers of each place
  // place_distance[a][b]: distance between places: the largest NUMA
  // distance between a node of a's cores and a node of b's cores (so 10 on
  // the diagonal when a place lies within one NUMA node).
  std::vector<std::vector<int>> place_distance;
  // Two workers share an OS cpu: more workers than cores, or a virtual
  // topology with more cores in use than the host has cpus.
  bool pinning_wrapped = false;
};

// Spreads `num_workers` evenly over the places of kind `kind` in contiguous
// blocks: with W workers over P places, place p gets workers
// [p*W/P, (p+1)*W/P), which take the place's cores in order (wrapping around
// within the place). With W < P only the first W places get a worker, and
// only places with a worker are kept (num_places = min(W, P)). Computes the
// OS cpu to pin each worker to: the core's os_cpu, or on a virtual topology
// host_cpus[core id % host_cpus.size()] (host_cpus: the cpus the process may
// use, never empty). `pinning_wrapped` is set when two workers get the same
// OS cpu. Throws config_error for num_workers < 1 (LOCUS_WORKERS) or a cache
// place kind the topology has no cache for (LOCUS_PLACES).
// With `packed`, only the fewest places (in order) whose cores hold every
// worker are used (LOCUS_PACK=1).
placement make_placement(const topology& topo, place_kind kind, int num_workers,
                         const std::vector<int>& host_cpus, bool packed = false);
// The same on a host whose cpus are 0..host_cpus-1.
placement make_placement(const topology& topo, place_kind kind, int num_workers,
                         int host_cpus, bool packed = false);

// "0-3,6,8-9": a list of ascending values, runs written as ranges.
std::string range_list(const std::vector<int>& values);

// Human-readable and JSON renderings used by locus-topo.
std::string describe(const topology& topo, const placement& pl);
std::string to_json(const topology& topo, const placement& pl);

}  // namespace locus::detail
