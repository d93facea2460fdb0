// The simulator's memory model: the caches of a machine model's topology
// (set-associative LRU, private or shared as the topology says), the homes
// of pages, and what each access costs by where it is served. Deterministic
// and single-threaded: the same accesses in the same order give the same
// counts and cycles.
//
// The rules (see also src/sim/README.md):
// - Granularity: blocks of `block_bytes` (the cache line unless a coarser
//   block is chosen); an access touching n blocks is n block accesses.
// - Each core looks up its chain of caches, innermost first (L1, L2, the
//   L3 it shares). A hit is served at that level; the levels inside it are
//   filled. Caches of level 4 and above are not modeled.
// - A miss in the whole chain is served by another L3 instance holding the
//   block (a remote L3 hit; the nearest by NUMA distance, ties to the lowest
//   cache index), else by DRAM at the page's home node. Every level of the
//   chain is filled. Only L3s are searched: a block left only in another
//   core's L1 or L2 comes from DRAM.
// - Non-inclusive: an eviction from one level leaves the others alone, and
//   a hit at an outer level does not refresh the inner ones.
// - Coherence by write-invalidate: after a write, the block is in no cache
//   outside the writer's chain (other cores' private caches, other L3s).
//   The write waits for the farthest copy it removes: it costs at least a
//   line at that holder's distance (the remote rule for L3 hits; the own
//   L3's figure on the writer's node), its "upgrade". Each holder whose
//   copies it removed counts one invalidation. A dirty copy removed so is
//   not written back: its data goes to the writer, whose copy is dirty.
// - Dirty lines, write-back caches: a write leaves the block dirty in the
//   innermost cache of the writer's chain (its L1). A dirty block evicted
//   from a level is written into the next outer level of the same chain if
//   that level holds the block (it becomes dirty there, its LRU place
//   unchanged), else to DRAM at its page's home: a write-back, counted per
//   home node (last_writeback_blocks_by_node). An L3, the last level,
//   always writes back. A write-back costs the evicting core nothing: write
//   buffers take it off the critical path; what it costs is bandwidth at
//   the home's controller, which the engine's bandwidth model charges.
//   Reads leave other caches' dirty copies dirty (like MOESI's owned state,
//   the owner writes the block back when it evicts it).
// - Costs: L1, L2 and own-L3 hits cost the latency table's figures; remote
//   L3 hits and DRAM accesses cost the machine model's remote rule at the
//   NUMA distance between the core's node and the node of the L3 or page.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/block_directory.hpp"
#include "sim/lru_cache.hpp"
#include "sim/machine_model.hpp"
#include "sim/page_homes.hpp"

namespace locus::detail::sim {

enum class access_kind : std::uint8_t { read, write };

// Where a block access was served.
enum class served_by : std::uint8_t { l1, l2, local_l3, remote_l3, local_dram, remote_dram };
inline constexpr std::size_t served_by_count = 6;

const char* to_string(served_by where);

// Block accesses by where they were served, and the cycles they cost;
// beside them, the coherence traffic they caused (not accesses themselves).
struct access_counts {
  std::array<std::uint64_t, served_by_count> served{};
  cycles total_cycles = 0;
  // Dirty blocks evicted to DRAM, by any level of the core's chain.
  std::uint64_t writebacks = 0;
  // Holders (a core's private caches, a shared cache) whose copies the
  // core's writes removed.
  std::uint64_t invalidations = 0;

  std::uint64_t operator[](served_by where) const {
    return served[static_cast<std::size_t>(where)];
  }
  std::uint64_t accesses() const;
  access_counts& operator+=(const access_counts& other);
  bool operator==(const access_counts&) const = default;
};

struct memory_options {
  // 0: the topology's cache line (the largest, if levels differ; 64 with no
  // caches). Otherwise a power of two, at least the line, at most a page,
  // and at least 4 bytes (a cache keeps a flag in the top bits of a block
  // number).
  std::uint64_t block_bytes = 0;
  std::uint64_t page_bytes = 4096;  // a power of two
  page_policy policy = page_policy::first_touch;
};

// What the model made of one cache of the topology, for reports.
struct cache_geometry {
  int level = 0;
  std::vector<int> cores;
  std::uint64_t sets = 0;
  int ways = 0;
};

class memory_model {
 public:
  // Throws config_error for a block or page size it cannot use.
  explicit memory_model(const machine_model& machine, const memory_options& options = {});

