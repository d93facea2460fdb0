// streamcluster: online k-median clustering of a stream of points, as
// PARSEC's streamcluster computes it (the local search of Guha, Meyerson,
// Mishra, Motwani and O'Callaghan, "Clustering data streams"): the points
// arrive in chunks; each chunk is clustered into kmin..kmax centers, whose
// weights are the points they serve; the centers of all chunks are
// clustered once more at the end.
//
// Clustering one set of points (pkmedian) is a search over the facility
// cost z: speedy() opens centers at random (point i with probability
// cost_i / z), then local_search() asks gain(x) of candidate points x, and
// z is bisected until the number of centers falls in kmin..kmax. gain(x) is
// the hot loop, one pass over all points per candidate: every point computes
// its distance to x; points closer to x would switch to it, and the others
// say how much closing their own center would cost. A reduction over the
// partitions then decides whether opening x (and closing the centers that
// are no longer worth their z) lowers the total cost; if it does, a second
// pass moves the points.
//
// Every pass runs one task per partition (bench::partition_tasks: the
// paper's port uses the task scheduler directly, table 2 "none"); the
// decisions between passes (random draws, the reduction, bisection) run in
// the coordinator, the task that spawned them, as PARSEC's thread 0 makes
// them between barriers. Each partition writes its partial sums to its own
// slot and the coordinator adds them in partition order, so the result does
// not depend on which worker ran what: every variant gives the serial run's
// centers bit for bit.
//
// For the simulator every pass declares the ranges of the point arrays it
// reads and writes and 2 cycles per coordinate of a distance (a subtraction
// and a multiply-add); README.md has the whole model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/partition_tasks.hpp"
#include "common/splitmix64.hpp"

