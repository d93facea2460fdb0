#include "sim/block_directory.hpp"

#include <algorithm>

namespace locus::detail::sim {

block_directory::block_directory(int num_holders)
    : words_(static_cast<std::size_t>(std::max(num_holders, 1) + 63) / 64) {}

std::uint64_t* block_directory::find_far(std::uint64_t chunk) const {
  if (chunk < indexed_chunks) return nullptr;  // an indexed chunk not created yet
  const auto it = chunks_.find(chunk);
  return it == chunks_.end() ? nullptr : it->second.get();
}

std::uint64_t* block_directory::create(std::uint64_t block) {
  const std::uint64_t chunk = block >> chunk_log2;
  std::unique_ptr<std::uint64_t[]>* slot = nullptr;
  if (chunk < indexed_chunks) {
    if (chunk >= indexed_.size()) indexed_.resize(chunk + 1);
    slot = &indexed_[chunk];
  } else {
    slot = &chunks_[chunk];
  }
  if (*slot == nullptr) *slot = std::make_unique<std::uint64_t[]>(chunk_blocks * words_);  // zeroed
  return slot->get() + (block & (chunk_blocks - 1)) * words_;
}

}  // namespace locus::detail::sim
