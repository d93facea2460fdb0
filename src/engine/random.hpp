// The random source of a worker: victim choice and policies' coin flips.
// The engine seeds it (engine::seed), so that simulated runs repeat.
#pragma once

#include <cstdint>

namespace locus::detail {

// xorshift64*: fast, seedable, deterministic.
struct rng64 {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  void seed(std::uint64_t s) { state = s != 0 ? s : 0x9E3779B97F4A7C15ull; }
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
  }
  // Uniform in [0, n).
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>((static_cast<unsigned __int128>(next() >> 32) * n) >> 32);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace locus::detail
