// One cache of the modeled machine: set-associative, least recently used
// replacement, holding block numbers (address / block size), each clean or
// dirty. It knows nothing of levels, cores or coherence; the memory model
// does.
//
// Move-to-front sets: the order of a set's slots is its LRU order, so a hit
// near the front (the common case) is found after a few comparisons and
// the victim is always the last slot. A slot is the block number with the
// top bit set while the block is dirty, so the flag moves with the block
// at no cost. The lookups are defined here, inline: the memory model makes
// several per simulated line.
#pragma once

#include <cstdint>
#include <vector>

namespace locus::detail::sim {

class lru_cache {
 public:
  // A slot holding no block. Block numbers stay below max_block, so no
  // block, clean or dirty, reads as this.
  static constexpr std::uint64_t no_block = ~std::uint64_t{0};
  static constexpr std::uint64_t dirty_bit = std::uint64_t{1} << 63;
  // Every block number given to a cache must be below this (the memory
  // model's blocks are at least 4 bytes, so their numbers are).
  static constexpr std::uint64_t max_block = std::uint64_t{1} << 62;

  // What a slot holds, without its dirty flag, and whether it is dirty.
  static std::uint64_t block_of(std::uint64_t slot) { return slot & ~dirty_bit; }
  static bool is_dirty(std::uint64_t slot) { return slot != no_block && (slot & dirty_bit) != 0; }

  // `capacity_blocks` blocks in sets of `ways`; ways 0, or more ways than
  // blocks, makes it fully associative (one set). Sets are
  // capacity / ways, rounded down. Requires capacity_blocks >= 1.
  lru_cache(std::uint64_t capacity_blocks, int ways);

  std::uint64_t sets() const { return sets_; }
  int ways() const { return ways_; }

  // A hit makes the block the most recently used of its set.
  bool touch(std::uint64_t block);
  bool contains(std::uint64_t block) const {
    const std::uint64_t* const set = slots_.data() + set_start(block);
    for (int way = 0; way < ways_; ++way)
      if (holds(set[way], block)) return true;
    return false;
  }
  // Inserts an absent block, clean, as the most recently used of its set
  // and returns the block it evicted (the least recently used), or
  // no_block. The evicted block is a slot: block_of() and is_dirty() read it.
  std::uint64_t insert(std::uint64_t block) {
    std::uint64_t* const set = slots_.data() + set_start(block);
    return by_ways([&](int ways) { return shift_in(set, ways, block); });
  }
  // touch(), and on a miss insert(), in one pass over the set: each slot
  // takes the one before it (the first takes `block`) until the block is
  // found, which is touch()'s rotation on a hit and insert()'s shift on a
  // miss. Returns whether it hit; after a miss `evicted` is the slot
  // insert() would have returned. (Searching first and moving with one
  // memmove costs more: a hit is usually near the front, and the call
  // outweighs the shift of an 8-way set.)
  bool touch_or_insert(std::uint64_t block, std::uint64_t& evicted) {
    std::uint64_t* const set = slots_.data() + set_start(block);
    return by_ways([&](int ways) { return rotate_in(set, ways, block, evicted); });
  }
  // Marks the block dirty, where it is, without changing the LRU order;
  // returns whether the cache holds it.
  bool mark_dirty(std::uint64_t block) {
    std::uint64_t* const set = slots_.data() + set_start(block);
    return by_ways([&](int ways) { return mark_dirty_in(set, ways, block); });
  }
  // mark_dirty() for the block just touched or inserted: the front of its set.
  void mark_front_dirty(std::uint64_t block) { slots_[set_start(block)] |= dirty_bit; }
  // Removes the block if present, dirty or not; returns whether it was.
  bool invalidate(std::uint64_t block) {
    std::uint64_t* const set = slots_.data() + set_start(block);
    return by_ways([&](int ways) { return remove_in(set, ways, block); });
  }

 private:
  // Whether a slot holds the block, clean or dirty: equal but for the
  // dirty bit (no_block differs from every block below max_block).
  static bool holds(std::uint64_t slot, std::uint64_t block) { return ((slot ^ block) << 1) == 0; }

  // The walks over a set, for a set of `ways` slots. Each loop is unrolled:
  // with the usual associativities a constant (by_ways), it becomes
  // straight code of a load, a store and a compare a slot, about half the
  // instructions of the loop (the walks were a third of a line's
  // instructions).
  static std::uint64_t shift_in(std::uint64_t* set, int ways, std::uint64_t block) {
    std::uint64_t carry = block;
#pragma GCC unroll 16
    for (int way = 0; way < ways; ++way) {
      const std::uint64_t held = set[way];
      set[way] = carry;
      carry = held;
    }
    return carry;
  }
  static bool rotate_in(std::uint64_t* set, int ways, std::uint64_t block, std::uint64_t& evicted) {
    std::uint64_t carry = block;
#pragma GCC unroll 16
    for (int way = 0; way < ways; ++way) {
      const std::uint64_t held = set[way];
      set[way] = carry;
      if (holds(held, block)) {
        set[0] = held;  // a hit keeps its dirty flag
        return true;
      }
      carry = held;
    }
    evicted = carry;
    return false;
  }
  // The slots after the block's move up one, and the last is emptied:
  // from the last back to the block's, each takes the one after it.
  static bool remove_in(std::uint64_t* set, int ways, std::uint64_t block) {
    bool held = false;
#pragma GCC unroll 16
    for (int way = 0; way < ways; ++way) held = held || holds(set[way], block);
    if (!held) return false;
    std::uint64_t carry = no_block;
#pragma GCC unroll 16
    for (int way = ways - 1; way >= 0; --way) {
      const std::uint64_t moved = set[way];
      set[way] = carry;
      if (holds(moved, block)) break;
      carry = moved;
    }
    return true;
  }
  static bool mark_dirty_in(std::uint64_t* set, int ways, std::uint64_t block) {
#pragma GCC unroll 16
    for (int way = 0; way < ways; ++way)
      if (holds(set[way], block)) {
        set[way] |= dirty_bit;
        return true;
      }
    return false;
  }
  // Calls walk(ways_), with a literal for 8 and 16 ways (the presets' L1s,
  // L2s and most L3s), so that the walk inlined there is compiled for that
  // length.
  template <class Walk>
  auto by_ways(Walk walk) const -> decltype(walk(0)) {
    switch (ways_) {
      case 8: return walk(8);
      case 16: return walk(16);
      default: return walk(ways_);
    }
  }

  // Index in slots_ of the first slot of the block's set.
  std::uint64_t set_start(std::uint64_t block) const {
    const std::uint64_t set = sets_are_power_of_two_ ? block & (sets_ - 1) : block % sets_;
    return set * static_cast<std::uint64_t>(ways_);
  }

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
