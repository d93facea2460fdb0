// KDTree in the suite: n random 3-D points (fixed seed) arranged into a KD
// tree by the kernel. Every run is checked twice: the tree must be a valid
// KD tree (a walk from the root), and it must be the serial build's tree
// (same splits, same point order: the algorithm is deterministic), compared
// by a checksum of its nodes and point for point.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "kdtree/kernel.hpp"

namespace {

using kdtree::point;

std::vector<point> random_points(std::int64_t n, std::uint64_t seed) {
  std::vector<point> out(static_cast<std::size_t>(n));
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (auto& p : out)
    for (double& x : p.c) x = uniform(random);
  return out;
}

bool same_point(const point& a, const point& b) {
  return std::bit_cast<std::uint64_t>(a.c[0]) == std::bit_cast<std::uint64_t>(b.c[0]) &&
         std::bit_cast<std::uint64_t>(a.c[1]) == std::bit_cast<std::uint64_t>(b.c[1]) &&
         std::bit_cast<std::uint64_t>(a.c[2]) == std::bit_cast<std::uint64_t>(b.c[2]);
}

std::string show(const point& p) {
  std::ostringstream s;
  s.precision(17);
  s << "(" << p.c[0] << ", " << p.c[1] << ", " << p.c[2] << ")";
  return s.str();
}

// The tree read back from the points and slots: checks every node's
// invariants and folds the nodes (in preorder) into a checksum.
class tree_walk {
 public:
  tree_walk(const point* points, const double* split, const std::int32_t* level, std::int64_t leaf)
      : points_(points), split_(split), level_(level), leaf_(leaf) {}

  // "" if [0, n) is a valid KD tree, else the first violation.
  std::string check(std::int64_t n) {
    if (n > 0 && level_[0] != kdtree::no_split) return "slot 0 records a split (no node splits at its first point)";
    node(0, n, 0);
    return error_;
  }
  std::uint64_t checksum() const { return hash_; }
  int height() const { return height_; }
  std::int64_t leaves() const { return leaves_; }

 private:
  void mix(std::uint64_t x) {
    // FNV-1a over the 8 bytes of x.
    for (int b = 0; b < 8; ++b) hash_ = (hash_ ^ ((x >> (8 * b)) & 0xff)) * 0x100000001b3ULL;
  }
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    return false;
  }

  bool node(std::int64_t lo, std::int64_t hi, int depth) {
    height_ = std::max(height_, depth);
    const int axis = depth % 3;
    // The node's split is the one slot in (lo, hi) at its depth; every other
    // slot there belongs to a descendant, deeper.
    std::int64_t m = -1;
    for (std::int64_t i = lo + 1; i < hi; ++i) {
      const std::int32_t l = level_[i];
      if (l == kdtree::no_split || l > depth) continue;
      if (l == depth && m < 0) {
        m = i;
        continue;
      }
      std::ostringstream s;
      s << "slot " << i << " records a split at depth " << l << " inside the node [" << lo << ", " << hi
        << ") of depth " << depth << (l == depth ? ", whose split is already at slot " + std::to_string(m) : "");
      return fail(s.str());
    }
    if (m < 0) {
      ++leaves_;
      mix(static_cast<std::uint64_t>(lo));
      mix(static_cast<std::uint64_t>(hi));
      if (hi - lo < leaf_) return true;
      // A leaf this large only when the pivot splits nothing off.
      const double pivot =
          kdtree::median_of_three(points_[lo].c[axis], points_[lo + 1].c[axis], points_[lo + 2].c[axis]);
      for (std::int64_t i = lo; i < hi; ++i)
        if (points_[i].c[axis] > pivot) {
          std::ostringstream s;
          s << "the leaf [" << lo << ", " << hi << ") holds " << hi - lo << " points (>= the leaf size " << leaf_
            << ") and its pivot " << pivot << " would split it";
          return fail(s.str());
        }
      return true;
    }
    const double value = split_[m];
    mix(static_cast<std::uint64_t>(m));
    mix(static_cast<std::uint64_t>(depth));
    mix(std::bit_cast<std::uint64_t>(value));
    if (hi - lo < leaf_) {
      std::ostringstream s;
      s << "the node [" << lo << ", " << hi << ") splits with fewer points than the leaf size " << leaf_;
      return fail(s.str());
    }
    for (std::int64_t i = lo; i < hi; ++i) {
      const double x = points_[i].c[axis];
      if (i < m ? x <= value : x > value) continue;
      std::ostringstream s;
      s.precision(17);
      s << "point " << i << " " << show(points_[i]) << " is on the " << (i < m ? "left" : "right")
        << " of the node [" << lo << ", " << hi << ") that splits axis " << axis << " at " << value
        << " (left: <=, right: >)";
      return fail(s.str());
    }
    return node(lo, m, depth + 1) && node(m, hi, depth + 1);
  }

  const point* points_;
  const double* split_;
  const std::int32_t* level_;
  std::int64_t leaf_;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  int height_ = 0;
  std::int64_t leaves_ = 0;
  std::string error_;
};

