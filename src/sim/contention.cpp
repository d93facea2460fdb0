#include "sim/contention.hpp"

#include <algorithm>
#include <deque>
#include <limits>

namespace locus::detail::sim {

interconnect::interconnect(const topology& topo) : nodes(std::max(topo.num_numa_nodes, 1)) {
  const auto n = static_cast<std::size_t>(nodes);
  const auto distance = [&](std::size_t a, std::size_t b) {
    return a < topo.numa_distance.size() && b < topo.numa_distance[a].size() ? topo.numa_distance[a][b]
                                                                            : local_distance;
  };
  // A node's one-hop distance: the smallest to any other node.
  std::vector<int> hop(n, std::numeric_limits<int>::max());
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (a != b) hop[a] = std::min(hop[a], distance(a, b));
  std::vector<std::vector<int>> neighbours(n);
  std::vector<int> link_id(n * n, -1);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (a != b && (distance(a, b) == hop[a] || distance(b, a) == hop[b])) {
        link_id[a * n + b] = static_cast<int>(links.size());
        links.emplace_back(static_cast<int>(a), static_cast<int>(b));
        neighbours[a].push_back(static_cast<int>(b));
      }
  routes.assign(n * n, {});
  for (std::size_t from = 0; from < n; ++from) {
    std::vector<int> parent(n, -1);
    std::vector<bool> seen(n, false);
    std::deque<int> frontier{static_cast<int>(from)};
    seen[from] = true;
    while (!frontier.empty()) {
      const int at = frontier.front();
      frontier.pop_front();
      for (const int next : neighbours[static_cast<std::size_t>(at)])
        if (!seen[static_cast<std::size_t>(next)]) {
          seen[static_cast<std::size_t>(next)] = true;
          parent[static_cast<std::size_t>(next)] = at;
          frontier.push_back(next);
        }
    }
    for (std::size_t to = 0; to < n; ++to) {
      if (to == from || !seen[to]) continue;
      std::vector<int>& route = routes[from * n + to];
      for (int at = static_cast<int>(to); at != static_cast<int>(from); at = parent[static_cast<std::size_t>(at)])
        route.push_back(link_id[static_cast<std::size_t>(parent[static_cast<std::size_t>(at)]) * n +
                                static_cast<std::size_t>(at)]);
      std::reverse(route.begin(), route.end());
    }
  }
}

contention::contention(const machine_model& machine, std::uint64_t block_bytes) : net_(machine.topo) {
  // A block takes block_bytes / (GB/s) nanoseconds of a controller; on a
  // link, each 64-byte line of it also carries the protocol's bytes.
  const auto cycles = [&](double bytes, double gbps) { return gbps > 0 ? bytes / gbps * machine.clock_ghz : 0.0; };
  const double link_gbps = machine.link_gbps * std::max(machine.links_per_hop, 1);
  const double lines = static_cast<double>(block_bytes) / protocol_line_bytes;
  const auto& p = machine.protocol;
  controller_cycles_ = cycles(static_cast<double>(block_bytes), machine.memory_controller_gbps);
  data_cycles_ = cycles(static_cast<double>(block_bytes) + lines * p.data_header_bytes, link_gbps);
  request_cycles_ = cycles(lines * p.request_bytes, link_gbps);
  snoop_cycles_ = cycles(lines * p.snoop_bytes, link_gbps);
  response_cycles_ = snoop_cycles_ > 0 ? cycles(lines * p.snoop_response_bytes, link_gbps) : 0.0;
  controller_free_.assign(static_cast<std::size_t>(net_.nodes), 0.0);
  link_free_.assign(net_.links.size(), 0.0);
}

double contention::occupy(double& free, double at, double busy) {
  free = std::max(free, at) + busy;
  return free;
}

double contention::transfer(int from, int to, double at, double cycles) {
  double done = at;
  if (cycles <= 0 || from == to) return done;
  for (const int link : net_.route(from, to))
    done = std::max(done, occupy(link_free_[static_cast<std::size_t>(link)], at, cycles));
  return done;
}

void contention::snoop(int node, int home, double at, std::uint64_t blocks) {
  if (snoop_cycles_ <= 0) return;
  const auto n = static_cast<double>(blocks);
  for (int peer = 0; peer < net_.nodes; ++peer) {
    if (peer == node) continue;
    transfer(node, peer, at, n * snoop_cycles_);
    transfer(peer, home, at, n * response_cycles_);
  }
}

double contention::reserve_reads(int node, double at, std::span<const std::uint64_t> dram_by_home,
                                 std::span<const std::uint64_t> l3_by_node) {
  double done = at;
  for (std::size_t home = 0; home < dram_by_home.size(); ++home) {
    const std::uint64_t blocks = dram_by_home[home];
    if (blocks == 0) continue;
    const auto h = static_cast<int>(home);
    const auto n = static_cast<double>(blocks);
    if (controller_cycles_ > 0) done = std::max(done, occupy(controller_free_[home], at, n * controller_cycles_));
    transfer(node, h, at, n * request_cycles_);
    snoop(node, h, at, blocks);
    done = std::max(done, transfer(h, node, at, n * data_cycles_));
  }
  // A line another L3 forwards: its home is not known here, so the snoop
  // responses are counted to the reader (a cache-to-cache transfer answers
  // the reader directly) and no request goes to a home.
  for (std::size_t from = 0; from < l3_by_node.size(); ++from) {
    const std::uint64_t blocks = l3_by_node[from];
    if (blocks == 0) continue;
    snoop(node, node, at, blocks);
    done = std::max(done, transfer(static_cast<int>(from), node, at, static_cast<double>(blocks) * data_cycles_));
  }
  return done;
}

void contention::reserve_writebacks(int node, double at, std::span<const std::uint64_t> by_home) {
  for (std::size_t home = 0; home < by_home.size(); ++home) {
    const std::uint64_t blocks = by_home[home];
    if (blocks == 0) continue;
    const auto n = static_cast<double>(blocks);
    if (controller_cycles_ > 0) occupy(controller_free_[home], at, n * controller_cycles_);
    transfer(node, static_cast<int>(home), at, n * data_cycles_);
  }
}

}  // namespace locus::detail::sim
