// hull: quickhull for the convex hull of points in the plane, the hull
// benchmark of NUMA-WS (seed 000, section V), which takes it from PBBS
// (convexHull/quickHull).
//
// The two extreme points in x split the points into those above and those
// below the line through them. Each side is then solved recursively: a step
// takes a group of points strictly left of a directed edge a->b and the
// group's farthest point f from that line (a hull vertex); the points left
// of a->f and those left of f->b are packed into the other buffer (the rest
// lie inside the triangle a, f, b and are dropped), and both new groups are
// solved in parallel. The pack computes each point's distances to the two
// new edges anyway, so it also finds the new groups' farthest points: a step
// reads its points once. A step over more than `serial` points packs with
// parallel loops over blocks (classify and count per block, a serial scan
// over the blocks, scatter per block: the parallel pack); smaller steps run
// the same algorithm serially.
//
// Points are an array of structs; the passes carry 32-bit indices into it
// (two buffers of n indices and a byte per index), never the points
// themselves. A pack keeps the order of the indices, so every group stays
// sorted by point index, and a piece of a group reads the points of one
// stretch of the point array: what a partition of the point array across
// places needs.
//
// Every backend evaluates the same expressions on the same points in the
// same order, so each backend's hull equals the serial one exactly.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include <locus/annotate.hpp>
#include "common/places.hpp"

