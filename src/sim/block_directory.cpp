#include "sim/block_directory.hpp"

#include <algorithm>

namespace locus::detail::sim {

block_directory::block_directory(int num_holders)
    : words_(static_cast<std::size_t>(std::max(num_holders, 1) + 63) / 64) {}

std::uint64_t* block_directory::bits(std::uint64_t block, bool create) const {
  const std::uint64_t chunk = block >> chunk_log2;
  if (chunk != last_chunk_) {
    std::unique_ptr<std::uint64_t[]>* slot = nullptr;
    if (chunk < indexed_chunks) {
      if (chunk >= indexed_.size()) {
        if (!create) return nullptr;
        indexed_.resize(chunk + 1);
      }
      slot = &indexed_[chunk];
    } else if (auto it = chunks_.find(chunk); it != chunks_.end()) {
      slot = &it->second;
    } else if (create) {
      slot = &chunks_[chunk];
    } else {
      return nullptr;
    }
    if (*slot == nullptr) {
      if (!create) return nullptr;
      *slot = std::make_unique<std::uint64_t[]>(chunk_blocks * words_);  // zeroed
    }
    last_chunk_ = chunk;
    last_bits_ = slot->get();
  }
  return last_bits_ + (block & (chunk_blocks - 1)) * words_;
}

const std::uint64_t* block_directory::holders(std::uint64_t block) const {
  const std::uint64_t* const b = bits(block, false);
  if (b == nullptr || std::all_of(b, b + words_, [](std::uint64_t w) { return w == 0; })) return nullptr;
  return b;
}

void block_directory::add(std::uint64_t block, const std::uint64_t* holders) {
  std::uint64_t* const b = bits(block, true);
  bool was_held = false, is_held = false;
  for (std::size_t w = 0; w < words_; ++w) {
    was_held = was_held || b[w] != 0;
    b[w] |= holders[w];
    is_held = is_held || b[w] != 0;
  }
  count_ += static_cast<std::size_t>(is_held && !was_held);
}

void block_directory::remove(std::uint64_t block, int holder) {
  std::uint64_t* const b = bits(block, false);
  if (b == nullptr) return;
  std::uint64_t& word = b[static_cast<std::size_t>(holder) / 64];
  const std::uint64_t bit = std::uint64_t{1} << (holder % 64);
  if ((word & bit) == 0) return;
  word &= ~bit;
  if (std::all_of(b, b + words_, [](std::uint64_t w) { return w == 0; })) --count_;
}

}  // namespace locus::detail::sim