namespace streamcluster {

// A set of points, one array per field (PARSEC's Point: weight, coordinates,
// assigned center, cost). The arrays belong to the caller.
struct point_set {
  std::int64_t n = 0;
  std::int64_t dim = 0;
  float* coord = nullptr;         // n x dim
  float* weight = nullptr;        // how many stream points this point stands for
  float* cost = nullptr;          // weight x squared distance to its center
  std::int64_t* assign = nullptr;  // its center (a point index)
  float* x_cost = nullptr;        // gain()'s scratch: weight x squared distance to the candidate
  std::int32_t* slot = nullptr;   // a center's position in the center list, -1 for other points
};

// The settings of PARSEC's pkmedian.
struct search_settings {
  std::int64_t kmin;
  std::int64_t kmax;
  int parts;  // partitions, one task each per pass
};

// The coordinator's random draws: a fixed seed per run, so every variant
// draws the same numbers.
using random_stream = bench::splitmix64;

// The passes over points [lo, hi). Out of line, so that there is one copy of
// the floating-point code for every backend (the same instructions, the
// same bits); a call per partition and pass costs nothing.
namespace pass {

inline float distance2(const float* a, const float* b, std::int64_t dim) {
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t d = 0; d < dim; ++d) {
    const float t = a[d] - b[d];
    sum += t * t;
  }
  return sum;
}

// The coordinates of [lo, hi) and of point x, read.
inline void touch_coords(const point_set& s, std::int64_t x, std::int64_t lo, std::int64_t hi) {
  bench::touch_n(s.coord + lo * s.dim, (hi - lo) * s.dim, locus::access::read);
  bench::touch_n(s.coord + x * s.dim, s.dim, locus::access::read);
  locus::compute(static_cast<std::uint64_t>(2 * (hi - lo) * s.dim));
}

// Sum of weight x squared distance to point x (PARSEC's hiz).
[[gnu::noinline]] inline double total_distance(const point_set& s, std::int64_t x, std::int64_t lo, std::int64_t hi) {
  touch_coords(s, x, lo, hi);
  bench::touch_n(s.weight + lo, hi - lo, locus::access::read);
  double sum = 0.0;
  for (std::int64_t i = lo; i < hi; ++i) sum += s.weight[i] * distance2(s.coord + i * s.dim, s.coord + x * s.dim, s.dim);
  return sum;
}

// Every point served by x, the first center of speedy(); the slots cleared.
[[gnu::noinline]] inline void serve_all_by(const point_set& s, std::int64_t x, std::int64_t lo, std::int64_t hi) {
  touch_coords(s, x, lo, hi);
  bench::touch_n(s.weight + lo, hi - lo, locus::access::read);
  bench::touch_n(s.cost + lo, hi - lo, locus::access::write);
  bench::touch_n(s.assign + lo, hi - lo, locus::access::write);
  bench::touch_n(s.slot + lo, hi - lo, locus::access::write);
  for (std::int64_t i = lo; i < hi; ++i) {
    s.cost[i] = s.weight[i] * distance2(s.coord + i * s.dim, s.coord + x * s.dim, s.dim);
    s.assign[i] = x;
    s.slot[i] = -1;
  }
}

// x opens: the points closer to it than to their center move to it.
[[gnu::noinline]] inline void open_center(const point_set& s, std::int64_t x, std::int64_t lo, std::int64_t hi) {
  touch_coords(s, x, lo, hi);
  bench::touch_n(s.weight + lo, hi - lo, locus::access::read);
  bench::touch_n(s.cost + lo, hi - lo, locus::access::write);
  bench::touch_n(s.assign + lo, hi - lo, locus::access::write);
  for (std::int64_t i = lo; i < hi; ++i) {
    const float d = s.weight[i] * distance2(s.coord + i * s.dim, s.coord + x * s.dim, s.dim);
    if (d < s.cost[i]) {
      s.cost[i] = d;
      s.assign[i] = x;
    }
  }
}

[[gnu::noinline]] inline double total_cost(const point_set& s, std::int64_t lo, std::int64_t hi) {
  bench::touch_n(s.cost + lo, hi - lo, locus::access::read);
  locus::compute(static_cast<std::uint64_t>(hi - lo));
  double sum = 0.0;
  for (std::int64_t i = lo; i < hi; ++i) sum += s.cost[i];
  return sum;
}

// PARSEC's pgain, first half, for one partition. Returns the partition's
// share of the cost of opening x: what the points that would switch to x
// save (negative). lower[c] gets, for center c (its slot), what its points
// that stay would pay more if c closed and they had to go to x (negative or
// zero); the coordinator adds z to their sum to see whether c is worth
// keeping. The points' costs towards x are kept in x_cost for the commit.
// The lookups slot[assign[i]] fall on the few centers' entries, which stay
// in cache, and are not declared.
[[gnu::noinline]] inline double gain(const point_set& s, std::int64_t x, double* lower, std::int64_t centers,
                                     std::int64_t lo, std::int64_t hi) {
  touch_coords(s, x, lo, hi);
  bench::touch_n(s.weight + lo, hi - lo, locus::access::read);
  bench::touch_n(s.cost + lo, hi - lo, locus::access::read);
  bench::touch_n(s.assign + lo, hi - lo, locus::access::read);
  bench::touch_n(s.x_cost + lo, hi - lo, locus::access::write);
  bench::touch_n(lower, centers, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(2 * (hi - lo)));  // a compare and an add per point
  std::fill(lower, lower + centers, 0.0);
  double opening = 0.0;
  for (std::int64_t i = lo; i < hi; ++i) {
    const float to_x = s.weight[i] * distance2(s.coord + i * s.dim, s.coord + x * s.dim, s.dim);
    s.x_cost[i] = to_x;
    if (to_x < s.cost[i]) opening += static_cast<double>(to_x) - s.cost[i];
    else lower[s.slot[s.assign[i]]] += static_cast<double>(s.cost[i]) - to_x;
  }
  return opening;
}

// PARSEC's pgain, second half: x opens and the centers marked in `closing`
// (by slot) close; a point moves to x if it is closer to x or its center
// closes.
[[gnu::noinline]] inline void commit(const point_set& s, std::int64_t x, const char* closing, std::int64_t lo,
                                     std::int64_t hi) {
  bench::touch_n(s.x_cost + lo, hi - lo, locus::access::read);
  bench::touch_n(s.cost + lo, hi - lo, locus::access::write);
  bench::touch_n(s.assign + lo, hi - lo, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(hi - lo));
  for (std::int64_t i = lo; i < hi; ++i)
    if (s.x_cost[i] < s.cost[i] || closing[s.slot[s.assign[i]]]) {
      s.cost[i] = s.x_cost[i];
      s.assign[i] = x;
    }
}

}  // namespace pass

// One pkmedian over a point set with backend P: the coordinator's state
// (random draws, center list, the partitions' partial sums) and its steps.
template <class P>
class clusterer {
 public:
  clusterer(point_set s, search_settings settings, random_stream& random)
      : s_(s), settings_(settings), random_(random), partial_(static_cast<std::size_t>(settings.parts)) {}

