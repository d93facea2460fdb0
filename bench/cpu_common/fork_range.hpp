// Recursive decomposition of an index range with P::fork2, shared by the
// CPU-bound controls of CATS (seed 002, Table 1): mandelbrot's rows, ga's
// islands and fft's butterflies above the cut-off. The range is halved
// until a piece has at most `leaf` indices; body(lo, hi) runs on each piece.
// The pieces depend only on lo, hi and leaf, so every backend (serial
// included) calls body on the same pieces, and a kernel that declares its
// simulated cost per piece declares the same cycles in every variant.
#pragma once

#include <cstdint>

namespace cpu_common {

template <class P, class Body>
void fork_range(std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if (hi - lo <= leaf) {
    if (lo < hi) body(lo, hi);
    return;
  }
  const std::int64_t mid = lo + (hi - lo) / 2;
  P::fork2([&] { fork_range<P>(lo, mid, leaf, body); }, [&] { fork_range<P>(mid, hi, leaf, body); });
}

}  // namespace cpu_common
