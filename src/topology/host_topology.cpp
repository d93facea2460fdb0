// Host discovery with hwloc 2.x: sockets, NUMA nodes, caches and cores of
// this machine, one PU per core, and NUMA distances (10/20 when hwloc has
// none). Falls back to a flat machine, saying why, when hwloc cannot read it.
//
// Only what the process may use: the topology is restricted to the CPU set
// the process is bound to (hwloc_get_cpubind over all its threads), so the
// places, the default worker count and the pinning stay inside what the
// launcher gave it (taskset, numactl, mpirun --bind-to, srun --cpu-bind).
// hwloc itself already leaves out what a cgroup cpuset forbids.
#include "topology/topology.hpp"

#include <hwloc.h>
#include <sched.h>

#include <cstdlib>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace locus::detail {

namespace {

using hwloc_owner = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

std::vector<std::vector<int>> default_numa_distance(int num_nodes) {
  std::vector<std::vector<int>> matrix(static_cast<std::size_t>(num_nodes),
                                       std::vector<int>(static_cast<std::size_t>(num_nodes), 20));
  for (int n = 0; n < num_nodes; ++n) matrix[n][n] = 10;
  return matrix;
}

int count_of(hwloc_topology_t hw, hwloc_obj_type_t type) {
  return std::max(0, hwloc_get_nbobjs_by_type(hw, type));
}

// What we report when hwloc cannot read the machine: one socket, one NUMA
// node, a core per allowed cpu, no caches.
topology flat_host(std::string_view why) {
  const std::vector<int> cpus = allowed_os_cpus();
  topology topo;
  topo.description = "host (" + std::string(why) + "; assuming 1 socket of " +
                     std::to_string(cpus.size()) + " cores)";
  topo.num_packages = 1;
  topo.num_numa_nodes = 1;
  for (std::size_t id = 0; id < cpus.size(); ++id) topo.cores.push_back({static_cast<int>(id), cpus[id], 0, 0});
  topo.numa_distance = default_numa_distance(1);
  return topo;
}

using bitmap_owner = std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)>;

std::string cpu_list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "?";
  std::string out(text);
  std::free(text);
  return out;
}

// Restricts the loaded topology to the cpus the process is bound to, and
// says what that left out. Returns the allowed set's text, or "" when the
// binding cannot be read (then the whole machine is used).
std::string restrict_to_binding(hwloc_topology_t hw, std::string& left_out) {
  const bitmap_owner bound(hwloc_bitmap_alloc(), &hwloc_bitmap_free);
  const hwloc_const_cpuset_t machine = hwloc_topology_get_topology_cpuset(hw);
  if (bound == nullptr || hwloc_get_cpubind(hw, bound.get(), HWLOC_CPUBIND_PROCESS) != 0) return "";
  hwloc_bitmap_and(bound.get(), bound.get(), machine);
  if (hwloc_bitmap_iszero(bound.get()) || hwloc_bitmap_isequal(bound.get(), machine)) return cpu_list(machine);
  const bitmap_owner outside(hwloc_bitmap_alloc(), &hwloc_bitmap_free);
  hwloc_bitmap_andnot(outside.get(), machine, bound.get());
  const int cores_before = count_of(hw, HWLOC_OBJ_CORE), nodes_before = count_of(hw, HWLOC_OBJ_NUMANODE);
  // REMOVE_CPULESS: a NUMA node none of whose cpus is allowed is no place.
  if (hwloc_topology_restrict(hw, bound.get(), HWLOC_RESTRICT_FLAG_REMOVE_CPULESS) != 0) return "";
  const int cores = cores_before - count_of(hw, HWLOC_OBJ_CORE), nodes = nodes_before - count_of(hw, HWLOC_OBJ_NUMANODE);
  left_out = "cpus " + cpu_list(outside.get()) + ": " + std::to_string(cores) + (cores == 1 ? " core, " : " cores, ") +
             std::to_string(nodes) + (nodes == 1 ? " NUMA node" : " NUMA nodes");
  return cpu_list(bound.get());
}

// In hwloc 2 NUMA nodes are memory children, not ancestors of cores, so a
// core's node is the first node whose cpuset covers it (DRAM comes before
// CPU-less or high-bandwidth nodes in logical order).
int numa_node_of(hwloc_topology_t hw, hwloc_const_cpuset_t cpuset) {
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node)) != nullptr)
    if (hwloc_bitmap_intersects(node->cpuset, cpuset)) return static_cast<int>(node->logical_index);
  return 0;
}

