// One cache of the modeled machine: set-associative, least recently used
// replacement, holding block numbers (address / block size). It knows
// nothing of levels, cores or coherence; the memory model does.
#pragma once

#include <cstdint>
#include <vector>

namespace locus::detail::sim {

class lru_cache {
 public:
  // A slot holding no block. The memory model never forms this block
  // number: no access may reach the last byte of the address space.
  static constexpr std::uint64_t no_block = ~std::uint64_t{0};

  // `capacity_blocks` blocks in sets of `ways`; ways 0, or more ways than
  // blocks, makes it fully associative (one set). Sets are
  // capacity / ways, rounded down. Requires capacity_blocks >= 1.
  lru_cache(std::uint64_t capacity_blocks, int ways);

  std::uint64_t sets() const { return sets_; }
  int ways() const { return ways_; }

  // A hit makes the block the most recently used of its set.
  bool touch(std::uint64_t block);
  bool contains(std::uint64_t block) const;
  // Inserts an absent block as the most recently used of its set and
  // returns the block it evicted (the least recently used), or no_block.
  std::uint64_t insert(std::uint64_t block);
  // Removes the block if present; returns whether it was.
  bool invalidate(std::uint64_t block);

 private:
  // Index in slots_ of the first slot of the block's set.
  std::uint64_t set_start(std::uint64_t block) const;

  std::uint64_t sets_;
  int ways_;
  // With a power-of-two number of sets, a mask replaces the division on
  // every lookup (set counts like Cascade Lake's 57344 need the division).
  bool sets_are_power_of_two_;
  // Each set is `ways_` slots, most recently used first; empty slots
  // (no_block) gather at the end.
  std::vector<std::uint64_t> slots_;
};

}  // namespace locus::detail::sim
