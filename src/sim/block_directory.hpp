// Which holders have each block: the memory model's coherence directory. A
// write asks it whom to invalidate and a miss asks it which other L3 holds
// the line, so neither has to search every cache of the machine. A holder
// is a number below the count given at construction; the memory model uses
// one per core (its private caches) and one per shared cache. What a bit
// means is the memory model's to say (it lets a core's bit outlive the
// core's copies); the directory only keeps the bits.
//
// A two-level table indexed by block number: chunks of 4096 blocks, each a
// flat array of holder bit sets, found by index for the low chunk numbers
// and through a map above them. The simulator numbers pages densely in
// first-touch order, so the blocks of a program fill whole chunks, and a
// program sweeping memory walks each chunk in order: a lookup is two
// indexed loads, not a hash probe into a table far larger than the host's
// caches (which is what dominated the simulator's time). The lookups are
// inline; creating a chunk and the map are not.
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

  // The holder bits of `block`, or nullptr when no holder has it.
  const std::uint64_t* holders(std::uint64_t block) const {
    const std::uint64_t* const b = find(block);
    if (b == nullptr) return nullptr;
    for (std::size_t w = 0; w < words_; ++w)
      if (b[w] != 0) return b;
    return nullptr;
  }

  // The holder bits of `block`, all zero while no holder has it: read and
  // updated in place by a caller that has several questions about one
  // block. Chunks never move, so the pointer stays valid.
  std::uint64_t* entry(std::uint64_t block) {
    std::uint64_t* const b = find(block);
    return b != nullptr ? b : create(block);
  }

  // Adds the holders whose bits are set in `holders` (words() words).
  void add(std::uint64_t block, const std::uint64_t* holders) {
    std::uint64_t* const b = entry(block);
    for (std::size_t w = 0; w < words_; ++w) b[w] |= holders[w];
  }

  // Drops the holder.
  void remove(std::uint64_t block, int holder) {
    std::uint64_t* const b = find(block);
    if (b != nullptr) b[static_cast<std::size_t>(holder) / 64] &= ~(std::uint64_t{1} << (holder % 64));
  }

  // Number of blocks at least one holder has: a walk over every chunk,
  // for tests and reports.
  std::size_t size() const;

 private:
  static constexpr int chunk_log2 = 12;
  static constexpr std::uint64_t chunk_blocks = std::uint64_t{1} << chunk_log2;

  // The bits of `block`, or nullptr when its chunk does not exist.
  std::uint64_t* find(std::uint64_t block) const {
    const std::uint64_t chunk = block >> chunk_log2;
    std::uint64_t* const base = chunk < indexed_.size() ? indexed_[chunk].get() : find_far(chunk);
    return base == nullptr ? nullptr : base + (block & (chunk_blocks - 1)) * words_;
  }
  // The chunk of a number too high to index, or nullptr.
  std::uint64_t* find_far(std::uint64_t chunk) const;
  // The bits of `block`, creating its chunk.
  std::uint64_t* create(std::uint64_t block);

  // Chunks below this number are found by index (the simulator's dense
  // addresses), the rest through the map (any address, as in tests).
  static constexpr std::uint64_t indexed_chunks = std::uint64_t{1} << 20;

  std::size_t words_;
  std::vector<std::unique_ptr<std::uint64_t[]>> indexed_;
  std::unordered_map<std::uint64_t, std::unique_ptr<std::uint64_t[]>> chunks_;
};

}  // namespace locus::detail::sim
