// The simulator's address map (page_map.hpp): first-touch numbering and
// page colors.
#include "sim/page_map.hpp"

#include <malloc.h>

namespace locus::detail::sim {

namespace {
// The simulated address space starts above page 0, so no simulated address
// is null.
constexpr std::uint64_t first_simulated_page = 1;
}  // namespace

page_map::page_map(std::uint64_t page_bytes) {
  // Simulated addresses keep the offset within the page, so a run repeats
  // only if the program's arrays land at the same offsets every time. glibc
  // moves its mmap threshold up as mapped blocks are freed, after which
  // large arrays come from the heap at offsets that depend on what the
  // process did before; setting the threshold turns that adjustment off
  // (mallopt(3)), so arrays of 128 KiB and more are always mapped afresh.
  // The top of the heap is trimmed to nothing spare, so that fewer large
  // requests are carved from a big free top chunk. Blocks coalesced in the
  // heap's bins can still serve them: for runs that repeat whatever came
  // before, allocate arrays at page boundaries (locus::alloc_*, or as
  // locus-bench does, bench/runner/large_blocks.cpp).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  mallopt(M_TOP_PAD, 0);
  page_shift_ = 0;
  while (page_bytes > 1) {
    page_bytes >>= 1;
    ++page_shift_;
  }
  next_sim_page_ = first_simulated_page;
}

// The n-th page first touched gets a simulated page number that is a fixed
// pseudo-random permutation of n within its group of 2^12 (16 MiB of 4 KiB
// pages). The caches index sets by simulated address, so a page's number
// is its color. Numbered in touch order, an array that 56 workers first
// touch together got numbers striding by about 56, a few colors for each
// worker: a fraction of its L2 in use. An operating system gives a fresh
// page whatever frame is free, colors without a pattern; so does this.
// Groups keep the numbers dense (sim/block_directory.hpp).
std::uint64_t page_map::colored_page(std::uint64_t n) {
  constexpr int group_bits = 12;
  constexpr std::uint64_t mask = (std::uint64_t{1} << group_bits) - 1;
  // A bijection on group_bits-bit numbers: odd multipliers and xor-shifts.
  std::uint64_t x = n & mask;
  x = (x * 0x9E3779B1u) & mask;
  x ^= x >> (group_bits / 2);
  x = (x * 0x85EBCA6Bu) & mask;
  x ^= x >> (group_bits / 2);
  return (n & ~mask) | x;
}

std::uint64_t page_map::simulated_address(std::uint64_t address, bool assign) {
  const std::uint64_t real_page = address >> page_shift_;
  const std::uint64_t offset = address & ((std::uint64_t{1} << page_shift_) - 1);
  if (real_page != last_real_page_) {
    auto it = map_.find(real_page);
    if (it == map_.end()) {
      if (!assign) return 0;
      it = map_.emplace(real_page, colored_page(next_sim_page_++)).first;
    }
    last_real_page_ = real_page;
    last_sim_page_ = it->second;
  }
  return (last_sim_page_ << page_shift_) | offset;
}

void page_map::forget(const void* address, std::size_t bytes) {
  const std::uint64_t first = reinterpret_cast<std::uintptr_t>(address) >> page_shift_;
  const std::uint64_t last = (reinterpret_cast<std::uintptr_t>(address) + bytes - 1) >> page_shift_;
  for (std::uint64_t page = first; page <= last; ++page) map_.erase(page);
  last_real_page_ = ~std::uint64_t{0};
}

}  // namespace locus::detail::sim
