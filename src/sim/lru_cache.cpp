#include "sim/lru_cache.hpp"

#include <algorithm>

namespace locus::detail::sim {

namespace {

std::uint64_t ways_for(std::uint64_t capacity_blocks, int ways) {
  if (ways <= 0 || static_cast<std::uint64_t>(ways) > capacity_blocks) return capacity_blocks;
  return static_cast<std::uint64_t>(ways);
}

}  // namespace

lru_cache::lru_cache(std::uint64_t capacity_blocks, int ways)
    : sets_(capacity_blocks / ways_for(capacity_blocks, ways)),
      ways_(static_cast<int>(ways_for(capacity_blocks, ways))),
      sets_are_power_of_two_((sets_ & (sets_ - 1)) == 0),
      slots_(sets_ * static_cast<std::uint64_t>(ways_), no_block) {}

bool lru_cache::touch(std::uint64_t block) {
  std::uint64_t* const set = slots_.data() + set_start(block);
  std::uint64_t* const end = set + ways_;
  std::uint64_t* const hit = std::find_if(set, end, [&](std::uint64_t s) { return holds(s, block); });
  if (hit == end) return false;
  std::rotate(set, hit, hit + 1);
  return true;
}

}  // namespace locus::detail::sim
