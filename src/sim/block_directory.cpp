#include "sim/block_directory.hpp"

#include <algorithm>

namespace locus::detail::sim {

namespace {

// Small enough to cost nothing for a tiny test machine; the table doubles
// as caches fill (the caches of a 32-core preset hold about a million
// blocks).
constexpr int initial_capacity_log2 = 10;

std::vector<std::uint64_t> empty_slots(std::size_t capacity, std::size_t stride) {
  std::vector<std::uint64_t> slots(capacity * stride, 0);
  for (std::size_t i = 0; i < capacity; ++i) slots[i * stride] = ~std::uint64_t{0};
  return slots;
}

}  // namespace

block_directory::block_directory(int num_holders)
    : words_(static_cast<std::size_t>(std::max(num_holders, 1) + 63) / 64),
      stride_(1 + words_),
      capacity_log2_(initial_capacity_log2),
      slots_(empty_slots(std::size_t{1} << initial_capacity_log2, stride_)) {}

std::size_t block_directory::home_index(std::uint64_t block) const {
  // Fibonacci hashing: consecutive blocks spread over the whole table.
  return static_cast<std::size_t>((block * 0x9E3779B97F4A7C15ull) >> (64 - capacity_log2_));
}

std::size_t block_directory::find_index(std::uint64_t block) const {
  const std::size_t mask = capacity() - 1;
  std::size_t index = home_index(block);
  for (;;) {
    const std::uint64_t key = slot(index)[0];
    if (key == block || key == empty) return index;
    index = (index + 1) & mask;
  }
}

const std::uint64_t* block_directory::holders(std::uint64_t block) const {
  const std::uint64_t* const s = slot(find_index(block));
  return s[0] == empty ? nullptr : s + 1;
}

void block_directory::add(std::uint64_t block, const std::uint64_t* holders) {
  // At most half full, so probe sequences stay short.
  if (2 * (count_ + 1) > capacity()) grow();
  std::uint64_t* const s = slot(find_index(block));
  if (s[0] == empty) {
    s[0] = block;
    ++count_;
  }
  for (std::size_t w = 0; w < words_; ++w) s[1 + w] |= holders[w];
}

void block_directory::remove(std::uint64_t block, int holder) {
  const std::size_t index = find_index(block);
  std::uint64_t* const s = slot(index);
  if (s[0] == empty) return;
  s[1 + static_cast<std::size_t>(holder) / 64] &= ~(std::uint64_t{1} << (holder % 64));
  if (std::all_of(s + 1, s + stride_, [](std::uint64_t w) { return w == 0; })) erase_index(index);
}

void block_directory::erase_index(std::size_t index) {
  // Backward shift: pull later entries of the probe run into the hole when
  // their home is not between the hole and them, so lookups never stop
  // early at a gap.
  const std::size_t mask = capacity() - 1;
  std::size_t hole = index;
  for (std::size_t next = (hole + 1) & mask; slot(next)[0] != empty; next = (next + 1) & mask) {
    const std::size_t home = home_index(slot(next)[0]);
    if (((next - home) & mask) >= ((next - hole) & mask)) {
      std::copy_n(slot(next), stride_, slot(hole));
      hole = next;
    }
  }
  std::uint64_t* const s = slot(hole);
  s[0] = empty;
  std::fill_n(s + 1, words_, 0);
  --count_;
}

void block_directory::grow() {
  std::vector<std::uint64_t> old = empty_slots(capacity() * 2, stride_);
  old.swap(slots_);
  ++capacity_log2_;
  for (std::size_t i = 0; i < old.size(); i += stride_) {
    if (old[i] == empty) continue;
    std::copy_n(old.data() + i, stride_, slot(find_index(old[i])));
  }
}

}  // namespace locus::detail::sim
