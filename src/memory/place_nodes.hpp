// Which NUMA node holds each place of the running pool (place_nodes.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "memory/pool_view.hpp"

namespace locus::detail {

// The node of every place of the pool, indexed by place: the node of the
// place's first core. On the host it is the OS's node number (libnuma's
// numa_node_of_cpu), which is what mbind takes and move_pages reports; with
// a virtual topology it is the virtual node, which exists only in the
// simulator. `on_host` says which.
struct place_nodes {
  std::vector<int> node;
  bool on_host = false;
};
place_nodes nodes_of_places(const pool_view& pool);

// Throws std::invalid_argument unless 0 <= place < num_places; the message
// starts with `call` and names the place and the accepted range.
void check_place(std::string_view call, int place, int num_places);

}  // namespace locus::detail
