#include "policy/nabbitc/color_sets.hpp"

#include <algorithm>
#include <bit>

namespace locus::detail {

color_sets::color_sets(int colors)
    : colors_(colors),
      words_((static_cast<std::size_t>(std::max(colors, 1)) + 63) / 64),
      chunks_(new std::atomic<std::atomic<std::uint64_t>*>[max_chunks]) {
  for (std::uint32_t i = 0; i < max_chunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
}

color_sets::~color_sets() {
  for (std::uint32_t i = 0; i < max_chunks; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
}

std::atomic<std::uint64_t>* color_sets::slot(std::uint32_t index) const noexcept {
  // Acquire: pairs with the release that published the chunk in make().
  std::atomic<std::uint64_t>* chunk = chunks_[index / slots_per_chunk].load(std::memory_order_acquire);
  return chunk + static_cast<std::size_t>(index % slots_per_chunk) * words_;
}

std::uint32_t color_sets::make(const int* colors, std::size_t n) {
  // The common cases need no slot: no color, one color, colors below 30.
  int first = -1;
  bool several = false, wide = false;
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int c = colors[i];
    if (c < 0) continue;
    if (first < 0) first = c;
    else if (c != first) several = true;
    if (c < inline_colors) bits |= 1u << c;
    else if (c < colors_) wide = true;  // a wider color no worker has matches nobody: dropped
  }
  if (!several) return single(first);
  if (!wide) return bits == 0 ? 0 : (std::has_single_bit(bits) ? single(std::countr_zero(bits)) : inline_bit | bits);

  std::uint32_t index;
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (fresh_ == max_chunks * slots_per_chunk) return 0;  // 16 M sets live at once: no colors
      index = fresh_++;
      if (index % slots_per_chunk == 0) {
        auto* chunk = new std::atomic<std::uint64_t>[slots_per_chunk * words_];
        for (std::size_t i = 0; i < slots_per_chunk * words_; ++i) chunk[i].store(0, std::memory_order_relaxed);
        chunks_[index / slots_per_chunk].store(chunk, std::memory_order_release);  // pairs with slot()
      }
    }
  }
  std::atomic<std::uint64_t>* words = slot(index);
  for (std::size_t w = 0; w < words_; ++w) words[w].store(0, std::memory_order_relaxed);
  for (std::size_t i = 0; i < n; ++i) {
    const int c = colors[i];
    if (c < 0 || c >= colors_) continue;
    auto& word = words[static_cast<std::size_t>(c) / 64];
    word.store(word.load(std::memory_order_relaxed) | (std::uint64_t{1} << (c % 64)), std::memory_order_relaxed);
  }
  // The words reach a thief with the tag: the owner's push of the frame
  // carrying it is a release store of the deque's bottom.
  return side_bit | index;
}

void color_sets::release(std::uint32_t tag) noexcept {
  if (!(tag & side_bit)) return;
  std::lock_guard lock(mutex_);
  free_.push_back(tag & ~side_bit);
}

bool color_sets::has(std::uint32_t tag, int color) const noexcept {
  if (tag == 0 || color < 0 || color >= colors_) return false;
  if (tag & side_bit) {
    const std::uint32_t index = tag & ~side_bit;
    if (index >= max_chunks * slots_per_chunk) return false;
    if (chunks_[index / slots_per_chunk].load(std::memory_order_acquire) == nullptr) return false;
    return (slot(index)[static_cast<std::size_t>(color) / 64].load(std::memory_order_relaxed) >> (color % 64)) & 1u;
  }
  if (tag & inline_bit) return color < inline_colors && ((tag >> color) & 1u);
  return tag - 1 == static_cast<std::uint32_t>(color);
}

int color_sets::some_color(std::uint32_t tag, std::uint32_t start) const noexcept {
  if (tag == 0 || colors_ <= 0) return -1;
  if (!(tag & (side_bit | inline_bit))) return tag - 1 < static_cast<std::uint32_t>(colors_) ? static_cast<int>(tag - 1) : -1;
  // A failed colored attempt: a few dozen tests at most (80 colors).
  for (int i = 0; i < colors_; ++i) {
    const int c = static_cast<int>((start + static_cast<std::uint32_t>(i)) % static_cast<std::uint32_t>(colors_));
    if (has(tag, c)) return c;
  }
  return -1;
}

std::size_t color_sets::slots_in_use() const {
  std::lock_guard lock(mutex_);
  return fresh_ - free_.size();
}

}  // namespace locus::detail
