// KD-tree construction over 3-D points, the KDTree benchmark of ADWS (seed
// 003, section 6.2). A node splits its points on axis depth mod 3 (x, y, z
// in turn) at the median of its first three points' coordinates: a
// double-buffered parallel partition over fixed-size blocks (as Quicksort's)
// moves the points <= the pivot to the left, the others to the right, and
// both sides are built in parallel with their point counts as work hints.
// Ranges with fewer than `leaf` points stay leaves; ranges of at most
// `serial` points are built without forks or parallel loops.
//
// The tree needs no node allocation: the points end in tree order in the
// caller's array, every node owns a range [lo, hi) of it, and a node that
// splits at m (lo < m < hi, the first point of its right side) records its
// split value and depth in slot m. No two nodes split at the same position
// (a node's split lies strictly inside its range, its descendants' strictly
// inside their own, smaller ranges), so parallel builds write disjoint slots.
//
// For the simulator (README.md) every step declares what it reads and
// writes; cycles: 4 for the pivot, 1 per point counted or scattered, 1 per
// prefix sum; copies only their memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/backend.hpp"
#include "common/block_partition.hpp"
#include "common/places.hpp"

namespace kdtree {

struct point {
  double c[3];
};

struct shape {
  std::int64_t leaf;    // fewer points: a leaf (at least 3, for the pivot)
  std::int64_t serial;  // at most this many points: built without forks
  std::int64_t block;   // points per partition block (at least 1)
  bool hints;           // the sides' point counts as work hints
};

// Slot m of the tree: the node that splits at m, if any.
inline constexpr std::int32_t no_split = -1;
struct slots {
  double* split;        // its split value
  std::int32_t* level;  // its depth (its axis is depth mod 3), or no_split
};

inline double median_of_three(double a, double b, double c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

inline void copy_points(const point* from, point* to, std::int64_t n) {
  bench::touch_n(from, n, locus::access::read);
  bench::touch_n(to, n, locus::access::write);
  std::copy(from, from + n, to);
}

// Builds the subtree of the n points held in `from`; `to` is the same range
// of the other buffer, `s` the tree's slots offset to this range. The
// points must end in the caller's array ("home"): from_is_home says which
// buffer that is.
template <class P>
void build(point* from, point* to, std::int64_t n, int depth, bool from_is_home, slots s, const shape& c) {
  if constexpr (!std::is_same_v<P, bench::serial_backend>) {
    if (n <= c.serial) return build<bench::serial_backend>(from, to, n, depth, from_is_home, s, c);
  }
  auto leave = [&] {
    if (!from_is_home) copy_points(from, to, n);
  };
  if (n < c.leaf) return leave();
  const int axis = depth % 3;
  bench::touch_n(from, 3, locus::access::read);
  locus::compute(4);
  const double pivot = median_of_three(from[0].c[axis], from[1].c[axis], from[2].c[axis]);
  // Side 0: <= the pivot, side 1: greater.
  auto side = [axis, split = pivot](const point& p) { return p.c[axis] <= split ? 0 : 1; };
  bench::block_partition<2, point> part(from, n, c.block, 1);
  part.count<P>(side);
  const std::int64_t left_total = part.size(0);
  // Every point <= the pivot (three equal first coordinates): nothing to
  // split, the range stays a leaf. The left side holds at least the pivot's
  // point, so it is never empty.
  if (left_total == n) return leave();
  part.scatter<P>(to, side);
  // The node's 12 bytes are not declared: next to the partition's traffic
  // they cost nothing, and declared they made simulated runs differ between
  // processes (see README.md).
  s.split[left_total] = pivot;
  s.level[left_total] = depth;

  const std::int64_t right_total = n - left_total;
  auto build_left = [&] { build<P>(to, from, left_total, depth + 1, !from_is_home, s, c); };
  auto build_right = [&] {
    build<P>(to + left_total, from + left_total, right_total, depth + 1, !from_is_home,
             slots{s.split + left_total, s.level + left_total}, c);
  };
  // Each side's working set: its points in both buffers.
  bench::fork_split<P>(c.hints, left_total, 2 * sizeof(point) * static_cast<std::size_t>(left_total), build_left,
                       right_total, 2 * sizeof(point) * static_cast<std::size_t>(right_total), build_right);
}

}  // namespace kdtree