  // `core` reads or writes bytes [address, address + bytes). Returns this
  // access's counts and cycles and adds them to the core's counters.
  // Throws std::out_of_range for a bad core or a range reaching the last
  // byte of the address space.
  access_counts access(int core, std::uint64_t address, std::uint64_t bytes, access_kind kind);

  // Homes the pages overlapping [address, address + bytes) on `node`, or
  // interleaved over all nodes by page number; pages that had a home move.
  // The engine's simulated page numbers are colors, not consecutive for a
  // real range (sim::page_map::colored_page), so it interleaves a program's
  // range itself, binding page by page round robin.
  void bind(std::uint64_t address, std::uint64_t bytes, int node);
  void interleave(std::uint64_t address, std::uint64_t bytes);
  // The page's home, or nullopt while it has none (never accessed, bound or
  // interleaved).
  std::optional<int> home_of(std::uint64_t address) const;

  // Blocks the last access() served from DRAM, by home node: what a
  // bandwidth model charges to each memory controller.
  const std::vector<std::uint64_t>& last_dram_blocks_by_node() const { return dram_by_node_; }
  // Dirty blocks the last access() wrote back to DRAM, by home node: the
  // controllers' write traffic.
  const std::vector<std::uint64_t>& last_writeback_blocks_by_node() const { return writeback_by_node_; }
  // Blocks the last access() got from another L3, by that L3's node: what
  // crosses the interconnect from it.
  const std::vector<std::uint64_t>& last_remote_l3_blocks_by_node() const { return remote_l3_by_node_; }
  // Blocks the last access() had served beyond the core's private caches
  // (its own L3, another L3, DRAM), by the home node of their page: where
  // the data a core uses lives (the place-by-place access matrix).
  const std::vector<std::uint64_t>& last_beyond_private_by_home() const { return beyond_private_by_home_; }

  // Cumulative since construction or the last reset.
  const access_counts& counters(int core) const;
  void reset_counters();

  std::uint64_t block_bytes() const { return block_bytes_; }
  std::uint64_t page_bytes() const { return page_bytes_; }
  page_policy policy() const { return homes_.policy(); }
  std::vector<cache_geometry> geometry() const;

 private:
  struct modeled_cache {
    lru_cache cache;
    served_by kind;  // l1, l2 or local_l3: what a hit in it counts as
    int node;        // NUMA node of its first core
    int level;
    std::vector<int> cores;
    // Its holder in the directory: the core's number for an L1 or L2
    // private to one core (a core's private caches share one holder, so
    // moving a block between them needs no directory update); a number
    // after the cores' for an L3 or a shared L1/L2.
    int holder;
    // A shared cache's directory bit is exact: cleared when it evicts the
    // block (remote L3 hits are chosen by it). A core's private bit may
    // outlive its copies: evicting from L1 or L2 leaves it, which spares
    // every private eviction a directory update and a look into the other
    // private cache; the next write elsewhere finds no copy and clears it.
    bool exact_holder;
  };

