// hull: quickhull for the convex hull of points in the plane, the hull
// benchmark of NUMA-WS (seed 000, section V), which takes it from PBBS
// (convexHull/quickHull).
//
// The two extreme points in x split the points into those above and those
// below the line through them. Each side is then solved recursively: for the
// points strictly left of a directed edge a->b, the farthest one from the
// line (the largest side(), so a hull vertex) becomes a vertex, the points
// left of a->far and left of far->b are packed into the other buffer (the
// rest lie inside the triangle and are dropped), and both groups recurse in
// parallel. A step over more than `serial` points runs its passes as
// parallel loops over blocks (a per-block result, a serial scan over the
// blocks, a per-block scatter: the parallel pack); smaller steps run the
// same algorithm serially.
//
// Points are an array of structs; the passes carry 32-bit indices into it
// (two buffers of n indices), never the points themselves. A pack keeps the
// order of the indices, so every group stays sorted by point index, and a
// piece of a group reads the points of one stretch of the point array: what
// a partition of the point array across places needs.
//
// Every backend evaluates the same expressions on the same points in the
// same order (the farthest point is the first largest in index order), so
// each backend's hull equals the serial one exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <locus/annotate.hpp>

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

// Declares the reads of points[ids[0]], ..., points[ids[count - 1]] (ids
// increasing). Points less than a cache line apart are declared as one
// range, so a dense group costs a few calls and a sparse one a call per
// point, each the line it reads.
inline void touch_points(const point* points, const id* ids, std::int64_t count) {
  constexpr id line_points = 64 / sizeof(point);
  for (std::int64_t i = 0; i < count;) {
    const id first = ids[i];
    id last = first;
    while (++i < count && ids[i] - last <= line_points) last = ids[i];
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
};

struct listed_points {
  const id* ids;
  id operator[](std::int64_t i) const { return ids[i]; }
  void touch(const point* points, std::int64_t lo, std::int64_t hi) const {
    locus::touch(ids + lo, static_cast<std::size_t>(hi - lo) * sizeof(id));
    touch_points(points, ids + lo, hi - lo);
  }
};

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
  P::loop(0, b.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
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

// The position in ids[0, m) (m >= 1) of the point farthest left of a->b:
// the first of the largest side().
template <class P>
std::int64_t farthest(const point* points, const id* ids, std::int64_t m, point a, point b, std::int64_t block) {
  struct best {
    double distance;
    std::int64_t position;
  };
  const blocks bl{m, block};
  std::vector<best> found(static_cast<std::size_t>(bl.count()));
  P::loop(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      best f{side(a, b, points[ids[bl.begin(k)]]), bl.begin(k)};
      for (std::int64_t i = bl.begin(k) + 1; i < bl.end(k); ++i) {
        const double d = side(a, b, points[ids[i]]);
        if (d > f.distance) f = {d, i};
      }
      found[k] = f;
      listed_points{ids}.touch(points, bl.begin(k), bl.end(k));
      locus::compute(side_cycles * static_cast<std::uint64_t>(bl.end(k) - bl.begin(k)));
    }
  });
  best f = found[0];
  for (const best& g : found)
    if (g.distance > f.distance) f = g;
  return f.position;
}

// The parallel pack: of the m points `from` names, those strictly left of
// a->mid go to to[0, left), then those strictly left of mid->b (and not of
// a->mid) to to[left, left + right), both in their order in `from`; the rest
// are dropped. Returns {left, right}.
template <class P, class From>
std::pair<std::int64_t, std::int64_t> split(const point* points, From from, std::int64_t m, point a, point mid,
                                            point b, id* to, std::int64_t block) {
  const blocks bl{m, block};
  // Per block: first its counts of left and right points, then where they go.
  std::vector<std::pair<std::int64_t, std::int64_t>> slot(static_cast<std::size_t>(bl.count()));
  P::loop(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      std::int64_t left = 0, right = 0;
      for (std::int64_t i = bl.begin(k); i < bl.end(k); ++i) {
        const point& p = points[from[i]];
        if (side(a, mid, p) > 0) ++left;
        else if (side(mid, b, p) > 0) ++right;
      }
      slot[k] = {left, right};
      from.touch(points, bl.begin(k), bl.end(k));
      locus::compute(2 * side_cycles * static_cast<std::uint64_t>(bl.end(k) - bl.begin(k)));
    }
  });
  std::int64_t left_total = 0, right_total = 0;
  for (auto& [left, right] : slot) {
    left_total += std::exchange(left, left_total);
    right_total += std::exchange(right, right_total);
  }
  for (auto& s : slot) s.second += left_total;
  P::loop(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      id* left = to + slot[k].first;
      id* right = to + slot[k].second;
      for (std::int64_t i = bl.begin(k); i < bl.end(k); ++i) {
        const id j = from[i];
        const point& p = points[j];
        if (side(a, mid, p) > 0) *left++ = j;
        else if (side(mid, b, p) > 0) *right++ = j;
      }
      from.touch(points, bl.begin(k), bl.end(k));
      locus::touch(to + slot[k].first, static_cast<std::size_t>(left - (to + slot[k].first)) * sizeof(id),
                   locus::access::write);
      locus::touch(to + slot[k].second, static_cast<std::size_t>(right - (to + slot[k].second)) * sizeof(id),
                   locus::access::write);
      locus::compute(2 * side_cycles * static_cast<std::uint64_t>(bl.end(k) - bl.begin(k)));
    }
  });
  return {left_total, right_total};
}

