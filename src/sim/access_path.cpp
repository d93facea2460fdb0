// The simulator's memory front end (access_path.hpp): batches of a touch
// through the address map and the memory model, charged to the issuing
// core's clock.
#include "sim/access_path.hpp"

#include <algorithm>
#include <cmath>

#include "sim/fatal.hpp"

namespace locus::detail::sim {

access_path::access_path(const machine_model& machine, const memory_options& options)
    : machine_(machine),
      memory_(machine, options),
      contention_(machine, memory_.block_bytes()),
      pages_(memory_.page_bytes()) {
  const auto nodes = static_cast<std::size_t>(std::max(machine_.topo.num_numa_nodes, 1));
  batch_.dram_by_home.assign(nodes, 0);
  batch_.l3_by_node.assign(nodes, 0);
  batch_.writeback_by_home.assign(nodes, 0);
  batch_.beyond_private_by_home.assign(nodes, 0);
}

void access_path::add_issuer(issuer& me) const {
  me.beyond_private_by_home = std::make_unique<std::atomic<std::uint64_t>[]>(batch_.beyond_private_by_home.size());
}

// The names LOCUS_STATS has always used for the memory model's levels, then
// the coherence traffic (not accesses: consumers that sum the levels keep
// to the first six).
std::vector<std::string> access_path::counter_names() const {
  std::vector<std::string> names{"l1_hits",    "l2_hits",    "l3_hits",   "remote_l3_hits",
                                 "local_dram", "remote_dram", "writebacks", "invalidations"};
  for (std::size_t node = 0; node < batch_.beyond_private_by_home.size(); ++node)
    names.push_back("beyond_private_home_" + std::to_string(node));
  return names;
}

void access_path::read_counters(const issuer& me, std::uint64_t* out) const {
  static_assert(served_by_count == 6, "counter_names() lists one name per served_by");
  for (std::size_t i = 0; i < served_by_count; ++i) out[i] = me.served[i].load(std::memory_order_relaxed);
  out[served_by_count] = me.writebacks.load(std::memory_order_relaxed);
  out[served_by_count + 1] = me.invalidations.load(std::memory_order_relaxed);
  for (std::size_t node = 0; node < batch_.beyond_private_by_home.size(); ++node)
    out[served_by_count + 2 + node] = me.beyond_private_by_home[node].load(std::memory_order_relaxed);
}

void access_path::batch::clear() {
  counts = {};
  std::fill(dram_by_home.begin(), dram_by_home.end(), 0);
  std::fill(l3_by_node.begin(), l3_by_node.end(), 0);
  std::fill(writeback_by_home.begin(), writeback_by_home.end(), 0);
  std::fill(beyond_private_by_home.begin(), beyond_private_by_home.end(), 0);
}

void access_path::access_range(const issuer& me, std::uint64_t at, std::uint64_t bytes, access_kind kind,
                               batch& into) {
  const std::uint64_t end = at + bytes;
  if (end < at) fatal("touch(): the range wraps around the address space");
  const std::uint64_t page_bytes = pages_.page_bytes();
  while (at < end) {
    // Simulated pages are not contiguous: one memory-model access per page.
    const std::uint64_t piece = std::min(end, (at & ~(page_bytes - 1)) + page_bytes) - at;
    const access_counts counts = memory_.access(me.core, pages_.simulated_address(at, true), piece, kind);
    into.counts += counts;
    at += piece;
    if (counts.writebacks != 0) {
      const auto& written = memory_.last_writeback_blocks_by_node();
      for (std::size_t node = 0; node < written.size(); ++node) into.writeback_by_home[node] += written[node];
    }
    // Only what came from beyond the core's private caches has a home to
    // count, and only what came from beyond its own L3 a node to charge.
    const std::uint64_t beyond_l3 =
        counts[served_by::remote_l3] + counts[served_by::local_dram] + counts[served_by::remote_dram];
    if (beyond_l3 + counts[served_by::local_l3] == 0) continue;
    const auto& homes = memory_.last_beyond_private_by_home();
    for (std::size_t node = 0; node < homes.size(); ++node) into.beyond_private_by_home[node] += homes[node];
    if (beyond_l3 == 0) continue;
    const auto& dram = memory_.last_dram_blocks_by_node();
    const auto& l3 = memory_.last_remote_l3_blocks_by_node();
    for (std::size_t node = 0; node < dram.size(); ++node) {
      into.dram_by_home[node] += dram[node];
      into.l3_by_node[node] += l3[node];
    }
  }
}

// Memory-level parallelism. L1 hits cost their latency one after another.
// Every other block is a miss that holds one of the core's outstanding-miss
// slots (the L1's fill buffers) for its latency; with M slots, misses of
// total latency S issue in S / M cycles (Little's law), and the last one's
// data comes L (its latency) after it issued, L - L / M after the issue
// time ends: the tail. One miss alone costs its full latency, and so does
// each of a chain of one-line touches (pointer chasing). In a sequential
// run (one page of a touch), the misses after the first prefetch_trigger
// are the stream prefetcher's, prefetch_outstanding in flight instead of M.
// Bandwidth: the batch also occupies the controllers and links it used
// (sim/contention.hpp) from its issue time; it cannot end before they have
// passed it. Its write-backs occupy their home's controller and the links
// to it, posted.
void access_path::charge_batch(issuer& me, const batch& b, bool sequential, double& tail) {
  const access_counts& c = b.counts;
  const std::uint64_t l1_hits = c[served_by::l1];
  const std::uint64_t misses = c.accesses() - l1_hits;
  const double hit_cycles = static_cast<double>(l1_hits * machine_.latency.l1_hit);
  double issue = hit_cycles;
  if (misses == 0) {
    tail = std::max(0.0, tail - issue);
  } else {
    const double miss_cycles = static_cast<double>(c.total_cycles) - hit_cycles;
    const auto& distance = machine_.topo.numa_distance[static_cast<std::size_t>(me.node)];
    cycles slowest = 0;
    if (c[served_by::l2] != 0) slowest = machine_.latency.l2_hit;
    if (c[served_by::local_l3] != 0) slowest = std::max(slowest, machine_.latency.l3_hit);
    for (std::size_t node = 0; node < b.dram_by_home.size(); ++node) {
      if (b.l3_by_node[node] != 0) slowest = std::max(slowest, machine_.remote_l3_cycles(distance[node]));
      if (b.dram_by_home[node] != 0) slowest = std::max(slowest, machine_.dram_cycles(distance[node]));
    }
    const double slots = machine_.outstanding_misses;
    const double streams = machine_.prefetch_outstanding;
    const std::uint64_t demand =
        sequential && streams > 0 ? std::min<std::uint64_t>(misses, machine_.prefetch_trigger) : misses;
    const double demand_share = static_cast<double>(demand) / static_cast<double>(misses);
    issue += miss_cycles * demand_share / slots;
    if (demand < misses) issue += miss_cycles * (1 - demand_share) / streams;
    const double last_slots = demand < misses ? streams : slots;
    tail = static_cast<double>(slowest) * (1 - 1 / last_slots);
  }
  double done = static_cast<double>(me.clock) + issue;
  if (contention_.enabled()) {
    done = std::max(done, contention_.reserve_reads(me.node, static_cast<double>(me.clock), b.dram_by_home,
                                                    b.l3_by_node));
    // The dirty blocks this batch's fills evicted are posted from its issue
    // time: nobody waits for them, later requests queue behind them.
    if (c.writebacks != 0)
      contention_.reserve_writebacks(me.node, static_cast<double>(me.clock), b.writeback_by_home);
  }
  me.clock = static_cast<cycles>(std::llround(done));
  count_served(me, b);
}

void access_path::count_served(issuer& me, const batch& b) {
  auto add = [](std::atomic<std::uint64_t>& to, std::uint64_t n) {
    if (n != 0) to.store(to.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  };
  const access_counts& counts = b.counts;
  for (std::size_t i = 0; i < served_by_count; ++i) add(me.served[i], counts.served[i]);
  add(me.writebacks, counts.writebacks);
  add(me.invalidations, counts.invalidations);
  for (std::size_t node = 0; node < b.beyond_private_by_home.size(); ++node)
    add(me.beyond_private_by_home[node], b.beyond_private_by_home[node]);
}

// A touch is issued page by page, and the worker gives way between pages
// when another's clock is earlier: requests from all workers reach the
// controllers and links in virtual-time order (to a page's granularity).
void access_path::touch(issuer& me, std::uint64_t at, std::uint64_t bytes, access_kind kind,
                        between_batches between) {
  const std::uint64_t end = at + bytes;
  if (end < at) fatal("touch(): the range wraps around the address space");
  const std::uint64_t page_bytes = pages_.page_bytes();
  double tail = 0;
  while (at < end) {
    const std::uint64_t piece = std::min(end, (at & ~(page_bytes - 1)) + page_bytes) - at;
    batch_.clear();
    access_range(me, at, piece, kind, batch_);
    charge_batch(me, batch_, /*sequential=*/true, tail);
    at += piece;
    if (at < end) between();
  }
  me.clock += static_cast<cycles>(std::llround(tail));
}

namespace {
std::int64_t index_at(const void* indices, unsigned index_bytes, bool is_signed, std::size_t i) {
  const auto* p = static_cast<const unsigned char*>(indices) + i * index_bytes;
  switch (index_bytes) {
    case 1: return is_signed ? *reinterpret_cast<const std::int8_t*>(p) : *p;
    case 2: return is_signed ? *reinterpret_cast<const std::int16_t*>(p) : *reinterpret_cast<const std::uint16_t*>(p);
    case 4: return is_signed ? *reinterpret_cast<const std::int32_t*>(p) : *reinterpret_cast<const std::uint32_t*>(p);
    default: return *reinterpret_cast<const std::int64_t*>(p);
  }
}
}  // namespace

void access_path::touch_indexed(issuer& me, const void* base, const void* indices, unsigned index_bytes,
                                bool is_signed, std::size_t count, std::size_t elem_size, access_kind kind,
                                between_batches between) {
  const auto origin = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(base));
  // Elements are charged in groups of a page's worth of lines, so that the
  // worker gives way as often as a touch does.
  const std::size_t group = std::max<std::size_t>(1, memory_.page_bytes() / memory_.block_bytes());
  double tail = 0;
  for (std::size_t first = 0; first < count; first += group) {
    batch_.clear();
    const std::size_t last = std::min(count, first + group);
    for (std::size_t i = first; i < last; ++i) {
      const std::int64_t offset = index_at(indices, index_bytes, is_signed, i) * static_cast<std::int64_t>(elem_size);
      access_range(me, static_cast<std::uint64_t>(origin + offset), elem_size, kind, batch_);
    }
    charge_batch(me, batch_, /*sequential=*/false, tail);
    if (last < count) between();
  }
  me.clock += static_cast<cycles>(std::llround(tail));
}

void access_path::place_pages(const void* address, std::size_t bytes, int node) {
  std::uint64_t at = reinterpret_cast<std::uintptr_t>(address);
  const std::uint64_t end = at + bytes;
  const std::uint64_t page_bytes = pages_.page_bytes();
  // Interleaved: round robin over the nodes from the range's first page,
  // as mbind(MPOL_INTERLEAVE) does (not by simulated page number, which
  // is a page's color: page_map::colored_page).
  const int nodes = std::max(machine_.topo.num_numa_nodes, 1);
  int next_node = 0;
  for (at &= ~(page_bytes - 1); at < end; at += page_bytes) {
    const std::uint64_t sim_address = pages_.simulated_address(at, true);
    const int home = node < 0 ? next_node : std::min(node, nodes - 1);
    next_node = (next_node + 1) % nodes;
    memory_.bind(sim_address, page_bytes, home);
  }
}

int access_path::page_home(const void* address) {
  const std::uint64_t sim_address = pages_.simulated_address(reinterpret_cast<std::uintptr_t>(address), false);
  if (sim_address == 0) return -1;
  if (const auto found = memory_.home_of(sim_address)) return *found;
  return -1;
}

}  // namespace locus::detail::sim
