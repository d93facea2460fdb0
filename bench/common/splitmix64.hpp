// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): one 64-bit word of state, for the benchmarks' inputs
// and for the random draws a kernel makes itself (seeded the same every
// run, so that every variant draws the same numbers): ga, pagerank-graph,
// streamcluster, ferret.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace bench {

struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // [0, n) for 0 < n < 2^32: the top 32 bits scaled (no division).
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
  }
  // Fisher-Yates.
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[static_cast<std::size_t>(below(static_cast<std::int64_t>(i)))]);
  }
};

}  // namespace bench
