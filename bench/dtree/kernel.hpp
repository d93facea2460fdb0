// Decision tree construction (CART, binary labels, Gini impurity), the
// Decision Tree benchmark of ADWS (seed 003, section 2.1, Fig. 1, and
// section 6.2). At each node, for every feature, a histogram of the node's
// rows over fixed quantile bins (per label) is built by a parallel
// reduction; the best split is the feature and bin boundary of lowest
// weighted Gini impurity; if it lowers the impurity, a double-buffered
// parallel partition over blocks (as Quicksort's) moves the rows on each
// side together, and both sides are built in parallel with their row counts
// as work hints. A node stops at the maximum depth, below `min_rows` rows,
// or when no split helps; it then predicts its majority label.
//
// The tree is stored by heap index (root 1, children 2 i and 2 i + 1), so
// parallel builds write disjoint nodes and need no allocation.
//
// For the simulator (README.md) every step declares what it reads and
// writes; cycles: per row histogrammed, a binary search over the bin
// boundaries of every feature (ceil(log2 bins) + 1 each); per histogram
// merged, one per counter; per split evaluated, 8 per bin and feature; per
// row partitioned, one.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/backend.hpp"
#include "common/block_partition.hpp"
#include "common/places.hpp"

namespace dtree {

inline constexpr int features = 28;  // as the HIGGS data set

struct row {
  float x[features];
  std::int32_t label;  // 0 or 1
};

// The candidate thresholds: for feature f, boundary[f * (bins - 1) + j] is
// the j-th of its bins - 1 increasing bin boundaries (quantiles of the
// data). A value v falls in bin lower_bound(boundaries, v), so
// "v <= boundary j" is "bin <= j".
struct binning {
  int bins;
  std::vector<float> boundary;
  const float* of(int f) const { return boundary.data() + static_cast<std::size_t>(f) * (bins - 1); }
  // lower_bound without branches on the data (the halving compiles to a
  // conditional move): the comparisons of random values would mispredict.
  int bin(int f, float v) const {
    const float* const first = of(f);
    const float* base = first;
    std::size_t n = static_cast<std::size_t>(bins - 1);  // at least 1
    while (n > 1) {
      const std::size_t half = n / 2;
      base = base[half] < v ? base + half : base;
      n -= half;
    }
    return static_cast<int>(base - first) + (*base < v ? 1 : 0);
  }
};

struct shape {
  int max_depth;         // the root has depth 0; nodes at max_depth are leaves
  std::int64_t min_rows; // fewer rows: a leaf
  std::int64_t serial;   // at most this many rows: built without forks or parallel loops
  std::int64_t grain;    // rows per histogram piece and per partition block
  bool hints;            // the sides' row counts as work hints
};

// A node of the tree, by heap index. feature < 0: a leaf (or, with
// `absent`, no node at all).
struct node {
  static constexpr std::int32_t leaf = -1, absent = -2;
  std::int32_t feature = absent;
  std::int32_t bin = 0;        // split: rows with bin <= this go left
  float threshold = 0;         // split: the boundary of that bin
  std::int32_t label = 0;      // leaf: the majority label (ties: 0)
  std::int64_t rows = 0;       // rows that reached the node
};

// Slots of the heap for a tree of the given depth.
inline std::size_t heap_size(int max_depth) { return std::size_t{2} << max_depth; }

// count[(f * bins + b) * 2 + label]: rows of the node with feature f in bin b.
using histogram = std::vector<std::uint32_t>;
inline std::size_t counters(const binning& b) { return static_cast<std::size_t>(features) * b.bins * 2; }

template <class P>
void fill(const row* rows, std::int64_t n, const binning& b, const shape& c, std::uint32_t* out) {
  if (n <= c.grain || std::is_same_v<P, bench::serial_backend>) {
    const std::int64_t search = std::bit_width(static_cast<unsigned>(b.bins)) + 1;
    bench::touch_n(rows, n, locus::access::read);
    bench::touch_n(out, static_cast<std::int64_t>(counters(b)), locus::access::write);
    locus::compute(static_cast<std::uint64_t>(n * features * search));
    for (const row* r = rows; r != rows + n; ++r)
      for (int f = 0; f < features; ++f) ++out[(static_cast<std::size_t>(f) * b.bins + b.bin(f, r->x[f])) * 2 + r->label];
    return;
  }
  // Halves of whole grains, so that the pieces do not depend on the backend.
  const std::int64_t half = (n / c.grain + 1) / 2 * c.grain;
  histogram right(counters(b), 0);
  auto first = [&] { fill<P>(rows, half, b, c, out); };
  auto second = [&] { fill<P>(rows + half, n - half, b, c, right.data()); };
  // Each half's working set: its rows and a histogram.
  const std::size_t hist = counters(b) * sizeof(std::uint32_t);
  bench::fork_split<P>(c.hints, half, sizeof(row) * static_cast<std::size_t>(half) + hist, first, n - half,
                       sizeof(row) * static_cast<std::size_t>(n - half) + hist, second);
  bench::touch_n(right.data(), static_cast<std::int64_t>(right.size()), locus::access::read);
  bench::touch_n(out, static_cast<std::int64_t>(right.size()), locus::access::write);
  locus::compute(right.size());
  for (std::size_t i = 0; i < right.size(); ++i) out[i] += right[i];
}

// Weighted Gini impurity n (1 - p0^2 - p1^2) of a side with these counts.
inline double gini(double zeros, double ones) {
  const double n = zeros + ones;
  return n == 0 ? 0.0 : n - (zeros * zeros + ones * ones) / n;
}

struct split {
  int feature = -1;  // none found
  int bin = 0;
  double impurity = 0;
  std::int64_t left = 0;
};

// The lowest impurity over all features and boundaries with rows on both
// sides; ties go to the lower feature, then the lower boundary.
inline split best_split(const histogram& h, const binning& b, std::int64_t n) {
  locus::compute(static_cast<std::uint64_t>(8 * features * b.bins));
  split best;
  for (int f = 0; f < features; ++f) {
    const std::uint32_t* count = h.data() + static_cast<std::size_t>(f) * b.bins * 2;
    double total0 = 0, total1 = 0;
    for (int j = 0; j < b.bins; ++j) {
      total0 += count[2 * j];
      total1 += count[2 * j + 1];
    }
    double left0 = 0, left1 = 0;
    for (int j = 0; j + 1 < b.bins; ++j) {
      left0 += count[2 * j];
      left1 += count[2 * j + 1];
      const auto left = static_cast<std::int64_t>(left0 + left1);
      if (left == 0 || left == n) continue;
      const double impurity = gini(left0, left1) + gini(total0 - left0, total1 - left1);
      if (best.feature < 0 || impurity < best.impurity) best = {f, j, impurity, left};
    }
  }
  return best;
}

// Builds the subtree at heap index `at` from the n rows in `from`; `to` is
// the same range of the other buffer (the rows may end in either).
template <class P>
void build(row* from, row* to, std::int64_t n, int depth, std::size_t at, const binning& b, const shape& c,
           node* tree) {
  if constexpr (!std::is_same_v<P, bench::serial_backend>) {
    if (n <= c.serial) return build<bench::serial_backend>(from, to, n, depth, at, b, c, tree);
  }
  histogram h(counters(b), 0);
  fill<P>(from, n, b, c, h.data());
  std::int64_t ones = 0;  // feature 0's bins hold every row once
  for (int j = 0; j < b.bins; ++j) ones += h[2 * static_cast<std::size_t>(j) + 1];
  // The node's 24 bytes are not declared: next to the histogram's traffic
  // they cost nothing, and declared they made simulated runs differ between
  // processes (see README.md).
  node& self = tree[at];
  self.rows = n;
  self.label = 2 * ones > n ? 1 : 0;
  self.feature = node::leaf;
  if (depth >= c.max_depth || n < c.min_rows || ones == 0 || ones == n) return;
  const split s = best_split(h, b, n);
  // "Splitting is beneficial" (Fig. 1, line 6): the impurity must drop by
  // more than rounding (the parent's impurity is gini(n - ones, ones)).
  const double before = gini(static_cast<double>(n - ones), static_cast<double>(ones));
  if (s.feature < 0 || !(s.impurity < before - 1e-9 * static_cast<double>(n))) return;
  self.feature = s.feature;
  self.bin = s.bin;
  self.threshold = b.of(s.feature)[s.bin];

  const int f = s.feature;
  const float threshold = self.threshold;
  // Side 0: <= the threshold, side 1: greater.
  auto side = [f, threshold](const row& r) { return r.x[f] <= threshold ? 0 : 1; };
  bench::block_partition<2, row> part(from, n, c.grain, 1);
  part.count<P>(side);
  part.scatter<P>(to, side);
  const std::int64_t left_total = part.size(0);

  const std::int64_t right_total = n - left_total;
  auto build_left = [&] { build<P>(to, from, left_total, depth + 1, 2 * at, b, c, tree); };
  auto build_right = [&] {
    build<P>(to + left_total, from + left_total, right_total, depth + 1, 2 * at + 1, b, c, tree);
  };
  // Each side's working set: its rows in both buffers.
  bench::fork_split<P>(c.hints, left_total, 2 * sizeof(row) * static_cast<std::size_t>(left_total), build_left,
                       right_total, 2 * sizeof(row) * static_cast<std::size_t>(right_total), build_right);
}

// The label the tree predicts for r.
inline std::int32_t predict(const node* tree, const row& r) {
  std::size_t at = 1;
  while (tree[at].feature >= 0) at = 2 * at + (r.x[tree[at].feature] <= tree[at].threshold ? 0 : 1);
  return tree[at].label;
}

}  // namespace dtree
