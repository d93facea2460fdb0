// Helpers for the kernels' declarations to the simulator (locus/annotate.hpp;
// the rules and the cost model: docs/benchmarks.md, "Annotations for the
// simulator").
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>

namespace bench {

// The calling task reads or writes elements [first, first + count).
template <class T>
void touch_n(const T* first, std::int64_t count, locus::access how) {
  locus::touch(first, static_cast<std::size_t>(count) * sizeof(T), how);
}

// Cycles per comparison of std::sort and per element of std::merge on random
// keys, where mispredicted branches cost most of the time: measured on an AMD
// EPYC host (2026-11-24; time-stamp-counter cycles, best of 200 runs of
// random 64-bit keys, n = 256 to 16384, as many comparisons as
// n ceil(log2 n)): 7.1 to 7.2 per comparison, 7.9 to 9.0 per merged element.
// The model charged 1 and 2 before, which made the simulated sorts bound by
// memory where the papers' were not (NUMA-WS's serial cilksort, figure 7,
// spends about 13 cycles per element and level).
inline constexpr std::uint64_t compare_cycles = 7;
inline constexpr std::uint64_t merge_element_cycles = 8;

// Cycles charged for std::sort of n elements: n ceil(log2 n) comparisons.
inline std::uint64_t sort_cycles(std::int64_t n) {
  if (n < 2) return 0;
  const auto count = static_cast<std::uint64_t>(n);
  return count * static_cast<std::uint64_t>(std::bit_width(count - 1)) * compare_cycles;
}

}  // namespace bench
