// The synthetic work of the overhead benchmarks (pipeline, graph-overhead,
// enqueue): `rounds` rounds of an integer hash of v, so that a stage, node
// or task does an exact, checkable amount of work (none with 0 rounds).
#pragma once

#include <cstdint>

namespace bench {

inline std::uint64_t hash_rounds(std::uint64_t v, std::int64_t rounds) {
  for (std::int64_t r = 0; r < rounds; ++r) v = (v ^ (v >> 29)) * 0xbf58476d1ce4e5b9ULL + 0x9e3779b97f4a7c15ULL;
  return v;
}

}  // namespace bench