// to[0, count) = from[0, count), in parallel pieces.
template <class P>
void copy(const id* from, id* to, std::int64_t count, std::int64_t block) {
  const blocks bl{count, block};
  P::loop(0, bl.count(), 1, [&](std::int64_t lo, std::int64_t hi) {
    const std::int64_t begin = bl.begin(lo), end = bl.end(hi - 1);
    std::copy(from + begin, from + end, to + begin);
    locus::touch(from + begin, static_cast<std::size_t>(end - begin) * sizeof(id));
    locus::touch(to + begin, static_cast<std::size_t>(end - begin) * sizeof(id), locus::access::write);
    locus::compute(static_cast<std::uint64_t>(end - begin));
  });
}

// ---------------------------------------------------------- the recursion
// Every step takes the m points ids[0, m), all strictly left of a->b, writes
// the hull vertices strictly between a and b to ids[0, k) in order from a to
// b (clockwise), and returns k; scratch[0, m) is overwritten.

// One pass finds the farthest point, one pass packs the left group to the
// front of scratch and the right group (reversed) to its back.
inline std::int64_t serial_hull(const point* points, id* ids, id* scratch, std::int64_t m, id a, id b) {
  if (m == 0) return 0;
  const point pa = points[a], pb = points[b];
  std::int64_t position = 0;
  double distance = side(pa, pb, points[ids[0]]);
  for (std::int64_t i = 1; i < m; ++i) {
    const double d = side(pa, pb, points[ids[i]]);
    if (d > distance) {
      distance = d;
      position = i;
    }
  }
  const id far = ids[position];
  const point pf = points[far];
  std::int64_t left = 0, right = m;  // left group scratch[0, left), right group scratch[right, m)
  for (std::int64_t i = 0; i < m; ++i) {
    const point& p = points[ids[i]];
    if (side(pa, pf, p) > 0) scratch[left++] = ids[i];
    else if (side(pf, pb, p) > 0) scratch[--right] = ids[i];
  }
  for (int pass = 0; pass < 2; ++pass) listed_points{ids}.touch(points, 0, m);
  locus::touch(scratch, static_cast<std::size_t>(left) * sizeof(id), locus::access::write);
  locus::touch(scratch + right, static_cast<std::size_t>(m - right) * sizeof(id), locus::access::write);
  locus::compute(3 * side_cycles * static_cast<std::uint64_t>(m));

  const std::int64_t k1 = serial_hull(points, scratch, ids, left, a, far);
  const std::int64_t k2 = serial_hull(points, scratch + right, ids + right, m - right, far, b);
  std::copy(scratch, scratch + k1, ids);
  ids[k1] = far;
  std::copy(scratch + right, scratch + right + k2, ids + k1 + 1);
  locus::touch(scratch, static_cast<std::size_t>(k1) * sizeof(id));
  locus::touch(scratch + right, static_cast<std::size_t>(k2) * sizeof(id));
  locus::touch(ids, static_cast<std::size_t>(k1 + 1 + k2) * sizeof(id), locus::access::write);
  locus::compute(static_cast<std::uint64_t>(k1 + 1 + k2));
  return k1 + 1 + k2;
}

template <class P>
std::int64_t parallel_hull(const point* points, id* ids, id* scratch, std::int64_t m, id a, id b, const cutoffs& c) {
  if (m <= c.serial) return serial_hull(points, ids, scratch, m, a, b);
  const id far = ids[farthest<P>(points, ids, m, points[a], points[b], c.block)];
  const auto [left, right] =
      split<P>(points, listed_points{ids}, m, points[a], points[far], points[b], scratch, c.block);
  std::int64_t k1 = 0, k2 = 0;
  P::fork2([&] { k1 = parallel_hull<P>(points, scratch, ids, left, a, far, c); },
           [&] { k2 = parallel_hull<P>(points, scratch + left, ids + left, right, far, b, c); });
  copy<P>(scratch, ids, k1, c.block);
  ids[k1] = far;
  copy<P>(scratch + left, ids + k1 + 1, k2, c.block);
  return k1 + 1 + k2;
}

// The convex hull of points[0, n): its vertices (no point in the interior of
// an edge) in clockwise order from the leftmost point, the lowest of those
// leftmost, written to out[0, k); returns k. ids, scratch and out hold n
// entries each.
template <class P>
std::int64_t quickhull(const point* points, std::int64_t n, id* ids, id* scratch, id* out, const cutoffs& c) {
  if (n == 0) return 0;
  const auto [l, r] = extremes<P>(points, n, c.block);
  const id left = static_cast<id>(l), right = static_cast<id>(r);
  out[0] = left;
  if (points[left].x == points[right].x && points[left].y == points[right].y) return 1;  // all points coincide
  // Above left->right (left of it), then below (left of right->left).
  const auto [above, below] =
      split<P>(points, all_points{}, n, points[left], points[right], points[left], ids, c.block);
  std::int64_t k1 = 0, k2 = 0;
  P::fork2([&] { k1 = parallel_hull<P>(points, ids, scratch, above, left, right, c); },
           [&] { k2 = parallel_hull<P>(points, ids + above, scratch + above, below, right, left, c); });
  copy<P>(ids, out + 1, k1, c.block);
  out[k1 + 1] = right;
  copy<P>(ids + above, out + k1 + 2, k2, c.block);
  return k1 + 2 + k2;
}

}  // namespace hull
