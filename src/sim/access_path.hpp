// The simulator's memory front end: what a touch costs a virtual worker.
//
// A touch (locus::touch, touch_indexed) reaches the memory model through
// the address map (page_map.hpp), page by page, in batches: a page of a
// touch, or a page's worth of gathered elements. Each batch is charged to
// the issuing core's clock with memory-level parallelism, the stream
// prefetcher and the queues at the controllers and links it used
// (contention.hpp), and counted by where it was served. Between batches the
// engine may run another worker whose clock is earlier, so that requests
// reach the controllers in virtual-time order (to a page's granularity).
// The virtual time itself (whose turn it is) is the engine's
// (src/engine/sim_engine.hpp); this is the access path it calls.
//
// Belongs to the simulation thread; a thread outside the pool uses it only
// while the simulation is quiescent (the engine sees to that).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/contention.hpp"
#include "sim/machine_model.hpp"
#include "sim/memory_model.hpp"
#include "sim/page_map.hpp"

namespace locus::detail::sim {

// A core that issues accesses: where it is, its clock, and what its
// accesses were served by (the engine's counters). The engine's virtual
// worker is one.
struct issuer {
  int core = 0;
  int node = 0;
  cycles clock = 0;
  std::atomic<std::uint64_t> served[served_by_count] = {};
  std::atomic<std::uint64_t> writebacks{0};     // the memory model's coherence traffic,
  std::atomic<std::uint64_t> invalidations{0};  // after the served counts in counter_names()
  // Accesses served beyond the core's private caches, by the home node of
  // the line's page (counter_names(): beyond_private_home_<node>).
  std::unique_ptr<std::atomic<std::uint64_t>[]> beyond_private_by_home;
};

// What the engine does between two batches of one touch: let a worker
// whose clock is now earlier go first (sim_engine's yield_if_behind).
struct between_batches {
  void (*fn)(void* engine);
  void* engine;
  void operator()() const { fn(engine); }
};

class access_path {
 public:
  access_path(const machine_model& machine, const memory_options& options);

  std::size_t block_bytes() const { return memory_.block_bytes(); }
  // Gives an issuer its counters by home node.
  void add_issuer(issuer& me) const;

  // [address, address + bytes), page by page; the latency of the misses
  // still in flight at the end is added to me.clock.
  void touch(issuer& me, std::uint64_t address, std::uint64_t bytes, access_kind kind, between_batches between);
  // base[indices[0..count)], elements of elem_size bytes: independent
  // accesses (a gather), overlapped like a touch's lines but never
  // prefetched. index_bytes is 1, 2, 4 or 8 (the caller checked);
  // is_signed says how to widen them.
  void touch_indexed(issuer& me, const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                     std::size_t count, std::size_t elem_size, access_kind kind, between_batches between);

  // Page homes (node < 0: interleave over all nodes).
  void place_pages(const void* address, std::size_t bytes, int node);
  // The home of the page holding address, or -1 (never touched, or no home yet).
  int page_home(const void* address);
  void forget_pages(const void* address, std::size_t bytes) { pages_.forget(address, bytes); }

  // The counters' names, and an issuer's counters, one per name.
  std::vector<std::string> counter_names() const;
  void read_counters(const issuer& me, std::uint64_t* out) const;

 private:
  // What a batch of accesses (a page of a touch, a group of gathered
  // elements) was served by: counts and cycles, and the blocks that came
  // from each node's DRAM and from other L3s by node, for the bandwidth
  // model.
  struct batch {
    access_counts counts;
    std::vector<std::uint64_t> dram_by_home;
    std::vector<std::uint64_t> l3_by_node;
    std::vector<std::uint64_t> writeback_by_home;       // dirty blocks written back, by home node
    std::vector<std::uint64_t> beyond_private_by_home;  // served beyond the private caches, by home node
    void clear();
  };
  // Runs [address, address + bytes) through the memory model, page by
  // page, adding to `into`.
  void access_range(const issuer& me, std::uint64_t address, std::uint64_t bytes, access_kind kind, batch& into);
  // Charges a batch issued at me.clock (memory-level parallelism, the
  // prefetcher when `sequential`, the queues of sim/contention.hpp) and
  // counts it; `tail` carries the latency of the last misses still in
  // flight, which the caller adds when the touch ends.
  void charge_batch(issuer& me, const batch& b, bool sequential, double& tail);
  void count_served(issuer& me, const batch& b);

  const machine_model& machine_;
  memory_model memory_;
  contention contention_;
  page_map pages_;
  batch batch_;  // reused, so that a touch allocates nothing
};

}  // namespace locus::detail::sim