  // One block access: adds it, its cost and its coherence traffic to `counts`.
  void access_block(int core, std::uint64_t block, access_kind kind, access_counts& counts);
  // A miss in the whole chain: the nearest other L3 among `holders` (the
  // block's directory entry), else DRAM at the page's home.
  served_by serve_miss(int core, std::uint64_t block, const std::uint64_t* holders, cycles& cost);
  // The cache index of the L3 among `holders` nearest to `node`, ties to
  // the lowest holder number (an L3's cache order); one must hold the block.
  int nearest_l3(std::size_t node, const std::uint64_t* holders) const;
  // Level `level` of the core's chain evicted `slot`, a dirty block: it
  // goes to the next outer level holding it, else back to DRAM.
  void write_back(int core, std::size_t level, std::uint64_t slot, access_counts& counts);
  // The home of the block's page, giving it one (first touch from `node`)
  // if it has none; the last page's home is remembered, as a run of blocks
  // asks about one page many times. bind() and interleave() forget it.
  int home_for(std::uint64_t block, int node) { return home_for(block, node, access_page_); }
  // The same with a memory of its own: written-back blocks are evicted in
  // the order they were filled, another run of pages than the accesses',
  // and one memory for both would forget each run's page at every
  // write-back.
  struct page_memory {
    std::uint64_t page;
    int home;
  };
  int home_for(std::uint64_t block, int node, page_memory& memory);
  // Directory bits of the holders of the first `levels` caches of the
  // core's chain; levels = the chain's length gives the whole chain.
  const std::uint64_t* chain_bits(int core, std::size_t levels) const;
  // Removes the block from every holder outside the core's chain (from
  // `holders`, its directory entry, and their caches); counts
  // those that had a copy and returns the cycles of a line at the farthest
  // one's distance (0 when there was none).
  cycles invalidate_outside_chain(int core, std::uint64_t block, std::uint64_t* holders,
                                  access_counts& counts);
  // Its work once some holder outside the chain has the block: the holders
  // to remove are in scratch_bits_.
  cycles invalidate_others(int core, std::uint64_t block, std::uint64_t* holders,
                           access_counts& counts);
  // Pages [first, last] overlapped by [address, address + bytes); false
  // for bytes == 0.
  bool page_range(std::uint64_t address, std::uint64_t bytes, std::uint64_t& first,
                  std::uint64_t& last) const;
  void check_node(int node) const;

  std::uint64_t block_bytes_;
  int block_shift_;
  std::uint64_t page_bytes_;
  int blocks_per_page_shift_;
  int num_nodes_;

  std::vector<modeled_cache> caches_;
  std::vector<std::vector<int>> holder_caches_;  // per holder: its caches
  std::vector<std::vector<int>> chains_;         // per core: cache indices, innermost first
  // Per core: how many caches at the start of its chain are its private
  // holder's. A hit inside them needs no directory update.
  std::vector<std::size_t> private_levels_;
  std::vector<int> core_node_;
  std::vector<int> holder_node_;                 // per holder: its NUMA node
  // Per core, chain length + 1 bit sets (directory words each): the holder
  // bits of its first 0, 1, ... caches, starting at its offset.
  std::vector<std::uint64_t> chain_prefix_bits_;
  std::vector<std::size_t> chain_prefix_offset_;
  std::vector<std::uint64_t> l3_holder_bits_;    // directory bits of every L3
  std::array<cycles, served_by_count> hit_cycles_{};  // l1, l2, local_l3
  std::vector<int> distance_;                    // [from * nodes + to]
  std::vector<cycles> remote_l3_cycles_;         // [from * nodes + holder node]
  std::vector<cycles> dram_cycles_;              // [from * nodes + home node]

  block_directory directory_;
  page_homes homes_;
  std::vector<access_counts> counters_;
  std::vector<std::uint64_t> scratch_bits_;      // invalidate_outside_chain's holders to remove
  std::vector<std::uint64_t> dram_by_node_;      // of the last access()
  std::vector<std::uint64_t> writeback_by_node_; // of the last access()
  std::vector<std::uint64_t> remote_l3_by_node_; // of the last access()
  std::vector<std::uint64_t> beyond_private_by_home_; // of the last access()
  static constexpr std::uint64_t no_page = ~std::uint64_t{0};
  page_memory access_page_{no_page, 0};           // home_for()'s memories
  page_memory writeback_page_{no_page, 0};
};

}  // namespace locus::detail::sim