namespace hull {

struct point {
  double x, y;
};

// An index into the point array: 2^31 - 1 points at most.
using id = std::int32_t;

struct cutoffs {
  std::int64_t serial;  // at most this many points: a serial step (paper: 10k)
  std::int64_t block;   // points per piece of a parallel pass (at least 1)
};

// Twice the signed area of the triangle (a, b, c): positive iff c lies
// strictly left of the directed line a->b, and proportional to c's distance
// from that line.
inline double side(const point& a, const point& b, const point& c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// ---------------------------------------------------------- annotations
// The cost model for the simulator (bench/hull/README.md): side() is 4
// cycles, a lexicographic comparison or a copied index 1 cycle; memory is
// declared per block of a parallel pass and per serial step.
inline constexpr std::uint64_t side_cycles = 4;

// Declares the reads of points[ids[0]], ..., points[ids[count - 1]]. Runs of
// increasing ids less than a cache line apart are declared as one
// range, so a dense group costs a few calls and a sparse one a call per
// point, each the line it reads. Finding the ranges walks the indices, which
// made whole runs 5 to 15% slower, so it is skipped unless a simulated pool
// runs (annotate.hpp has no public query for that; its flag is the one
// touch() tests).
inline void touch_points(const point* points, const id* ids, std::int64_t count) {
  if (!locus::simulating()) return;
  constexpr id line_points = 64 / sizeof(point);
  for (std::int64_t i = 0; i < count;) {
    const id first = ids[i];
    id last = first;
    while (++i < count && ids[i] >= last && ids[i] - last <= line_points) last = ids[i];
    locus::touch(points + first, static_cast<std::size_t>(last - first + 1) * sizeof(point));
  }
}

// The points a pass reads: all of them in order (the first split), or those
// an index buffer names.
struct all_points {
  id operator[](std::int64_t i) const { return static_cast<id>(i); }
  void touch(const point* points, std::int64_t lo, std::int64_t hi) const {
    locus::touch(points + lo, static_cast<std::size_t>(hi - lo) * sizeof(point));
  }
  void touch_ids(std::int64_t, std::int64_t) const {}
};

struct listed_points {
  const id* ids;
  id operator[](std::int64_t i) const { return ids[i]; }
  void touch(const point* points, std::int64_t lo, std::int64_t hi) const {
    locus::touch(ids + lo, static_cast<std::size_t>(hi - lo) * sizeof(id));
    touch_points(points, ids + lo, hi - lo);
  }
  void touch_ids(std::int64_t lo, std::int64_t hi) const {
    locus::touch(ids + lo, static_cast<std::size_t>(hi - lo) * sizeof(id));
  }
};

// ---------------------------------------------------------- the farthest point
// The vertex a group's step adds: the point farthest left of its edge a->b
// (the largest side()); of points equally far, the one farthest along a->b
// (so a point inside an edge parallel to a->b is never chosen), then the
// first the parent step meets. Found while the parent step packs the group.
struct farthest {
  double distance = 0.0;  // side(a, b, points[vertex]); 0 while there is none
  double progress = 0.0;  // (points[vertex] - a) . (b - a)
  id vertex = -1;

  // Offers points[j] = p, with d = side(a, b, p) > 0 and d >= distance.
  void offer(double d, const point& p, id j, const point& a, const point& b) {
    const double t = (p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y);
    if (d > distance || t > progress) *this = {d, t, j};
  }
  // Takes the farthest of a later part of the same group if it wins.
  void merge(const farthest& later) {
    if (later.distance > distance || (later.distance == distance && later.progress > progress)) *this = later;
  }
};

// Where a point goes when a step with edge a->b and farthest point f splits
// its group: the left group (left of a->f), the right group (left of f->b)
// or nowhere (inside the triangle a, f, b, or on its sides). The left and
// right groups' farthest points are tracked on the way.
enum class to : std::uint8_t { none, left, right };

struct triangle {
  point a, f, b;
  farthest left, right;

  to classify(const point& p, id j) {
    const double to_left = side(a, f, p);
    if (to_left > 0) {
      if (to_left >= left.distance) left.offer(to_left, p, j, a, f);
      return to::left;
    }
    const double to_right = side(f, b, p);
    if (to_right > 0) {
      if (to_right >= right.distance) right.offer(to_right, p, j, f, b);
      return to::right;
    }
    return to::none;
  }

  // Classifies the points from[begin, end) into where[begin, end); returns
  // how many go left and right. (A function of its own, with its arguments
  // by value: in a loop body capturing by reference, the byte stores to
  // `where` would make GCC reload every captured variable per point.)
  template <class From>
  std::pair<std::int64_t, std::int64_t> classify(const point* points, From from, std::int64_t begin,
                                                 std::int64_t end, std::uint8_t* where) {
    std::int64_t lefts = 0, rights = 0;
    for (std::int64_t i = begin; i < end; ++i) {
      const id j = from[i];
      const to dest = classify(points[j], j);
      where[i] = static_cast<std::uint8_t>(dest);
      lefts += dest == to::left;
      rights += dest == to::right;
    }
    return {lefts, rights};
  }
};

// Sends from[i] for i in [begin, end) to *left++ or *right++ as where[i] says.
template <class From>
void scatter(From from, const std::uint8_t* where, std::int64_t begin, std::int64_t end, id* left, id* right) {
  for (std::int64_t i = begin; i < end; ++i) {
    const auto dest = static_cast<to>(where[i]);
    if (dest == to::left) *left++ = from[i];
    else if (dest == to::right) *right++ = from[i];
  }
}

// ---------------------------------------------------------- parallel passes
// The blocks of a pass over m points: block k is [k * size, min(m, (k + 1) * size)).
struct blocks {
  std::int64_t m, size;
  std::int64_t count() const { return (m + size - 1) / size; }
  std::int64_t begin(std::int64_t k) const { return k * size; }
  std::int64_t end(std::int64_t k) const { return std::min(m, (k + 1) * size); }
};

// Positions (in points[0, n)) of the leftmost point (least x, then least y)
// and the rightmost (greatest x, then greatest y); the first of equals.
template <class P>
std::pair<std::int64_t, std::int64_t> extremes(const point* points, std::int64_t n, std::int64_t block) {
  auto less = [](const point& p, const point& q) { return p.x < q.x || (p.x == q.x && p.y < q.y); };
  const blocks b{n, block};
  std::vector<std::pair<std::int64_t, std::int64_t>> found(static_cast<std::size_t>(b.count()));
  bench::place_loop<P>(0, b.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      std::int64_t left = b.begin(k), right = left;
      for (std::int64_t i = left + 1; i < b.end(k); ++i) {
        if (less(points[i], points[left])) left = i;
        if (less(points[right], points[i])) right = i;
      }
      found[k] = {left, right};
      all_points{}.touch(points, b.begin(k), b.end(k));
      locus::compute(2 * static_cast<std::uint64_t>(b.end(k) - b.begin(k)));
    }
  });
  auto [left, right] = found[0];
  for (const auto& [l, r] : found) {
    if (less(points[l], points[left])) left = l;
    if (less(points[right], points[r])) right = r;
  }
  return {left, right};
}

