// Recursive Repeated Map (RRM), the artificial benchmark of ADWS (seed 003,
// section 6.2), a simplified version of the space-bounded schedulers'
// benchmark. Every call first maps its whole range three times (each map a
// parallel loop), then, unless the range is below the leaf size, divides it
// in the ratio 1 : alpha and recurses on both parts in parallel. alpha sets
// how unbalanced the computation graph is.
//
// For the simulator each piece of a map declares its elements (written in
// place) and one cycle per element (README.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <locus/annotate.hpp>

#include "common/places.hpp"

namespace rrm {

struct shape {
  double alpha;            // a range splits as 1 : alpha (> 0)
  std::int64_t leaf;       // ranges shorter than this are not divided (at least 2)
  std::int64_t map_grain;  // a map's parallel loop stops splitting at this many elements
  bool hints;              // the parts' sizes as work hints (Fig. 19: ADWS given 1 : alpha)
};

// The map multiplies each element by this constant and adds the product to
// it. Small, so that values stay finite however deep an unbalanced alpha
// makes the recursion: ten thousand maps grow an element only by e^10.
inline constexpr double factor = 1e-3;
inline constexpr int maps_per_call = 3;

template <class P>
void repeated_map(double* x, std::int64_t n, const shape& s) {
  // Every map and every call declares its elements as its working set
  // (section 6.2: the paper's sizes), for the multi-level policies.
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(double);
  for (int m = 0; m < maps_per_call; ++m)
    bench::sized_loop<P>(0, n, s.map_grain, bytes, [x](std::int64_t lo, std::int64_t hi) {
      locus::touch(x + lo, static_cast<std::size_t>(hi - lo) * sizeof(double), locus::access::write);
      locus::compute(static_cast<std::uint64_t>(hi - lo));
      for (std::int64_t i = lo; i < hi; ++i) x[i] += factor * x[i];
    });
  if (n < s.leaf) return;
  // Both parts non-empty whatever alpha, so every call shrinks its range.
  const auto left = std::clamp(static_cast<std::int64_t>(static_cast<double>(n) / (1.0 + s.alpha)),
                               std::int64_t{1}, n - 1);
  auto first = [&] { repeated_map<P>(x, left, s); };
  auto second = [&] { repeated_map<P>(x + left, n - left, s); };
  bench::fork_split<P>(s.hints, left, static_cast<std::size_t>(left) * sizeof(double), first, n - left,
                       static_cast<std::size_t>(n - left) * sizeof(double), second);
}

}  // namespace rrm
