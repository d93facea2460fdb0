// 0-1 knapsack by branch and bound, the Knapsack control of CATS (seed 002,
// Table 1 and section 4.3), with the bound of MIT Cilk's knapsack example:
// items sorted by value per unit of weight, densest first; a node decides
// the next item, taking it and leaving it; a node's own packing is a
// candidate for the best so far; a node is cut off when even filling its
// remaining capacity at the next item's density could not beat the best.
//
// Two phases:
//   1. A probe: the serial search (taking before leaving) limited to
//      `probe` nodes. Taking the densest items first finds good packings
//      early: on the suite's instances it finds the optimum within the
//      first 5 000 nodes (README.md), and nearly all of the search is the
//      proof that nothing beats it.
//   2. The parallel search from the probe's best: in the first `depth`
//      levels the two choices run under P::fork2, below them the search is
//      serial. The best so far is one shared atomic word, read at every
//      node and raised with a compare-and-swap, so a task prunes with what
//      any other found.
// The result is the optimum in every variant. Where the probe found the
// optimum the best never changes in phase 2, so the nodes searched do not
// depend on the schedule or on the order in which a backend runs the two
// branches (without the probe they did: README.md). The search returns
// its node count, which the instance reports.
//
// For the simulator (README.md) every node costs node_cycles: a parallel
// node declares its own, the probe and each serial subtree count their
// nodes and declare them when done. Nothing is touched (the items are a
// few hundred bytes).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include <locus/annotate.hpp>

namespace knapsack {

struct item {
  std::int64_t weight;  // at least 1
  std::int64_t value;
};

// Per node: the capacity test, the comparison that may raise the best, the
// end test, the bound (a multiply, a divide, an add) and its comparison,
// and the two children's capacity and value: 9.
inline constexpr std::uint64_t node_cycles = 9;

// The best value so far: a plain word in the probe, a shared atomic one in
// the parallel search.
inline std::int64_t value_of(const std::int64_t& best) { return best; }
inline std::int64_t value_of(const std::atomic<std::int64_t>& best) { return best.load(std::memory_order_relaxed); }
inline void raise(std::int64_t& best, std::int64_t v) { best = std::max(best, v); }
inline void raise(std::atomic<std::int64_t>& best, std::int64_t v) {
  std::int64_t seen = best.load(std::memory_order_relaxed);
  while (v > seen && !best.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
}

// Whether the node with items e[0, n) still to decide, capacity c left and
// value v so far needs its children searched (its own packing is recorded).
template <class Best>
bool open(const item* e, std::int64_t n, std::int64_t c, std::int64_t v, Best& best) {
  if (c < 0) return false;  // the last item taken did not fit
  raise(best, v);
  if (n == 0 || c == 0) return false;
  // No packing of the rest is worth more than c at the densest density.
  return v + c * e->value / e->weight > value_of(best);
}

// Serial search of the node (e, n, c, v), taking before leaving, stopped
// once `nodes` reaches `limit`.
template <class Best>
void search(const item* e, std::int64_t n, std::int64_t c, std::int64_t v, Best& best, std::uint64_t& nodes,
            std::uint64_t limit) {
  if (nodes == limit) return;
  ++nodes;
  if (!open(e, n, c, v, best)) return;
  search(e + 1, n - 1, c - e->weight, v + e->value, best, nodes, limit);
  search(e + 1, n - 1, c, v, best, nodes, limit);
}

inline constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

// Phase 2 at the node (e, n, c, v) at level `level`: both children in
// parallel above `depth`, the serial search from there. Returns the nodes
// searched.
template <class P>
std::uint64_t solve(const item* e, std::int64_t n, std::int64_t c, std::int64_t v, std::atomic<std::int64_t>& best,
                    int level, int depth) {
  if (level >= depth) {
    std::uint64_t nodes = 0;
    search(e, n, c, v, best, nodes, unlimited);
    locus::compute(nodes * node_cycles);
    return nodes;
  }
  locus::compute(node_cycles);
  if (!open(e, n, c, v, best)) return 1;
  std::uint64_t taken = 0, left = 0;
  P::fork2([&] { taken = solve<P>(e + 1, n - 1, c - e->weight, v + e->value, best, level + 1, depth); },
           [&] { left = solve<P>(e + 1, n - 1, c, v, best, level + 1, depth); });
  return 1 + taken + left;
}

struct outcome {
  std::int64_t optimum;
  std::int64_t probed;       // the probe's best value
  std::uint64_t nodes;       // searched in phase 2
};

// The optimum of items[0, n) (densest first) in a knapsack of `capacity`.
template <class P>
outcome optimum(const item* items, std::int64_t n, std::int64_t capacity, int depth, std::uint64_t probe) {
  std::int64_t seed = 0;
  std::uint64_t probed = 0;
  search(items, n, capacity, 0, seed, probed, probe);
  locus::compute(probed * node_cycles);
  std::atomic<std::int64_t> best{seed};
  const std::uint64_t nodes = solve<P>(items, n, capacity, 0, best, 0, depth);
  return {best.load(), seed, nodes};
}

}  // namespace knapsack