  // Clusters the set; afterwards assign[i] is point i's center, and the
  // centers are the points whose slot is >= 0 (each assigned to itself).
  // Returns the number of centers.
  std::int64_t run() {
    const std::int64_t n = s_.n;
    // z starts halfway between 0 and the cost of one center at point 0.
    double hiz = sum_over_parts([&](std::int64_t lo, std::int64_t hi) { return pass::total_distance(s_, 0, lo, hi); });
    double loz = 0.0;
    double z = (hiz + loz) / 2.0;
    if (n <= settings_.kmax) {
      // Few enough points: each is a center.
      centers_.clear();
      for (std::int64_t i = 0; i < n; ++i) {
        s_.assign[i] = i;
        s_.cost[i] = 0.0f;
        s_.slot[i] = static_cast<std::int32_t>(i);
        centers_.push_back(i);
      }
      return n;
    }
    order_.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = i;

    // Speedy until it opens at least kmin centers: two tries per z, then
    // z is taken as too high and halved towards loz.
    double cost = 0.0;
    for (int tries = 1;; ++tries) {
      random_.shuffle(order_);
      cost = speedy(z);
      if (k() >= settings_.kmin) break;
      if (tries == 2) {
        hiz = z;
        z = (hiz + loz) / 2.0;
        tries = 0;
      }
    }

    // Bisection of z around local search, until kmin <= k <= kmax or z
    // cannot move any more.
    select_feasible();
    const auto kmax = static_cast<double>(settings_.kmax), kmin = static_cast<double>(settings_.kmin);
    const auto iterations = static_cast<std::int64_t>(search_rounds * kmax * std::log(kmax));
    for (;;) {
      cost = local_search(z, cost, iterations, 0.1);
      const double k_now = static_cast<double>(k());
      // Close to the range: search harder before moving z.
      if ((k_now <= 1.1 * kmax && k_now >= 0.9 * kmin) || (k_now <= kmax + 2 && k_now >= kmin - 2))
        cost = local_search(z, cost, iterations, 0.001);
      if (k() > settings_.kmax) {  // centers too cheap
        loz = z;
        z = (hiz + loz) / 2.0;
        cost += (z - loz) * static_cast<double>(k());
      }
      if (k() < settings_.kmin) {  // centers too dear
        hiz = z;
        z = (hiz + loz) / 2.0;
        cost += (z - hiz) * static_cast<double>(k());
      }
      if ((k() <= settings_.kmax && k() >= settings_.kmin) || loz >= 0.999 * hiz) break;
    }
    return k();
  }

  // How many times gain() ran, and how many of them opened their candidate.
  std::int64_t gains() const { return gains_; }
  std::int64_t opened() const { return opened_; }

 private:
  // PARSEC's ITER: local search tries ITER kmax ln(kmax) candidates per
  // round, from ITER kmin ln(kmin) feasible points.
  static constexpr double search_rounds = 3.0;

  std::int64_t k() const { return static_cast<std::int64_t>(centers_.size()); }

  // body(part, lo, hi) for every partition, one task each (an empty
  // partition too: it then writes its zero partial sums).
  template <class Body>
  void for_parts(Body&& body) {
    const int parts = settings_.parts;
    bench::partition_tasks<P>(parts, [&](int part) {
      const bench::partition_range r(s_.n, part, parts);
      body(part, r.begin, r.end);
    });
  }
  // The sum of body(lo, hi) over the partitions, added in partition order.
  template <class Body>
  double sum_over_parts(Body&& body) {
    for_parts([&](int part, std::int64_t lo, std::int64_t hi) { partial_[static_cast<std::size_t>(part)].value = body(lo, hi); });
    double sum = 0.0;
    for (const padded& p : partial_) sum += p.value;
    return sum;
  }

  void add_center(std::int64_t x) {
    s_.slot[x] = static_cast<std::int32_t>(centers_.size());
    centers_.push_back(x);
  }

  // PARSEC's pspeedy: the first point in the shuffled order serves all;
  // then, in that order, point i opens with probability cost_i / z (its cost
  // as the centers opened so far leave it). Returns the total cost, z per
  // center plus the points' costs.
  double speedy(double z) {
    const std::int64_t first = order_[0];
    for_parts([&](int, std::int64_t lo, std::int64_t hi) { pass::serve_all_by(s_, first, lo, hi); });
    centers_.clear();
    add_center(first);
    for (std::size_t j = 1; j < order_.size(); ++j) {
      const std::int64_t i = order_[j];
      bench::touch_n(s_.cost + i, 1, locus::access::read);
      locus::compute(2);  // a draw and a compare
      if (random_.uniform() < s_.cost[i] / z) {
        for_parts([&](int, std::int64_t lo, std::int64_t hi) { pass::open_center(s_, i, lo, hi); });
        add_center(i);
      }
    }
    return z * static_cast<double>(k()) +
           sum_over_parts([&](std::int64_t lo, std::int64_t hi) { return pass::total_cost(s_, lo, hi); });
  }

