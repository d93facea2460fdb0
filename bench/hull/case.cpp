// hull1 and hull2: the quickhull of kernel.hpp on n random points uniformly
// inside the unit circle (most points fall inside the first triangles and
// are dropped early) and on it (nearly every point is a hull vertex, so the
// recursion goes about log n levels deep over all of them). These are
// PBBS's 2DinSphere and 2DonSphere inputs: "sphere" is the unit sphere of
// the plane.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "hull/kernel.hpp"

namespace {

// n points uniform in the unit disk, from a fixed seed: uniform in the
// square [-1, 1)^2, keeping those at distance at most 1 from the origin.
// on_circle: each is then scaled to length 1 (in floating point, so some
// land a rounding error inside the circle, as in PBBS).
std::vector<hull::point> random_points(std::int64_t n, bool on_circle) {
  std::vector<hull::point> out(static_cast<std::size_t>(n));
  std::mt19937_64 random(20110101);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (auto& p : out) {
    double length = 0.0;
    do {
      p = {uniform(random), uniform(random)};
      length = std::sqrt(p.x * p.x + p.y * p.y);
    } while (length > 1.0 || length == 0.0);
    if (on_circle) p = {p.x / length, p.y / length};
  }
  return out;
}

class hull_instance final : public bench::instance {
 public:
  hull_instance(std::int64_t n, bool on_circle, hull::cutoffs c)
      : points_(random_points(n, on_circle)),
        cutoffs_(c),
        ids_(static_cast<std::size_t>(n)),
        scratch_(static_cast<std::size_t>(n)),
        where_(static_cast<std::size_t>(n)),
        hull_(static_cast<std::size_t>(n)) {
    solve<bench::serial_backend>();
    reference_.assign(hull_.begin(), hull_.begin() + size_);
  }

  // A run must write the whole hull: clear what the last one left.
  // Block p of the points and of the index buffers on place p: the passes
  // over blocks run block p's share at place p (place_loop).
  void prepare() override {
    std::fill(hull_.begin(), hull_.begin() + static_cast<std::ptrdiff_t>(reference_.size()), -1);
    size_ = -1;
    bench::place_blocks(std::span(points_));
    bench::place_blocks(std::span(ids_));
    bench::place_blocks(std::span(scratch_));
    bench::place_blocks(std::span(where_));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { solve<P>(); });
  }

  // The hull as vertex indices, clockwise from the leftmost point: equal to
  // the serial one, index for index.
  std::string verify() override {
    std::ostringstream why;
    if (size_ != static_cast<std::int64_t>(reference_.size())) {
      why << "hull of " << size_ << " vertices, serial " << reference_.size();
      return why.str();
    }
    const auto [want, got] = std::mismatch(reference_.begin(), reference_.end(), hull_.begin());
    if (want == reference_.end()) return "";
    why << "vertex " << want - reference_.begin() << " is point " << *got << ", serial point " << *want;
    return why.str();
  }

  std::string summary() override {
    return std::to_string(points_.size()) + " points, hull of " + std::to_string(size_) + " vertices";
  }

 private:
  template <class P>
  void solve() {
    P::run([&] {
      size_ = hull::quickhull<P>(points_.data(), static_cast<std::int64_t>(points_.size()), ids_.data(),
                                 scratch_.data(), where_.data(), hull_.data(), cutoffs_);
    });
  }

  std::vector<hull::point> points_;
  hull::cutoffs cutoffs_;
  std::vector<hull::id> ids_, scratch_;
  std::vector<std::uint8_t> where_;
  std::vector<hull::id> hull_, reference_;
  std::int64_t size_ = -1;
};

std::unique_ptr<bench::instance> make(bench::size_class s, bench::params& p, bool on_circle,
                                      std::int64_t quick_n) {
  const auto n = p.get("n", 20'000, quick_n, 100'000'000, s,
                       "points (full: the paper's 100000k; 1.6 GB of points and 1.3 GB of index buffers; "
                       "32-bit point indices)",
                       {0, INT32_MAX});
  const auto cutoff = p.get("cutoff", 256, 10'000, 10'000, s,
                            "groups of at most this many points are solved serially (paper: 10k)", {0});
  const auto block = p.get("block", 64, 2048, 2048, s, "points per piece of the parallel passes", {1});
  return std::make_unique<hull_instance>(n, on_circle, hull::cutoffs{cutoff, block});
}

const char* const source =
    "NUMA-WS (seed 000), section V, Figure 7: hull1 and hull2, 100000k points, base case 10k (PBBS quickHull; "
    "inputs PBBS 2DinSphere / 2DonSphere)";

const bench::registrar in_circle{{
    "hull1",
    source,
    "Quickhull on points uniform inside the unit circle: the farthest point from each edge becomes a vertex, "
    "the points outside the two new edges are packed in parallel (count, prefix sum, scatter) and both sides "
    "recurse in parallel; most points are dropped in the first steps.",
    false,
    [](bench::size_class s, bench::params& p) { return make(s, p, false, 5'000'000); }}};

const bench::registrar on_circle{{
    "hull2",
    source,
    "Quickhull on points on the unit circle: nearly every point is a hull vertex, so about log n levels of "
    "parallel packs run over nearly all points (the paper's costlier input).",
    false,
    [](bench::size_class s, bench::params& p) { return make(s, p, true, 1'000'000); }}};

}  // namespace
