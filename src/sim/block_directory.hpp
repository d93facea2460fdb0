// Which holders have each block: the memory model's coherence directory. A
// write asks it whom to invalidate and a miss asks it which other L3 holds
// the line, so neither has to search every cache of the machine. A holder
// is a number below the count given at construction; the memory model uses
// one per core (its private caches) and one per shared cache.
//
// An open-addressing hash table (linear probing, deletion by backward
// shift, so no tombstones) from block number to a bit set over holders.
// Only blocks some holder has get an entry. A slot is the key followed by
// its bits, so a lookup touches one place in memory: on a big machine the
// table is tens of megabytes and each probe is a likely cache miss.
#pragma once

#include <cstddef>
#include <cstdint>
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
  // Drops the entry once no holder has the block.
  void remove(std::uint64_t block, int holder);

  // Number of blocks at least one holder has.
  std::size_t size() const { return count_; }

 private:
  static constexpr std::uint64_t empty = ~std::uint64_t{0};

  std::size_t capacity() const { return slots_.size() / stride_; }
  std::uint64_t* slot(std::size_t index) { return slots_.data() + index * stride_; }
  const std::uint64_t* slot(std::size_t index) const { return slots_.data() + index * stride_; }
  std::size_t home_index(std::uint64_t block) const;
  // The index of the slot holding `block`, or of the empty slot where it
  // would go.
  std::size_t find_index(std::uint64_t block) const;
  void erase_index(std::size_t index);
  void grow();

  std::size_t words_;
  std::size_t stride_;  // 1 + words_: the key, then the bits
  int capacity_log2_;
  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
};

}  // namespace locus::detail::sim
