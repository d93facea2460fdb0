// Bandwidth in virtual time: the memory controller of each NUMA node and the
// interconnect links between nodes, each a resource with a "busy until"
// clock. The engine runs virtual workers in the order of their clocks and
// reserves a piece of a touch when the worker issues it, so requests reach
// these clocks in virtual-time order and each resource serves them first
// come, first served; contention shows as the time a worker waits.
//
// Links: two nodes are linked when their distance is the smallest remote
// distance either of them has (their one-hop distance), so a ring's SLIT
// gives a ring and a flat one a full mesh. A transfer crosses the links of
// the shortest route (breadth first, ties to the lower node), one direction
// of each; each direction has the link's bandwidth (QPI, HyperTransport and
// UPI are full duplex).
//
// What crosses a link is the machine's link_protocol: a line of data with
// its packet header, the read request on the way to the home, and on a
// machine without a directory the snoop of every other node and the
// snooped nodes' responses to the home, for every miss, local ones too
// (QPI's source snoop, HyperTransport's broadcast probes). A reader waits
// for its data and the home's controller; requests, snoops and responses
// only occupy their links, so later transfers queue behind them.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/machine_model.hpp"

namespace locus::detail::sim {

// The directed links of the machine's interconnect, as (from node, to node)
// in increasing order, and per (from, to) the links a transfer crosses.
struct interconnect {
  std::vector<std::pair<int, int>> links;
  std::vector<std::vector<int>> routes;  // [from * nodes + to]: link indices, in order
  int nodes = 0;

  explicit interconnect(const topology& topo);
  const std::vector<int>& route(int from, int to) const {
    return routes[static_cast<std::size_t>(from * nodes + to)];
  }
};

class contention {
 public:
  // The line the protocols' packets carry (QPI, UPI and HyperTransport move
  // 64-byte lines); a block of several lines carries their overheads.
  static constexpr double protocol_line_bytes = 64;

  // Bandwidths come from the machine (memory_controller_gbps, link_gbps,
  // links_per_hop; 0 GB/s: that resource is not limited); one unit of
  // traffic is a block of block_bytes.
  contention(const machine_model& machine, std::uint64_t block_bytes);

  bool enabled() const { return controller_cycles_ > 0 || data_cycles_ > 0; }

  // A piece of a touch issued at `at` by a core of `node` reads
  // dram_by_home[h] blocks from node h's DRAM and l3_by_node[g] blocks from
  // an L3 on node g. Reserves the controllers and the links on each
  // route; returns when the last of them has passed every resource (at the
  // earliest `at`). The latency itself is the caller's.
  double reserve_reads(int node, double at, std::span<const std::uint64_t> dram_by_home,
                       std::span<const std::uint64_t> l3_by_node);

  // The write-back hook: blocks written back from a core of `node` to their
  // home nodes (by_home[h]) at `at`. Write-backs are posted: nobody waits
  // for them, but they occupy the home's controller and the links to it, so
  // later requests queue behind them.
  void reserve_writebacks(int node, double at, std::span<const std::uint64_t> by_home);

  // For tests and reports: when each resource is free again.
  double controller_free(int node) const { return controller_free_[static_cast<std::size_t>(node)]; }
  double link_free(int link) const { return link_free_[static_cast<std::size_t>(link)]; }
  const interconnect& links() const { return net_; }

 private:
  // Occupies a resource for `busy` cycles from max(at, free); returns the end.
  static double occupy(double& free, double at, double busy);
  // Occupies each link of the route from -> to for `cycles`; returns when
  // the last has passed it (at the earliest `at`).
  double transfer(int from, int to, double at, double cycles);
  // The snoops of `blocks` missed blocks a core of `node` sends to every
  // other node, and their responses to `home`.
  void snoop(int node, int home, double at, std::uint64_t blocks);

  interconnect net_;
  double controller_cycles_ = 0;  // per block; 0: unlimited
  // Cycles of one link direction per block: the data with its header, a
  // request, a snoop, a snoop response (all 0 when links are unlimited).
  double data_cycles_ = 0;
  double request_cycles_ = 0;
  double snoop_cycles_ = 0;
  double response_cycles_ = 0;
  std::vector<double> controller_free_;
  std::vector<double> link_free_;
};

}  // namespace locus::detail::sim