struct split_groups {
  std::int64_t left, right;  // sizes
  id left_far, right_far;    // their farthest points (-1 for an empty group)
};

// The parallel pack of a step: of the m points `from` names, those of the
// left group go to out[0, left), then those of the right group to
// out[left, left + right), both in their order in `from`. One pass per block
// classifies the points (into where[0, m)), counts both groups and finds
// their farthest points; a serial scan over the blocks gives every block its
// slots; a second pass per block scatters the indices.
template <class P, class From>
split_groups split(const point* points, From from, std::int64_t m, triangle t, std::uint8_t* where, id* out,
                   std::int64_t block) {
  const blocks bl{m, block};
  struct part {
    std::int64_t left, right;  // first the block's counts, then its first slots in `out`
    farthest left_far, right_far;
  };
  std::vector<part> parts(static_cast<std::size_t>(bl.count()));
  bench::place_loop<P>(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      triangle mine = t;
      const auto [left, right] = mine.classify(points, from, bl.begin(k), bl.end(k), where);
      parts[k] = {left, right, mine.left, mine.right};
      from.touch(points, bl.begin(k), bl.end(k));
      locus::touch(where + bl.begin(k), static_cast<std::size_t>(bl.end(k) - bl.begin(k)), locus::access::write);
      locus::compute(2 * side_cycles * static_cast<std::uint64_t>(bl.end(k) - bl.begin(k)));
    }
  });
  split_groups g{0, 0, -1, -1};
  farthest left_far, right_far;
  for (part& p : parts) {
    g.left += std::exchange(p.left, g.left);
    g.right += std::exchange(p.right, g.right);
    left_far.merge(p.left_far);
    right_far.merge(p.right_far);
  }
  for (part& p : parts) p.right += g.left;
  g.left_far = left_far.vertex;
  g.right_far = right_far.vertex;
  bench::place_loop<P>(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      scatter(from, where, bl.begin(k), bl.end(k), out + parts[k].left, out + parts[k].right);
      from.touch_ids(bl.begin(k), bl.end(k));
      locus::touch(where + bl.begin(k), static_cast<std::size_t>(bl.end(k) - bl.begin(k)));
      const std::int64_t lefts = (k + 1 < bl.count() ? parts[k + 1].left : g.left) - parts[k].left;
      const std::int64_t rights = (k + 1 < bl.count() ? parts[k + 1].right : g.left + g.right) - parts[k].right;
      locus::touch(out + parts[k].left, static_cast<std::size_t>(lefts) * sizeof(id), locus::access::write);
      locus::touch(out + parts[k].right, static_cast<std::size_t>(rights) * sizeof(id), locus::access::write);
      locus::compute(static_cast<std::uint64_t>(bl.end(k) - bl.begin(k)));
    }
  });
  return g;
}

// to[0, count) = from[0, count), in parallel pieces.
template <class P>
void copy(const id* from, id* to, std::int64_t count, std::int64_t block) {
  const blocks bl{count, block};
  bench::place_loop<P>(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    const std::int64_t begin = bl.begin(lo), end = bl.end(hi - 1);
    std::copy(from + begin, from + end, to + begin);
    locus::touch(from + begin, static_cast<std::size_t>(end - begin) * sizeof(id));
    locus::touch(to + begin, static_cast<std::size_t>(end - begin) * sizeof(id), locus::access::write);
    locus::compute(static_cast<std::uint64_t>(end - begin));
  });
}

// ---------------------------------------------------------- the recursion
// A step takes a group of m >= 1 points, all strictly left of its edge a->b,
// and f, the group's farthest point. It writes the hull vertices strictly
// between a and b, in order from a to b (clockwise), to the front of the
// group's index buffer and returns how many there are.

// A group's working memory: its indices, a scratch buffer of the same size
// and a byte per index for the pack. A step packs its subgroups into
// scratch, and they use its indices as their scratch.
struct buffers {
  id* ids;
  id* scratch;
  std::uint8_t* where;
  buffers subgroup(std::int64_t offset) const { return {scratch + offset, ids + offset, where + offset}; }
};

