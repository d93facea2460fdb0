// The place -> NUMA node map, read from the running pool's placement.
#include "memory/place_nodes.hpp"

#include <numa.h>

#include <stdexcept>
#include <string>


namespace locus::detail {

place_nodes nodes_of_places(const pool_view& pool) {
  const topology& topo = pool.topo;
  place_nodes out;
  out.on_host = !topo.is_virtual;
  const bool ask_kernel = out.on_host && numa_available() >= 0;
  for (const auto& cores : pool.places.place_cores) {
    const core_info& first = topo.cores.at(static_cast<std::size_t>(cores.front()));
    // The topology numbers nodes densely in hwloc's order; the kernel's
    // numbers may have gaps, so ask it where the core is.
    const int os_node = ask_kernel && first.os_cpu >= 0 ? numa_node_of_cpu(first.os_cpu) : -1;
    out.node.push_back(os_node >= 0 ? os_node : first.numa_node);
  }
  return out;
}

void check_place(std::string_view call, int place, int num_places) {
  if (place >= 0 && place < num_places) return;
  throw std::invalid_argument(std::string(call) + ": place " + std::to_string(place) +
                              " does not exist: the pool has " + std::to_string(num_places) +
                              (num_places == 1 ? " place (0)" : " places (0.." + std::to_string(num_places - 1) + ")") +
                              "; see locus::num_places() and LOCUS_PLACES");
}

}  // namespace locus::detail
