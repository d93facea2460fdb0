// The tree of caches of multi-level scheduling (seed 003, section 4.1,
// figure 12), over the workers of a pool: the root is main memory (level
// 0, unbounded), each shared cache a node whose children are the caches
// (or workers) it holds, and each worker a leaf (its private caches).
//
// Built from the topology's caches and the workers' cores: a cache is a
// node if two or more workers share it; caches that hold the same workers
// (an L2 and the L3 of a one-core-per-L2 socket, say) are one node, with
// the largest capacity, since a group that fits the largest fits the node.
// A node's parent is the smallest node that holds all its workers. So a
// 2 x 28-core Cascade Lake is memory > 2 L3s > 56 workers, and a host
// whose one L3 holds every worker is memory > L3 > workers. A leaf's
// capacity is its worker's largest private cache (an L2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace locus::detail {

class cache_tree {
 public:
  struct node {
    int level = 0;                 // 0: memory
    int parent = -1;               // -1: the root
    std::size_t capacity = 0;      // bytes; memory: unbounded
    std::vector<int> children;     // node ids, by first worker
    std::vector<int> workers;      // the workers below, ascending
    int worker = -1;               // a leaf's worker, -1 otherwise
  };
  static constexpr int root = 0;
  static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

  cache_tree(const topology& topo, const placement& places);

  int size() const { return static_cast<int>(nodes_.size()); }
  const node& at(int id) const { return nodes_[static_cast<std::size_t>(id)]; }
  bool is_leaf(int id) const { return at(id).worker >= 0; }
  int leaf_of(int worker) const { return leaf_[static_cast<std::size_t>(worker)]; }
  // The child of `id` that holds `worker` (which must be below id).
  int child_toward(int id, int worker) const;
  // The node each worker leads at the start: leaders are elected bottom up,
  // the leader of a node being its first child's (section 4.2).
  int initial_lead(int worker) const { return initial_lead_[static_cast<std::size_t>(worker)]; }
  // The deepest level (the leaves' on a symmetric tree).
  int max_level() const { return max_level_; }
  // D(C, l) of seed 003 figure 15: the nodes at `level` below `id`, and the
  // leaves above it (a worker's caches are not split further), by first
  // worker. `id` itself if it is at `level` or a leaf.
  std::vector<int> below(int id, int level) const;
  // Figure 15 lines 62-67: the level over whose caches under `caches`
  // (siblings, C_i..C_max(i,j-1)) a task group of `size` bytes should be
  // scheduled: one level down as long as their total capacity holds it,
  // stopping at max_level(). Their own level if it does not fit them.
  int flatten_level(std::span<const int> caches, std::size_t size) const;
  // One line per node, for tests and LOCUS_STATS: "L1 [0..27] 38.5 MiB".
  std::string describe() const;

 private:
  std::vector<node> nodes_;
  std::vector<int> leaf_;
  std::vector<int> initial_lead_;
  int max_level_ = 0;
};

}  // namespace locus::detail
