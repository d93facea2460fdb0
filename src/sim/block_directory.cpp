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

std::size_t block_directory::size() const {
  std::size_t held = 0;
  const auto count = [&](const std::uint64_t* chunk) {
    for (std::uint64_t block = 0; block < chunk_blocks; ++block) {
      const std::uint64_t* const b = chunk + block * words_;
      held += static_cast<std::size_t>(std::any_of(b, b + words_, [](std::uint64_t w) { return w != 0; }));
    }
  };
  for (const auto& chunk : indexed_)
    if (chunk != nullptr) count(chunk.get());
  for (const auto& [number, chunk] : chunks_) count(chunk.get());
  return held;
}

}  // namespace locus::detail::sim
