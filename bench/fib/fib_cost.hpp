// What fib declares to the simulator (locus/annotate.hpp; the cost model is
// in bench/fib/README.md): every call of fib costs 2 cycles, the test of n
// and the addition of the two results, and fib(n) makes 2 fib(n+1) - 1 calls.
//
// Calls below `bulk` are declared in bulk: the first of them, the root of a
// subtree below bulk, declares the cycles of the whole subtree, whose calls
// then carry no annotation (the kernels run such a subtree as their
// `declared` instance). A task stolen inside such a subtree is charged to
// the subtree's root: at most fib(13), 753 calls. Why not one annotation per
// call: every fork would pay a load and a branch, and in serial code GCC
// folds the calls near the leaves into constants, which a load of the
// annotation flag in every call prevents (the serial elision ran 3 to 5
// times slower with one). The calls at or above bulk stay real calls in
// serial code; with bulk 10 they cost it about 10%, with 14 about 1%.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace fib_cost {

inline constexpr std::uint64_t cycles_per_call = 2;
inline constexpr int bulk = 14;
inline constexpr int max_n = 92;  // fib(92) is the largest that fits in 64 bits

// Cycles of all the calls fib(n) makes, itself included.
inline constexpr std::array<std::uint64_t, max_n + 1> tree = [] {
  std::array<std::uint64_t, max_n + 1> t{};
  t[0] = t[1] = cycles_per_call;
  for (std::size_t n = 2; n <= max_n; ++n) t[n] = cycles_per_call + t[n - 1] + t[n - 2];
  return t;
}();

// A call with n < 2 (negative too) makes no further calls.
inline std::uint64_t tree_cycles(int n) { return tree[static_cast<std::size_t>(std::clamp(n, 1, max_n))]; }

}  // namespace fib_cost
