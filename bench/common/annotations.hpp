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

// Cycles charged for std::sort of n elements: n ceil(log2 n) comparisons.
inline std::uint64_t sort_cycles(std::int64_t n) {
  if (n < 2) return 0;
  const auto count = static_cast<std::uint64_t>(n);
  return count * static_cast<std::uint64_t>(std::bit_width(count - 1));
}

}  // namespace bench