// One pass packs the left group to the front of scratch and the right group
// (reversed) to its back.
inline std::int64_t serial_hull(const point* points, buffers w, std::int64_t m, id a, id f, id b) {
  triangle t{points[a], points[f], points[b], {}, {}};
  std::int64_t left = 0, right = m;  // left group scratch[0, left), right group scratch[right, m)
  for (std::int64_t i = 0; i < m; ++i) {
    const id j = w.ids[i];
    const to dest = t.classify(points[j], j);
    if (dest == to::left) w.scratch[left++] = j;
    else if (dest == to::right) w.scratch[--right] = j;
  }
  listed_points{w.ids}.touch(points, 0, m);
  locus::touch(w.scratch, static_cast<std::size_t>(left) * sizeof(id), locus::access::write);
  locus::touch(w.scratch + right, static_cast<std::size_t>(m - right) * sizeof(id), locus::access::write);
  locus::compute(2 * side_cycles * static_cast<std::uint64_t>(m));

  const std::int64_t k1 = left == 0 ? 0 : serial_hull(points, w.subgroup(0), left, a, t.left.vertex, f);
  const std::int64_t k2 = right == m ? 0 : serial_hull(points, w.subgroup(right), m - right, f, t.right.vertex, b);
  std::copy(w.scratch, w.scratch + k1, w.ids);
  w.ids[k1] = f;
  std::copy(w.scratch + right, w.scratch + right + k2, w.ids + k1 + 1);
  locus::touch(w.scratch, static_cast<std::size_t>(k1) * sizeof(id));
  locus::touch(w.scratch + right, static_cast<std::size_t>(k2) * sizeof(id));
  locus::touch(w.ids, static_cast<std::size_t>(k1 + 1 + k2) * sizeof(id), locus::access::write);
  locus::compute(static_cast<std::uint64_t>(k1 + 1 + k2));
  return k1 + 1 + k2;
}

template <class P>
std::int64_t parallel_hull(const point* points, buffers w, std::int64_t m, id a, id f, id b, const cutoffs& c) {
  if (m <= c.serial) return serial_hull(points, w, m, a, f, b);
  const split_groups g = split<P>(points, listed_points{w.ids}, m, {points[a], points[f], points[b], {}, {}},
                                  w.where, w.scratch, c.block);
  std::int64_t k1 = 0, k2 = 0;
  P::fork2([&] { k1 = g.left == 0 ? 0 : parallel_hull<P>(points, w.subgroup(0), g.left, a, g.left_far, f, c); },
           [&] {
             k2 = g.right == 0 ? 0 : parallel_hull<P>(points, w.subgroup(g.left), g.right, f, g.right_far, b, c);
           });
  copy<P>(w.scratch, w.ids, k1, c.block);
  w.ids[k1] = f;
  copy<P>(w.scratch + g.left, w.ids + k1 + 1, k2, c.block);
  return k1 + 1 + k2;
}

// The convex hull of points[0, n): its vertices (no point inside an edge) in
// clockwise order from the leftmost point, the lowest of those leftmost,
// written to out[0, k); returns k. ids, scratch, where and out hold n
// entries each.
template <class P>
std::int64_t quickhull(const point* points, std::int64_t n, id* ids, id* scratch, std::uint8_t* where, id* out,
                       const cutoffs& c) {
  if (n == 0) return 0;
  const auto [l, r] = extremes<P>(points, n, c.block);
  const id left = static_cast<id>(l), right = static_cast<id>(r);
  out[0] = left;
  if (points[left].x == points[right].x && points[left].y == points[right].y) return 1;  // all points coincide
  // The points above left->right (left of it) to ids[0, above), those below
  // (left of right->left) to ids[above, above + below).
  const split_groups g =
      split<P>(points, all_points{}, n, {points[left], points[right], points[left], {}, {}}, where, ids, c.block);
  const buffers w{scratch, ids, where};  // the groups' indices are in ids
  std::int64_t k1 = 0, k2 = 0;
  P::fork2([&] { k1 = g.left == 0 ? 0 : parallel_hull<P>(points, w.subgroup(0), g.left, left, g.left_far, right, c); },
           [&] {
             k2 = g.right == 0 ? 0
                               : parallel_hull<P>(points, w.subgroup(g.left), g.right, right, g.right_far, left, c);
           });
  copy<P>(ids, out + 1, k1, c.block);
  out[k1 + 1] = right;
  copy<P>(ids + g.left, out + k1 + 2, k2, c.block);
  return k1 + 2 + k2;
}

}  // namespace hull
