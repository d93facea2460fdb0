// N-queens: the number of ways to place n queens on an n x n board so that
// no two attack each other, by exhaustive backtracking over rows with bit
// masks (columns and both diagonals taken). The Queens(15) control of CATS
// (seed 002, Table 1 and section 4.3).
//
// Parallel search: the first `depth` rows are searched in parallel. At such
// a row the free squares are split in two halves by P::fork2 until one is
// left, which is placed and the next row searched; from row `depth` on the
// rest of the board is searched serially. The counts of the two halves are
// added after the join, so the count is the same in every variant.
//
// For the simulator (README.md) every search node costs node_cycles: a
// parallel node declares its own, a serial subtree counts its nodes and
// declares them in bulk when it is done. Nothing is touched.
#pragma once

#include <bit>
#include <cstdint>

#include <locus/annotate.hpp>

namespace queens {

// Per node: the test for a full board, the free squares (two ors, a not,
// an and), and per child placed the lowest free bit (negate, and), its
// removal (xor) and the child's three masks (or, or + shift, or + shift),
// charged to the child: 5 + 9 = 14.
inline constexpr std::uint64_t node_cycles = 14;

// A board state: columns and the two diagonal directions taken, as seen
// from the next row to fill.
struct board {
  std::uint32_t cols, left, right;
  board place(std::uint32_t bit) const { return {cols | bit, (left | bit) << 1, (right | bit) >> 1}; }
};

struct tally {
  std::uint64_t solutions = 0;
  std::uint64_t nodes = 0;
};

// Serial backtracking from b (a node: b is counted). all: the n low bits.
inline void search(std::uint32_t all, board b, tally& t) {
  ++t.nodes;
  if (b.cols == all) {
    ++t.solutions;
    return;
  }
  std::uint32_t free = all & ~(b.cols | b.left | b.right);
  while (free != 0) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    search(all, b.place(bit), t);
  }
}

// The serial subtree at b, its nodes declared.
inline std::uint64_t search_declared(std::uint32_t all, board b) {
  tally t;
  search(all, b, t);
  locus::compute(t.nodes * node_cycles);
  return t.solutions;
}

template <class P>
std::uint64_t solve(std::uint32_t all, board b, int row, int depth);

// Tries the free squares in `squares` (a nonempty subset of the row's free
// squares) at row `row`, half of them against the other half in parallel.
template <class P>
std::uint64_t branch(std::uint32_t all, board b, std::uint32_t squares, int row, int depth) {
  const int count = std::popcount(squares);
  if (count == 1) return solve<P>(all, b.place(squares), row + 1, depth);
  std::uint32_t low = 0, rest = squares;
  for (int i = 0; i < count / 2; ++i) {
    const std::uint32_t bit = rest & (0u - rest);
    low |= bit;
    rest ^= bit;
  }
  std::uint64_t a = 0, c = 0;
  P::fork2([&] { a = branch<P>(all, b, low, row, depth); }, [&] { c = branch<P>(all, b, rest, row, depth); });
  return a + c;
}

// The node b at row `row`: in parallel above `depth`, serially from there.
template <class P>
std::uint64_t solve(std::uint32_t all, board b, int row, int depth) {
  if (row >= depth || b.cols == all) return search_declared(all, b);
  locus::compute(node_cycles);
  const std::uint32_t free = all & ~(b.cols | b.left | b.right);
  return free == 0 ? 0 : branch<P>(all, b, free, row, depth);
}

// Solutions of n queens (1 <= n <= 31), the first `depth` rows in parallel.
template <class P>
std::uint64_t count(int n, int depth) {
  const std::uint32_t all = (1u << n) - 1;
  return solve<P>(all, {0, 0, 0}, 0, depth);
}

}  // namespace queens
