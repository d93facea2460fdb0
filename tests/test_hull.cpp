// The quickhull kernel of bench/hull: its hull has the vertices Andrew's
// monotone chain finds, clockwise from the leftmost point, on random and
// degenerate inputs, and the locus backend gives the serial hull index for
// index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/locus_backend.hpp"
#include "hull/kernel.hpp"

namespace {

using hull::id;
using hull::point;

template <class P>
std::vector<id> quickhull(const std::vector<point>& points, hull::cutoffs c) {
  const auto n = static_cast<std::size_t>(points.size());
  std::vector<id> ids(n), scratch(n), out(n);
  std::vector<std::uint8_t> where(n);
  std::int64_t k = 0;
  P::run([&] {
    k = hull::quickhull<P>(points.data(), static_cast<std::int64_t>(n), ids.data(), scratch.data(), where.data(),
                           out.data(), c);
  });
  out.resize(static_cast<std::size_t>(k));
  return out;
}

// Andrew's monotone chain with strict turns: the hull's vertices, without
// points inside edges and with one of each set of equal points.
std::vector<id> monotone_chain(const std::vector<point>& p) {
  std::vector<id> order(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) order[i] = static_cast<id>(i);
  auto less = [&](id a, id b) { return p[a].x < p[b].x || (p[a].x == p[b].x && p[a].y < p[b].y); };
  auto same = [&](id a, id b) { return p[a].x == p[b].x && p[a].y == p[b].y; };
  std::stable_sort(order.begin(), order.end(), less);
  order.erase(std::unique(order.begin(), order.end(), same), order.end());
  if (order.size() < 3) return order;
  std::vector<id> chain;
  auto add = [&](id j, std::size_t floor) {
    while (chain.size() >= floor + 2 &&
           hull::side(p[chain[chain.size() - 2]], p[chain.back()], p[j]) <= 0)
      chain.pop_back();
    chain.push_back(j);
  };
  for (id j : order) add(j, 0);
  const std::size_t lower = chain.size() - 1;
  for (auto j = order.rbegin() + 1; j != order.rend(); ++j) add(*j, lower);
  chain.pop_back();
  return chain;
}

std::set<std::pair<double, double>> coordinates(const std::vector<point>& p, const std::vector<id>& ids) {
  std::set<std::pair<double, double>> out;
  for (id j : ids) out.insert({p[j].x, p[j].y});
  return out;
}

// The hull's vertices are those of the monotone chain, each once, in
// clockwise order from the leftmost (then lowest) point.
void expect_hull(const std::vector<point>& p, hull::cutoffs c) {
  const std::vector<id> h = quickhull<bench::serial_backend>(p, c);
  const std::vector<id> want = monotone_chain(p);
  ASSERT_EQ(h.size(), want.size());
  EXPECT_EQ(coordinates(p, h), coordinates(p, want));
  if (h.empty()) return;
  for (const point& q : p) EXPECT_FALSE(q.x < p[h[0]].x || (q.x == p[h[0]].x && q.y < p[h[0]].y));
  if (h.size() < 3) return;
  for (std::size_t i = 0; i < h.size(); ++i)
    EXPECT_LT(hull::side(p[h[i]], p[h[(i + 1) % h.size()]], p[h[(i + 2) % h.size()]]), 0.0) << "at vertex " << i;
}

std::vector<point> random_points(std::size_t n, bool on_circle, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<point> out(n);
  for (auto& q : out) {
    double length = 0.0;
    do {
      q = {uniform(random), uniform(random)};
      length = std::sqrt(q.x * q.x + q.y * q.y);
    } while (length > 1.0 || length == 0.0);
    if (on_circle) q = {q.x / length, q.y / length};
  }
  return out;
}

// Serial steps only, parallel packs down to groups of 3 with blocks of 2,
// and the suite's tiny and quick settings.
const hull::cutoffs settings[] = {{1'000'000, 2048}, {3, 2}, {256, 64}, {10'000, 2048}};

TEST(Hull, RandomPointsInADisk) {
  for (std::size_t n : {1, 2, 3, 5, 100, 10'000, 200'000})
    for (const auto& c : settings) expect_hull(random_points(n, false, n), c);
}

TEST(Hull, DegenerateInputs) {
  std::vector<std::vector<point>> inputs;
  inputs.push_back({});
  inputs.push_back(std::vector<point>(500, {0.5, 0.5}));  // all equal
  std::vector<point> line, vertical, grid, square;
  for (int i = 0; i < 500; ++i) {
    line.push_back({static_cast<double>(i % 37), 2.0 * (i % 37)});
    vertical.push_back({0.0, static_cast<double>(i % 13)});
    grid.push_back({static_cast<double>(i % 10), static_cast<double>(i % 7)});  // edges full of points
    square.push_back({static_cast<double>(i % 3), static_cast<double>(i / 3 % 3)});
  }
  for (const auto& p : {line, vertical, grid, square}) inputs.push_back(p);
  // The points farthest from the first edge lie on an edge parallel to it,
  // its inner points met first: only its ends are vertices.
  std::vector<point> parallel = {{0, 0}, {8, 0}};
  for (int x : {4, 2, 6, 3, 5, 1, 7}) parallel.push_back({static_cast<double>(x), 1.0});
  inputs.push_back(parallel);
  for (const auto& p : inputs)
    for (const auto& c : settings) expect_hull(p, c);
}

TEST(Hull, LocusBackendGivesTheSerialHull) {
  for (int workers : {1, 2, 3}) {
    locus::runtime_options o;
    o.workers = workers;
    locus::runtime rt(o);
    for (bool on_circle : {false, true})
      for (const auto& c : {hull::cutoffs{3, 2}, hull::cutoffs{256, 64}}) {
        const auto p = random_points(100'000, on_circle, 7);
        EXPECT_EQ(quickhull<bench::locus_backend>(p, c), quickhull<bench::serial_backend>(p, c))
            << workers << " workers, on_circle " << on_circle;
      }
  }
}

}  // namespace