// One core_info per core, pinned to its first PU. Some platforms expose no
// Core objects; then each PU is a core.
std::vector<core_info> host_cores(hwloc_topology_t hw) {
  const hwloc_obj_type_t type = count_of(hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  std::vector<core_info> cores;
  hwloc_obj_t obj = nullptr;
  while ((obj = hwloc_get_next_obj_by_type(hw, type, obj)) != nullptr) {
    const hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(hw, obj->cpuset, HWLOC_OBJ_PU, 0);
    if (pu == nullptr) continue;
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_PACKAGE, obj);
    core_info core;
    core.id = static_cast<int>(cores.size());
    core.os_cpu = static_cast<int>(pu->os_index);
    core.package = package != nullptr ? static_cast<int>(package->logical_index) : 0;
    core.numa_node = numa_node_of(hw, obj->cpuset);
    cores.push_back(core);
  }
  return cores;
}

// Data and unified caches of every level; instruction caches have their own
// hwloc types and are left out (they do not hold the data we place).
std::vector<cache_info> host_caches(hwloc_topology_t hw, const std::vector<core_info>& cores) {
  constexpr hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                              HWLOC_OBJ_L5CACHE};
  std::vector<cache_info> caches;
  for (const auto type : cache_types) {
    hwloc_obj_t obj = nullptr;
    while ((obj = hwloc_get_next_obj_by_type(hw, type, obj)) != nullptr) {
      const auto& attr = obj->attr->cache;
      cache_info cache;
      cache.level = static_cast<int>(attr.depth);
      cache.size_bytes = static_cast<std::size_t>(attr.size);
      cache.line_bytes = static_cast<int>(attr.linesize);
      // hwloc says -1 for fully associative and 0 for unknown; we use 0 for both.
      cache.associativity = std::max(0, attr.associativity);
      for (const auto& core : cores)
        if (hwloc_bitmap_isset(obj->cpuset, static_cast<unsigned>(core.os_cpu)))
          cache.cores.push_back(core.id);
      if (!cache.cores.empty()) caches.push_back(std::move(cache));
    }
  }
  sort_caches(caches);
  return caches;
}

std::vector<std::vector<int>> host_numa_distance(hwloc_topology_t hw, int num_nodes) {
  auto matrix = default_numa_distance(num_nodes);
  hwloc_distances_s* distances = nullptr;
  unsigned count = 1;
  if (hwloc_distances_get_by_type(hw, HWLOC_OBJ_NUMANODE, &count, &distances,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
      count == 0 || distances == nullptr)
    return matrix;
  // The matrix may list the nodes in any order, or only some of them.
  const unsigned n = distances->nbobjs;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      const auto a = distances->objs[i]->logical_index;
      const auto b = distances->objs[j]->logical_index;
      if (a >= static_cast<unsigned>(num_nodes) || b >= static_cast<unsigned>(num_nodes)) continue;
      const auto value = distances->values[i * n + j];
      matrix[a][b] = static_cast<int>(std::min<hwloc_uint64_t>(value, INT_MAX));
    }
  hwloc_distances_release(hw, distances);
  return matrix;
}

}  // namespace

topology discover_host(bool whole_machine) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return flat_host("hwloc_topology_init failed");
  const hwloc_owner hw(raw, &hwloc_topology_destroy);
  if (hwloc_topology_load(raw) != 0) return flat_host("hwloc_topology_load failed");

  topology topo;
  topo.description = "host";
  if (!whole_machine) topo.allowed_cpus = restrict_to_binding(raw, topo.left_out);
  topo.cores = host_cores(raw);
  if (topo.cores.empty()) return flat_host("hwloc found no cores");
  topo.num_packages = std::max(1, count_of(raw, HWLOC_OBJ_PACKAGE));
  topo.num_numa_nodes = std::max(1, count_of(raw, HWLOC_OBJ_NUMANODE));
  topo.caches = host_caches(raw, topo.cores);
  topo.numa_distance = host_numa_distance(raw, topo.num_numa_nodes);
  return topo;
}

std::vector<int> allowed_os_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  if (cpus.empty())
    for (int cpu = 0; cpu < static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); ++cpu)
      cpus.push_back(cpu);
  return cpus;
}

}  // namespace locus::detail
