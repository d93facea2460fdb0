#include "sim/memory_model.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

namespace locus::detail::sim {

namespace {

// Levels the latency table has a figure for; higher ones (rare L4s) are
// left out of the model.
constexpr int deepest_modeled_level = 3;

// Blocks of at least 4 bytes keep every block number below
// lru_cache::max_block.
constexpr std::uint64_t minimum_block_bytes = 4;

bool is_modeled(const cache_info& cache) {
  return cache.level >= 1 && cache.level <= deepest_modeled_level && !cache.cores.empty();
}

// An L1 or L2 of one core is part of the core's private holder; every
// other modeled cache is a holder of its own.
bool is_private(const cache_info& cache) {
  return cache.level < deepest_modeled_level && cache.cores.size() == 1;
}

int count_holders(const topology& topo) {
  const auto is_own_holder = [](const cache_info& c) { return is_modeled(c) && !is_private(c); };
  const auto shared = std::count_if(topo.caches.begin(), topo.caches.end(), is_own_holder);
  return topo.num_cores() + static_cast<int>(shared);
}

[[noreturn]] void reject(const std::string& problem) {
  throw config_error("simulator memory model: " + problem);
}

std::uint64_t choose_block_bytes(const topology& topo, const memory_options& options) {
  int largest_line = 0;
  for (const auto& cache : topo.caches)
    if (is_modeled(cache)) largest_line = std::max(largest_line, cache.line_bytes);
  // A machine with no caches still needs a unit of access.
  constexpr std::uint64_t line_without_caches = 64;
  const std::uint64_t line =
      largest_line > 0 ? static_cast<std::uint64_t>(largest_line) : line_without_caches;
  const std::uint64_t block = options.block_bytes == 0 ? line : options.block_bytes;

  if (!std::has_single_bit(options.page_bytes))
    reject("page size " + std::to_string(options.page_bytes) + " bytes is not a power of two");
  if (!std::has_single_bit(block))
    reject("block size " + std::to_string(block) + " bytes is not a power of two");
  if (block < minimum_block_bytes)
    reject("block size " + std::to_string(block) + " bytes is below " +
           std::to_string(minimum_block_bytes) +
           " bytes, the smallest the model can use (a cache keeps a flag in a block number's "
           "top bits); choose a larger block");
  if (block < line)
    reject("block size " + std::to_string(block) + " bytes is smaller than the cache line (" +
           std::to_string(line) + " bytes)");
  if (block > options.page_bytes)
    reject("block size " + std::to_string(block) + " bytes is larger than a page (" +
           std::to_string(options.page_bytes) + " bytes)");
  return block;
}

served_by kind_of_level(int level) {
  switch (level) {
    case 1: return served_by::l1;
    case 2: return served_by::l2;
    default: return served_by::local_l3;
  }
}

}  // namespace

const char* to_string(served_by where) {
  switch (where) {
    case served_by::l1: return "l1";
    case served_by::l2: return "l2";
    case served_by::local_l3: return "local_l3";
    case served_by::remote_l3: return "remote_l3";
    case served_by::local_dram: return "local_dram";
    case served_by::remote_dram: return "remote_dram";
  }
  return "?";
}

std::uint64_t access_counts::accesses() const {
  std::uint64_t total = 0;
  for (const auto n : served) total += n;
  return total;
}

access_counts& access_counts::operator+=(const access_counts& other) {
  for (std::size_t i = 0; i < served_by_count; ++i) served[i] += other.served[i];
  total_cycles += other.total_cycles;
  writebacks += other.writebacks;
  invalidations += other.invalidations;
  return *this;
}

memory_model::memory_model(const machine_model& machine, const memory_options& options)
    : block_bytes_(choose_block_bytes(machine.topo, options)),
      block_shift_(std::countr_zero(block_bytes_)),
      page_bytes_(options.page_bytes),
      blocks_per_page_shift_(std::countr_zero(page_bytes_) - block_shift_),
      num_nodes_(machine.topo.num_numa_nodes),
      directory_(count_holders(machine.topo)),
      homes_(machine.topo.num_numa_nodes, options.policy),
      counters_(static_cast<std::size_t>(machine.topo.num_cores())),
      scratch_bits_(directory_.words()),
      dram_by_node_(static_cast<std::size_t>(std::max(machine.topo.num_numa_nodes, 1)), 0),
      writeback_by_node_(dram_by_node_.size(), 0),
      remote_l3_by_node_(dram_by_node_.size(), 0),
      beyond_private_by_home_(dram_by_node_.size(), 0) {
  const topology& topo = machine.topo;
  const auto num_cores = static_cast<std::size_t>(topo.num_cores());
  for (const auto& core : topo.cores) core_node_.push_back(core.numa_node);

  chains_.resize(num_cores);
  holder_caches_.resize(num_cores);
  l3_holder_bits_.assign(directory_.words(), 0);
  for (const auto& info : topo.caches) {
    if (!is_modeled(info)) continue;
    const std::uint64_t capacity = info.size_bytes / block_bytes_;
    if (capacity == 0)
      reject("the L" + std::to_string(info.level) + " cache of " +
             std::to_string(info.size_bytes) + " bytes holds no block of " +
             std::to_string(block_bytes_) + " bytes; choose a smaller block");
    const int index = static_cast<int>(caches_.size());
    const int holder =
        is_private(info) ? info.cores.front() : static_cast<int>(holder_caches_.size());
    if (!is_private(info)) holder_caches_.emplace_back();
    holder_caches_[static_cast<std::size_t>(holder)].push_back(index);
    caches_.push_back({lru_cache(capacity, info.associativity), kind_of_level(info.level),
                       core_node_.at(static_cast<std::size_t>(info.cores.front())), info.level,
                       info.cores, holder, !is_private(info)});
    for (const int core : info.cores) chains_.at(static_cast<std::size_t>(core)).push_back(index);
    if (info.level == deepest_modeled_level)
      l3_holder_bits_[static_cast<std::size_t>(holder) / 64] |= std::uint64_t{1} << (holder % 64);
  }

  holder_node_ = core_node_;  // the cores' private holders, then one per shared cache
  for (std::size_t holder = num_cores; holder < holder_caches_.size(); ++holder)
    holder_node_.push_back(caches_[static_cast<std::size_t>(holder_caches_[holder].front())].node);
  const std::size_t words = directory_.words();
  for (std::size_t core = 0; core < num_cores; ++core) {
    auto& chain = chains_[core];
    std::stable_sort(chain.begin(), chain.end(),
                     [&](int a, int b) { return caches_[a].level < caches_[b].level; });
    const auto in_private_holder = [&](int index) {
      return caches_[static_cast<std::size_t>(index)].holder == static_cast<int>(core);
    };
    std::size_t private_levels = 0;
    while (private_levels < chain.size() && in_private_holder(chain[private_levels]))
      ++private_levels;
    private_levels_.push_back(private_levels);

    chain_prefix_offset_.push_back(chain_prefix_bits_.size());
    std::vector<std::uint64_t> bits(words, 0);
    chain_prefix_bits_.insert(chain_prefix_bits_.end(), bits.begin(), bits.end());
    for (const int index : chain) {
      const int holder = caches_[static_cast<std::size_t>(index)].holder;
      bits[static_cast<std::size_t>(holder) / 64] |= std::uint64_t{1} << (holder % 64);
      chain_prefix_bits_.insert(chain_prefix_bits_.end(), bits.begin(), bits.end());
    }
  }

  hit_cycles_[static_cast<std::size_t>(served_by::l1)] = machine.latency.l1_hit;
  hit_cycles_[static_cast<std::size_t>(served_by::l2)] = machine.latency.l2_hit;
  hit_cycles_[static_cast<std::size_t>(served_by::local_l3)] = machine.latency.l3_hit;

  const auto nodes = static_cast<std::size_t>(num_nodes_);
  distance_.resize(nodes * nodes);
  remote_l3_cycles_.resize(nodes * nodes);
  dram_cycles_.resize(nodes * nodes);
  for (std::size_t from = 0; from < nodes; ++from)
    for (std::size_t to = 0; to < nodes; ++to) {
      const int distance = topo.numa_distance.at(from).at(to);
      distance_[from * nodes + to] = distance;
      remote_l3_cycles_[from * nodes + to] = machine.remote_l3_cycles(distance);
      dram_cycles_[from * nodes + to] = machine.dram_cycles(distance);
    }
}

access_counts memory_model::access(int core, std::uint64_t address, std::uint64_t bytes,
                                   access_kind kind) {
  if (core < 0 || static_cast<std::size_t>(core) >= chains_.size())
    throw std::out_of_range("simulator memory model: no core " + std::to_string(core));
  access_counts result;
  if (bytes == 0) return result;
  // The range's end must not wrap around; blocks of at least 4 bytes keep
  // every block number below lru_cache::max_block.
  if (bytes > std::numeric_limits<std::uint64_t>::max() - address)
    throw std::out_of_range("simulator memory model: access reaches the end of the address space");

  std::fill(dram_by_node_.begin(), dram_by_node_.end(), 0);
  std::fill(writeback_by_node_.begin(), writeback_by_node_.end(), 0);
  std::fill(remote_l3_by_node_.begin(), remote_l3_by_node_.end(), 0);
  std::fill(beyond_private_by_home_.begin(), beyond_private_by_home_.end(), 0);
  const std::uint64_t first = address >> block_shift_;
  const std::uint64_t last = (address + bytes - 1) >> block_shift_;
  for (std::uint64_t block = first;; ++block) {
    access_block(core, block, kind, result);
    if (block == last) break;
  }
  counters_[static_cast<std::size_t>(core)] += result;
  return result;
}

// One pass down the chain: each level that misses gets the block at once
// (touch_or_insert), which gives the same caches as looking up every level
// first and filling the inner ones after: an eviction asks only about other
// blocks than this one, and whether a cache holds them, not in which order;
// serve_miss() asks only about this block. A hit in the core's L1 reads
// nothing else unless it is a write.
//
// A shared cache's directory bit is exact, so once the private levels have
// missed, the block's directory entry (which the miss or the fill needs
// anyway) says whether the shared level holds it: with the bit clear the
// block goes in without a search. That is a sweep's common case (a 16-way
// L3 not searched per line), and it leaves the caches exactly as the
// search would. Private levels are searched: their bit may outlive their
// copies, and fetching the entry before an L2 hit would cost that hit more
// than the search saves.
//
// Inlined into access(), its one caller, which GCC does not do by itself
// (the function is large): a call per block was a tenth of a cache-resident
// block's time.
[[gnu::always_inline]] inline void memory_model::access_block(int core, std::uint64_t block,
                                                              access_kind kind, access_counts& counts) {
  // The chain and the caches in locals: the sets' stores are of the same
  // type as the vectors' sizes, so the compiler would reload those after
  // every store.
  const auto& chain_vector = chains_[static_cast<std::size_t>(core)];
  const int* const chain = chain_vector.data();
  const std::size_t levels = chain_vector.size();
  modeled_cache* const caches = caches_.data();
  std::uint64_t* holders = nullptr;  // the block's directory entry, once fetched
  std::size_t hit = 0;
  for (; hit < levels; ++hit) {
    std::uint64_t evicted = lru_cache::no_block;
    modeled_cache& level = caches[chain[hit]];
    if (level.exact_holder) {
      if (holders == nullptr) holders = directory_.entry(block);
      const auto holder = static_cast<std::size_t>(level.holder);
      if ((holders[holder / 64] >> (holder % 64) & 1) == 0) evicted = level.cache.insert(block);
      else if (level.cache.touch_or_insert(block, evicted)) break;
    } else if (level.cache.touch_or_insert(block, evicted)) {
      break;
    }
    if (evicted == lru_cache::no_block) continue;
    // A shared cache's holder loses the block; a clean block leaving a
    // core's private cache needs nothing more.
    if (level.exact_holder) directory_.remove(lru_cache::block_of(evicted), level.holder);
    if (lru_cache::is_dirty(evicted)) write_back(core, hit, evicted, counts);
  }

  // The block's directory entry, fetched once for every question below:
  // who else holds it (a miss), recording this chain's holders (a fill
  // beyond the private caches), whom to invalidate (a write).
  const bool fills_shared = hit > 0 && hit >= private_levels_[static_cast<std::size_t>(core)];
  if (holders == nullptr && (hit == levels || fills_shared || kind == access_kind::write))
    holders = directory_.entry(block);
  served_by where;
  cycles cost = 0;
  if (hit < levels) {
    where = caches[chain[hit]].kind;
    cost = hit_cycles_[static_cast<std::size_t>(where)];
  } else {
    where = serve_miss(core, block, holders, cost);
  }
  // Record the holders of the levels filled at once. A hit in one of the
  // core's private caches needs no record: the levels filled share its
  // holder, which has the block.
  if (fills_shared) {
    const std::uint64_t* const filled = chain_bits(core, hit);
    for (std::size_t word = 0; word < directory_.words(); ++word) holders[word] |= filled[word];
  }
  if (kind == access_kind::write) {
    if (levels > 0) caches[chain[0]].cache.mark_front_dirty(block);
    cost = std::max(cost, invalidate_outside_chain(core, block, holders, counts));
  }
  // Served beyond the private caches: counted by the page's home (which
  // every cached block's page has; home_for remembers the last page, which
  // serve_miss has just asked about).
  if (where >= served_by::local_l3)
    ++beyond_private_by_home_[static_cast<std::size_t>(home_for(block, core_node_[static_cast<std::size_t>(core)]))];
  ++counts.served[static_cast<std::size_t>(where)];
  counts.total_cycles += cost;
}

// Inlined into access_block, its one caller, for the same reason: half of
// a streaming sweep's victims are dirty.
[[gnu::always_inline]] inline void memory_model::write_back(int core, std::size_t level, std::uint64_t slot,
                                                            access_counts& counts) {
  const auto& chain = chains_[static_cast<std::size_t>(core)];
  const std::uint64_t block = lru_cache::block_of(slot);
  for (std::size_t outer = level + 1; outer < chain.size(); ++outer)
    if (caches_[static_cast<std::size_t>(chain[outer])].cache.mark_dirty(block)) return;
  const int home = home_for(block, core_node_[static_cast<std::size_t>(core)], writeback_page_);
  ++writeback_by_node_[static_cast<std::size_t>(home)];
  ++counts.writebacks;
}

int memory_model::home_for(std::uint64_t block, int node, page_memory& memory) {
  const std::uint64_t page = block >> blocks_per_page_shift_;
  if (page != memory.page) {
    memory.home = homes_.home_for_access(page, node);
    memory.page = page;
  }
  return memory.home;
}

const std::uint64_t* memory_model::chain_bits(int core, std::size_t levels) const {
  return chain_prefix_bits_.data() + chain_prefix_offset_[static_cast<std::size_t>(core)] +
         levels * directory_.words();
}

// The common miss, from DRAM, runs inline in access_block; the search for
// the nearest of several L3s holding the block does not.
inline served_by memory_model::serve_miss(int core, std::uint64_t block, const std::uint64_t* holders,
                                          cycles& cost) {
  const auto nodes = static_cast<std::size_t>(num_nodes_);
  const auto node = static_cast<std::size_t>(core_node_[static_cast<std::size_t>(core)]);

  // Every L3 holding the block is another core's: the core's own L3 missed.
  bool in_an_l3 = false;
  for (std::size_t word = 0; word < directory_.words(); ++word)
    in_an_l3 = in_an_l3 || (holders[word] & l3_holder_bits_[word]) != 0;
  if (in_an_l3) {
    const auto l3_node = static_cast<std::size_t>(caches_[nearest_l3(node, holders)].node);
    cost = remote_l3_cycles_[node * nodes + l3_node];
    ++remote_l3_by_node_[l3_node];
    return served_by::remote_l3;
  }

  const auto home = static_cast<std::size_t>(home_for(block, static_cast<int>(node)));
  cost = dram_cycles_[node * nodes + home];
  ++dram_by_node_[home];
  return home == node ? served_by::local_dram : served_by::remote_dram;
}

int memory_model::nearest_l3(std::size_t node, const std::uint64_t* holders) const {
  const auto nodes = static_cast<std::size_t>(num_nodes_);
  int nearest = -1;
  int nearest_distance = 0;
  for (std::size_t word = 0; word < directory_.words(); ++word) {
    const std::uint64_t l3_holders = holders[word] & l3_holder_bits_[word];
    for (std::uint64_t bits = l3_holders; bits != 0; bits &= bits - 1) {
      const auto holder = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const int index = holder_caches_[holder].front();  // an L3 holder is one cache
      const int distance = distance_[node * nodes + static_cast<std::size_t>(caches_[index].node)];
      if (nearest < 0 || distance < nearest_distance) {
        nearest = index;
        nearest_distance = distance;
      }
    }
  }
  return nearest;
}

// The test runs inline in access_block: nobody else holds what a core
// writes is the common case.
inline cycles memory_model::invalidate_outside_chain(int core, std::uint64_t block, std::uint64_t* holders,
                                                     access_counts& counts) {
  const std::size_t words = directory_.words();
  const std::uint64_t* chain = chain_bits(core, chains_[static_cast<std::size_t>(core)].size());
  bool any = false;
  for (std::size_t word = 0; word < words; ++word) {
    scratch_bits_[word] = holders[word] & ~chain[word];
    any = any || scratch_bits_[word] != 0;
  }
  return any ? invalidate_others(core, block, holders, counts) : 0;
}

cycles memory_model::invalidate_others(int core, std::uint64_t block, std::uint64_t* holders,
                                       access_counts& counts) {
  const std::size_t words = directory_.words();
  const auto nodes = static_cast<std::size_t>(num_nodes_);
  const auto node = static_cast<std::size_t>(core_node_[static_cast<std::size_t>(core)]);
  cycles farthest = 0;
  for (std::size_t word = 0; word < words; ++word) {
    for (std::uint64_t bits = scratch_bits_[word]; bits != 0; bits &= bits - 1) {
      const int holder = static_cast<int>(word * 64) + std::countr_zero(bits);
      bool had_copy = false;
      for (const int index : holder_caches_[static_cast<std::size_t>(holder)])
        had_copy = caches_[static_cast<std::size_t>(index)].cache.invalidate(block) || had_copy;
      holders[static_cast<std::size_t>(holder) / 64] &= ~(std::uint64_t{1} << (holder % 64));
      if (!had_copy) continue;  // a private bit that outlived its copies
      ++counts.invalidations;
      const auto holder_node = static_cast<std::size_t>(holder_node_[static_cast<std::size_t>(holder)]);
      farthest = std::max(farthest, remote_l3_cycles_[node * nodes + holder_node]);
    }
  }
  return farthest;
}

bool memory_model::page_range(std::uint64_t address, std::uint64_t bytes, std::uint64_t& first,
                              std::uint64_t& last) const {
  if (bytes == 0) return false;
  if (bytes > std::numeric_limits<std::uint64_t>::max() - address)
    throw std::out_of_range("simulator memory model: range reaches the end of the address space");
  first = address / page_bytes_;
  last = (address + bytes - 1) / page_bytes_;
  return true;
}

void memory_model::check_node(int node) const {
  if (node < 0 || node >= num_nodes_)
    throw std::out_of_range("simulator memory model: no NUMA node " + std::to_string(node) +
                            " (the machine has " + std::to_string(num_nodes_) + ")");
}

void memory_model::bind(std::uint64_t address, std::uint64_t bytes, int node) {
  check_node(node);
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (page_range(address, bytes, first, last)) homes_.bind(first, last, node);
  access_page_.page = writeback_page_.page = no_page;
}

void memory_model::interleave(std::uint64_t address, std::uint64_t bytes) {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  if (page_range(address, bytes, first, last)) homes_.interleave(first, last);
  access_page_.page = writeback_page_.page = no_page;
}

std::optional<int> memory_model::home_of(std::uint64_t address) const {
  return homes_.home_of(address / page_bytes_);
}

const access_counts& memory_model::counters(int core) const {
  return counters_.at(static_cast<std::size_t>(core));
}

void memory_model::reset_counters() {
  std::fill(counters_.begin(), counters_.end(), access_counts{});
}

std::vector<cache_geometry> memory_model::geometry() const {
  std::vector<cache_geometry> out;
  for (const auto& c : caches_) out.push_back({c.level, c.cores, c.cache.sets(), c.cache.ways()});
  return out;
}

}  // namespace locus::detail::sim