  // PARSEC's selectfeasible_fast: ITER kmin ln(kmin) candidates drawn with
  // probability proportional to their weight (all points if there are
  // fewer).
  void select_feasible() {
    const auto kmin = static_cast<double>(settings_.kmin);
    const auto wanted = static_cast<std::int64_t>(search_rounds * kmin * std::log(kmin));
    feasible_.clear();
    if (wanted >= s_.n) {
      for (std::int64_t i = 0; i < s_.n; ++i) feasible_.push_back(i);
      return;
    }
    std::vector<double> running(static_cast<std::size_t>(s_.n));
    double total = 0.0;
    for (std::int64_t i = 0; i < s_.n; ++i) running[static_cast<std::size_t>(i)] = total += s_.weight[i];
    bench::touch_n(s_.weight, s_.n, locus::access::read);
    locus::compute(static_cast<std::uint64_t>(s_.n));
    for (std::int64_t j = 0; j < wanted; ++j) {
      const double w = random_.uniform() * total;
      const auto at = std::upper_bound(running.begin(), running.end(), w) - running.begin();
      feasible_.push_back(std::min<std::int64_t>(at, s_.n - 1));
    }
  }

  // PARSEC's pFL: rounds of `iterations` gains over the shuffled feasible
  // points, while a round still lowers the cost by more than epsilon of it.
  double local_search(double z, double cost, std::int64_t iterations, double epsilon) {
    double change = cost;
    while (cost > 0.0 && change / cost > epsilon) {
      change = 0.0;
      random_.shuffle(feasible_);
      for (std::int64_t i = 0; i < iterations; ++i)
        change += gain(feasible_[static_cast<std::size_t>(i) % feasible_.size()], z);
      cost -= change;
    }
    return cost;
  }

  // What opening x saves (0 if it would not), and x opened if it saves.
  double gain(std::int64_t x, double z) {
    if (s_.slot[x] >= 0) return 0.0;  // already a center
    ++gains_;
    const std::int64_t centers = k();
    // Each partition's lower[] starts on a cache line of its own.
    const std::int64_t stride = (centers + 7) / 8 * 8;
    lower_.resize(static_cast<std::size_t>(stride * settings_.parts));
    for_parts([&](int part, std::int64_t lo, std::int64_t hi) {
      partial_[static_cast<std::size_t>(part)].value =
          pass::gain(s_, x, &lower_[static_cast<std::size_t>(part * stride)], centers, lo, hi);
    });
    // The reduction, in partition order: opening x costs z less what the
    // switching points save, less what closing the centers that are not
    // worth their z any more saves.
    double opening = z;
    for (const padded& p : partial_) opening += p.value;
    closing_.assign(static_cast<std::size_t>(centers), 0);
    for (std::int64_t c = 0; c < centers; ++c) {
      double keep = z;
      for (int part = 0; part < settings_.parts; ++part) keep += lower_[static_cast<std::size_t>(part * stride + c)];
      if (keep > 0.0) {  // closing c saves more than moving its points to x costs
        closing_[static_cast<std::size_t>(c)] = 1;
        opening -= keep;
      }
    }
    locus::compute(static_cast<std::uint64_t>(centers * settings_.parts));
    if (opening >= 0.0) return 0.0;

    ++opened_;
    for_parts([&](int, std::int64_t lo, std::int64_t hi) { pass::commit(s_, x, closing_.data(), lo, hi); });
    s_.assign[x] = x;
    s_.cost[x] = 0.0f;
    // The surviving centers keep their order; x comes last.
    std::vector<std::int64_t> kept;
    for (std::int64_t c = 0; c < centers; ++c) {
      const std::int64_t point = centers_[static_cast<std::size_t>(c)];
      s_.slot[point] = -1;
      if (!closing_[static_cast<std::size_t>(c)]) kept.push_back(point);
    }
    centers_.clear();
    for (std::int64_t point : kept) add_center(point);
    add_center(x);
    return -opening;
  }

  struct alignas(64) padded {
    double value = 0.0;
  };

  point_set s_;
  search_settings settings_;
  random_stream& random_;
  std::vector<padded> partial_;      // one slot per partition
  std::vector<double> lower_;        // per partition, per center: pgain's lower[]
  std::vector<char> closing_;        // per center, by slot
  std::vector<std::int64_t> centers_;  // by slot
  std::vector<std::int64_t> order_;  // speedy's visit order
  std::vector<std::int64_t> feasible_;
  std::int64_t gains_ = 0, opened_ = 0;
};

}  // namespace streamcluster
