// Which holders have each block: the memory model's coherence directory. A
// write asks it whom to invalidate and a miss asks it which other L3 holds
// the line, so neither has to search every cache of the machine. A holder
// is a number below the count given at construction; the memory model uses
// one per core (its private caches) and one per shared cache.
//
// A two-level table indexed by block number: chunks of 4096 blocks, each a
// flat array of holder bit sets, found through a map from chunk number
// (with the last chunk remembered). The simulator numbers pages densely in
// first-touch order, so the blocks of a program fill whole chunks, and a
// program sweeping memory walks each chunk in order: a lookup is an index,
// not a hash probe into a table far larger than the host's caches (which
// is what dominated the simulator's time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace locus::detail::sim {

class block_directory {
 public:
  explicit block_directory(int num_holders);

  // Words in a holder bit set: holder i is bit i % 64 of word i / 64.
  std::size_t words() const { return words_; }

  // The holder bits of `block`, or nullptr when no holder has it. Valid
  // until the next add or remove.
  const std::uint64_t* holders(std::uint64_t block) const;

  // Adds the holders whose bits are set in `holders` (words() words).
  void add(std::uint64_t block, const std::uint64_t* holders);
  // Drops the holder; the block counts as held no more once none is left.
  void remove(std::uint64_t block, int holder);

  // Number of blocks at least one holder has.
  std::size_t size() const { return count_; }

 private:
  static constexpr int chunk_log2 = 12;
  static constexpr std::uint64_t chunk_blocks = std::uint64_t{1} << chunk_log2;

  // The bits of `block`, or nullptr when its chunk does not exist (and
  // `create` is false).
  std::uint64_t* bits(std::uint64_t block, bool create) const;

  // Chunks below this number are found by index (the simulator's dense
  // addresses), the rest through the map (any address, as in tests).
  static constexpr std::uint64_t indexed_chunks = std::uint64_t{1} << 20;

  std::size_t words_;
  mutable std::vector<std::unique_ptr<std::uint64_t[]>> indexed_;
  mutable std::unordered_map<std::uint64_t, std::unique_ptr<std::uint64_t[]>> chunks_;
  mutable std::uint64_t last_chunk_ = ~std::uint64_t{0};
  mutable std::uint64_t* last_bits_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace locus::detail::sim