class kdtree_instance final : public bench::instance {
 public:
  kdtree_instance(std::int64_t n, kdtree::shape s)
      : shape_(s),
        input_(random_points(n, 20210817)),
        data_(input_.size()),
        scratch_(input_.size()),
        split_(input_.size()),
        level_(input_.size()),
        expected_(input_.size()) {
    // The serial build once: its points and checksum are what every run
    // must give. It is checked here like the runs, and also for holding
    // each input point exactly once (the runs then must equal it).
    prepare();
    build<bench::serial_backend>();
    tree_walk walk(data_.data(), split_.data(), level_.data(), shape_.leaf);
    if (const auto error = walk.check(n); !error.empty())
      throw std::logic_error("kdtree: the serial build is not a valid KD tree: " + error);
    expected_ = data_;
    auto lexicographic = [](const point& a, const point& b) {
      return std::lexicographical_compare(a.c, a.c + 3, b.c, b.c + 3);
    };
    std::vector<point> built = data_, given = input_;
    std::sort(built.begin(), built.end(), lexicographic);
    std::sort(given.begin(), given.end(), lexicographic);
    if (!std::equal(built.begin(), built.end(), given.begin(), same_point))
      throw std::logic_error("kdtree: the serial build lost or duplicated points");
    checksum_ = walk.checksum();
    height_ = walk.height();
    leaves_ = walk.leaves();
  }

  void prepare() override {
    std::copy(input_.begin(), input_.end(), data_.begin());
    std::fill(level_.begin(), level_.end(), kdtree::no_split);
    // Every array in the variant's data layout (bench::place_blocks).
    bench::place_blocks(std::span(data_));
    bench::place_blocks(std::span(scratch_));
    bench::place_blocks(std::span(split_));
    bench::place_blocks(std::span(level_));
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { P::run([&] { build<P>(); }); });
  }
  std::string verify() override {
    const auto n = static_cast<std::int64_t>(data_.size());
    tree_walk walk(data_.data(), split_.data(), level_.data(), shape_.leaf);
    if (auto error = walk.check(n); !error.empty()) return "not a KD tree: " + error;
    if (walk.checksum() != checksum_ || walk.height() != height_) {
      std::ostringstream s;
      s << "tree checksum " << std::hex << walk.checksum() << " (height " << std::dec << walk.height()
        << "), the serial build's " << std::hex << checksum_ << " (height " << std::dec << height_ << ")";
      return s.str();
    }
    const auto [got, want] = std::mismatch(data_.begin(), data_.end(), expected_.begin(), same_point);
    if (got == data_.end()) return "";
    return "point " + std::to_string(got - data_.begin()) + " is " + show(*got) + ", the serial build has " +
           show(*want);
  }
  std::string summary() override {
    return "KD tree of " + std::to_string(data_.size()) + " points, height " + std::to_string(height_) + ", " +
           std::to_string(leaves_) + " leaves";
  }

 private:
  template <class P>
  void build() {
    kdtree::build<P>(data_.data(), scratch_.data(), static_cast<std::int64_t>(data_.size()), 0, true,
                     kdtree::slots{split_.data(), level_.data()}, shape_);
  }

  kdtree::shape shape_;
  std::vector<point> input_, data_, scratch_;
  std::vector<double> split_;
  std::vector<std::int32_t> level_;
  std::vector<point> expected_;
  std::uint64_t checksum_ = 0;
  int height_ = 0;
  std::int64_t leaves_ = 0;
};

const bench::registrar registered{{
    "kdtree",
    "ADWS (seed 003), section 6.2 (KDTree; largest working set 2.0 GB, Fig. 20b)",
    "KD-tree construction over random 3-D points: each node splits on x, y, z in turn at the median of its first "
    "three points, with a parallel double-buffered partition over blocks; both sides are built in parallel with "
    "their point counts as work hints.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 20'000, 4'000'000, 44'739'242, s,
                           "3-D points of 24 bytes (full: 2^30 / 24 = 1 GB, a 2 GB working set with the second "
                           "buffer, as the paper's largest)",
                           {0, 2'000'000'000});
      const auto leaf = p.get("leaf", 32, 170, 170, s,
                              "ranges with fewer points stay leaves (170 points = the paper's 4 KB)", {3});
      const auto serial = p.get("serial", 512, 2730, 2730, s,
                                "at most this many points are built without forks (2730 points = the paper's 64 KB)",
                                {0});
      const auto block = p.get("block", 20000, 2730, 2730, s,
                               "points per partition block (2730 points = the paper's 64 KB)", {1});
      const auto hints = p.get("hints", 1, 1, 1, s,
                               "1: each side's point count is its work hint (the paper's), 0: none (ADWS guesses "
                               "1 : 1, Fig. 20's hatched bars)",
                               {0, 1});
      return std::make_unique<kdtree_instance>(n, kdtree::shape{leaf, serial, block, hints == 1});
    }}};

}  // namespace
