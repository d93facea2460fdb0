// ferret: content-based image similarity search, as PARSEC's ferret runs a
// query: the image is segmented into regions, each region described by a
// feature vector and a weight (its share of the pixels); an index over the
// database proposes candidates; the candidates are ranked by the earth
// mover's distance (EMD) between their region signature and the query's.
//
//   segment   k-means over the pixels' colours and positions (PARSEC's
//             ferret segments with Felzenszwalb and Huttenlocher's graph
//             method), then each region's features: mean colour, colour
//             deviation, centroid and spread, and its mass
//   probe     the filter: a scan of a range of the database's index, one
//             16-float descriptor per image (mean colour and mass of each
//             image quadrant), keeping the `candidates` closest (PARSEC's
//             ferret probes an LSH index over region sketches instead; the
//             scan reads its whole partition where LSH reads a few buckets)
//   rank      the exact EMD between the query's signature and each
//             candidate's, the `top` nearest kept
//
// A signature has at most 8 regions of 10 features, each a byte (colours
// 0..255, positions scaled to 0..255), and integer masses that add up to
// 4096 in every signature, so the EMD is a transportation problem with
// integer supplies and demands. It is solved exactly by successive shortest
// paths, with the ground distance (the Euclidean distance of two regions'
// features) in units of 1/16: integer arithmetic throughout, so the result
// is the same bits whatever runs it.
//
// For the simulator each step declares what it reads and writes and the
// cycles of its inner loops (README.md).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/splitmix64.hpp"

namespace ferret {

inline constexpr int regions = 8;       // at most, per signature (every database image has 8)
inline constexpr int features = 10;     // per region
inline constexpr int descriptor_floats = 16;
inline constexpr int total_mass = 4096;  // of every signature
inline constexpr int ground_units = 16;  // ground distances in 1/16

struct signature {
  int count = 0;
  std::array<std::array<std::uint8_t, features>, regions> feature{};
  std::array<std::uint16_t, regions> mass{};
};

using descriptor = std::array<float, descriptor_floats>;

using random_stream = bench::splitmix64;

// ------------------------------------------------------------ synthetic images

// An image of the database: 8 rectangles tiling the unit square (each cut
// of the largest rectangle across its longer side, at 0.3 to 0.7 of it),
// each with a mean colour and a deviation per channel.
struct layout {
  struct region {
    double x0, y0, x1, y1;
    double mean[3], deviation[3];
  };
  std::array<region, regions> part;

  explicit layout(std::uint64_t image) {
    random_stream random{image * 0x2545f4914f6cdd1dULL + 1};
    part[0] = {0, 0, 1, 1, {}, {}};
    for (int made = 1; made < regions; ++made) {
      int widest = 0;
      for (int r = 1; r < made; ++r)
        if (area(part[r]) > area(part[widest])) widest = r;
      region& a = part[widest];
      region& b = part[made];
      b = a;
      const double at = 0.3 + 0.4 * random.uniform();
      if (a.x1 - a.x0 >= a.y1 - a.y0) a.x1 = b.x0 = a.x0 + at * (a.x1 - a.x0);
      else a.y1 = b.y0 = a.y0 + at * (a.y1 - a.y0);
    }
    for (region& r : part)
      for (int c = 0; c < 3; ++c) {
        r.mean[c] = 20.0 + 215.0 * random.uniform();
        r.deviation[c] = 4.0 + 20.0 * random.uniform();
      }
  }
  static double area(const region& r) { return (r.x1 - r.x0) * (r.y1 - r.y0); }
};

inline std::uint8_t to_byte(double x) { return static_cast<std::uint8_t>(std::clamp(std::lround(x), 0L, 255L)); }

// `weight[r]` pixels (or area) per region scaled to masses adding up to
// total_mass: floors, then the remaining units to the largest remainders
// (the lower region first on a tie).
inline void set_masses(signature& s, const double* weight) {
  double sum = 0.0;
  for (int r = 0; r < s.count; ++r) sum += weight[r];
  int given = 0;
  std::array<double, regions> rest{};
  for (int r = 0; r < s.count; ++r) {
    const double exact = weight[r] * total_mass / sum;
    s.mass[r] = static_cast<std::uint16_t>(exact);
    rest[r] = exact - s.mass[r];
    given += s.mass[r];
  }
  for (; given < total_mass; ++given) {
    int best = 0;
    for (int r = 1; r < s.count; ++r)
      if (rest[r] > rest[best]) best = r;
    ++s.mass[best];
    rest[best] = -1.0;
  }
}

// The signature a database image gets: its rectangles' exact features.
inline signature database_signature(const layout& l) {
  signature s;
  s.count = regions;
  double weight[regions];
  for (int r = 0; r < regions; ++r) {
    const layout::region& p = l.part[r];
    auto& f = s.feature[r];
    for (int c = 0; c < 3; ++c) {
      f[c] = to_byte(p.mean[c]);
      f[3 + c] = to_byte(p.deviation[c]);
    }
    f[6] = to_byte(255.0 * (p.x0 + p.x1) / 2);
    f[7] = to_byte(255.0 * (p.y0 + p.y1) / 2);
    f[8] = to_byte(255.0 * (p.x1 - p.x0) / std::sqrt(12.0));  // a uniform spread's deviation
    f[9] = to_byte(255.0 * (p.y1 - p.y0) / std::sqrt(12.0));
    weight[r] = layout::area(p);
  }
  set_masses(s, weight);
  return s;
}

// A query image, side x side RGB pixels: the layout of database image
// `source` painted with noise (each channel about its region's deviation)
// and a brightness shift of up to 8 levels.
inline void render(const layout& l, std::uint64_t query, int side, std::uint8_t* rgb) {
  random_stream random{query * 0x9e3779b97f4a7c15ULL + 7};
  const double shift = 16.0 * random.uniform() - 8.0;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      const double px = (x + 0.5) / side, py = (y + 0.5) / side;
      int r = 0;
      while (r < regions - 1 && !(px >= l.part[r].x0 && px < l.part[r].x1 && py >= l.part[r].y0 && py < l.part[r].y1)) ++r;
      for (int c = 0; c < 3; ++c) {
        const double noise = (random.uniform() + random.uniform() + random.uniform() - 1.5) * 2.0;  // deviation 1
        rgb[(y * side + x) * 3 + c] = to_byte(l.part[r].mean[c] + shift + l.part[r].deviation[c] * noise);
      }
    }
}

// The index entry of a signature: per quadrant of the image (by region
// centroid) the mass-weighted mean colour and the quadrant's share of the
// mass, scaled to 0..255.
inline descriptor describe(const signature& s) {
  descriptor d{};
  for (int r = 0; r < s.count; ++r) {
    const auto& f = s.feature[r];
    const int q = (f[6] >= 128 ? 1 : 0) + (f[7] >= 128 ? 2 : 0);
    for (int c = 0; c < 3; ++c) d[4 * q + c] += static_cast<float>(f[c]) * s.mass[r];
    d[4 * q + 3] += s.mass[r];
  }
  for (int q = 0; q < 4; ++q) {
    if (d[4 * q + 3] > 0)
      for (int c = 0; c < 3; ++c) d[4 * q + c] /= d[4 * q + 3];
    d[4 * q + 3] *= 255.0f / total_mass;
  }
  return d;
}

// ------------------------------------------------------------ segment

inline constexpr int kmeans_rounds = 6;
inline constexpr float position_weight = 0.75f;  // a pixel's position against its colour, both 0..255

// Segments side x side RGB pixels into at most `regions` regions and returns
// their signature. Out of line: one copy of the floating-point code.
[[gnu::noinline]] inline signature segment(const std::uint8_t* rgb, int side) {
  const int n = side * side;
  bench::touch_n(rgb, 3 * n, locus::access::read);
  // Cycles: per pixel and round, 8 centres x (5 sub, 5 mul/fma, a compare)
  // and 5 adds to the chosen centre's sums; the last assignment once more;
  // the features, 12 per pixel.
  locus::compute(static_cast<std::uint64_t>(n) * ((kmeans_rounds + 1) * (regions * 11 + 5) + 12));
  const float scale = position_weight * 255.0f / static_cast<float>(side);
  auto point = [&](int i, float* f) {
    for (int c = 0; c < 3; ++c) f[c] = rgb[3 * i + c];
    f[3] = (static_cast<float>(i % side) + 0.5f) * scale;
    f[4] = (static_cast<float>(i / side) + 0.5f) * scale;
  };
  // Start from the pixels at the centres of a 4 x 2 grid of the image.
  float centre[regions][5];
  for (int k = 0; k < regions; ++k) point((side * (2 * (k / 4) + 1) / 4) * side + side * (2 * (k % 4) + 1) / 8, centre[k]);
  std::vector<std::uint8_t> label(static_cast<std::size_t>(n));
  auto assign = [&] {
    for (int i = 0; i < n; ++i) {
      float f[5];
      point(i, f);
      int best = 0;
      float best_d = std::numeric_limits<float>::max();
      for (int k = 0; k < regions; ++k) {
        float d = 0.0f;
        for (int e = 0; e < 5; ++e) d += (f[e] - centre[k][e]) * (f[e] - centre[k][e]);
        if (d < best_d) {
          best_d = d;
          best = k;
        }
      }
      label[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(best);
    }
  };
  for (int round = 0; round < kmeans_rounds; ++round) {
    assign();
    double sum[regions][5] = {};
    int count[regions] = {};
    for (int i = 0; i < n; ++i) {
      float f[5];
      point(i, f);
      const int k = label[static_cast<std::size_t>(i)];
      for (int e = 0; e < 5; ++e) sum[k][e] += f[e];
      ++count[k];
    }
    for (int k = 0; k < regions; ++k)
      if (count[k] > 0)  // an empty cluster keeps its centre
        for (int e = 0; e < 5; ++e) centre[k][e] = static_cast<float>(sum[k][e] / count[k]);
  }
  assign();

  // Each non-empty cluster is a region: first and second moments of its
  // colours and positions.
  double m1[regions][5] = {}, m2[regions][5] = {};
  int count[regions] = {};
  for (int i = 0; i < n; ++i) {
    const int k = label[static_cast<std::size_t>(i)];
    const double v[5] = {double(rgb[3 * i]), double(rgb[3 * i + 1]), double(rgb[3 * i + 2]),
                         255.0 * ((i % side) + 0.5) / side, 255.0 * ((i / side) + 0.5) / side};
    for (int e = 0; e < 5; ++e) {
      m1[k][e] += v[e];
      m2[k][e] += v[e] * v[e];
    }
    ++count[k];
  }
  signature s;
  double weight[regions];
  for (int k = 0; k < regions; ++k) {
    if (count[k] == 0) continue;
    auto& f = s.feature[s.count];
    double mean[5], deviation[5];
    for (int e = 0; e < 5; ++e) {
      mean[e] = m1[k][e] / count[k];
      deviation[e] = std::sqrt(std::max(0.0, m2[k][e] / count[k] - mean[e] * mean[e]));
    }
    for (int c = 0; c < 3; ++c) {
      f[c] = to_byte(mean[c]);
      f[3 + c] = to_byte(deviation[c]);
    }
    f[6] = to_byte(mean[3]);
    f[7] = to_byte(mean[4]);
    f[8] = to_byte(deviation[3]);
    f[9] = to_byte(deviation[4]);
    weight[s.count] = count[k];
    ++s.count;
  }
  set_masses(s, weight);
  return s;
}

// ------------------------------------------------------------ probe

struct candidate {
  float distance;
  std::int64_t image;
  bool operator<(const candidate& o) const { return distance != o.distance ? distance < o.distance : image < o.image; }
};

inline constexpr std::uint64_t probe_cycles_per_image = 2 * descriptor_floats + 1;  // sub and fma per float, a compare

// The `keep` nearest images of [first, last) by squared descriptor
// distance (ties: the lower image number), appended to `out` in that order.
[[gnu::noinline]] inline void probe(const descriptor& q, const float* index, std::int64_t first, std::int64_t last,
                                    int keep, std::vector<candidate>& out) {
  bench::touch_n(index + first * descriptor_floats, (last - first) * descriptor_floats, locus::access::read);
  locus::compute(static_cast<std::uint64_t>(last - first) * probe_cycles_per_image);
  std::vector<candidate> best;  // sorted, at most `keep`
  best.reserve(static_cast<std::size_t>(keep) + 1);
  float worst = std::numeric_limits<float>::max();
  for (std::int64_t j = first; j < last; ++j) {
    const float* d = index + j * descriptor_floats;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int e = 0; e < descriptor_floats; ++e) sum += (q[e] - d[e]) * (q[e] - d[e]);
    // Scanning in image order, an equal distance never displaces an earlier image.
    if (static_cast<int>(best.size()) == keep && !(sum < worst)) continue;
    const candidate c{sum, j};
    best.insert(std::upper_bound(best.begin(), best.end(), c), c);
    if (static_cast<int>(best.size()) > keep) best.pop_back();
    if (static_cast<int>(best.size()) == keep) worst = best.back().distance;
  }
  out.insert(out.end(), best.begin(), best.end());
}

// ------------------------------------------------------------ rank

// The EMD between a and b in 1/16 feature units x mass units (divide by
// ground_units x total_mass for the distance), by successive shortest
// paths: from the query regions that still have mass to send, a
// Bellman-Ford pass over the residual graph (forward edges at their ground
// distance, backward edges where flow runs, at minus it) finds the cheapest
// way to a candidate region that still has room, and as much mass as the
// path allows moves along it. `relaxations` counts the edge relaxations.
inline std::int64_t emd(const signature& a, const signature& b, std::uint64_t& relaxations) {
  const int n = a.count, m = b.count;
  std::int64_t cost[regions][regions];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      std::int64_t d2 = 0;
      for (int e = 0; e < features; ++e) {
        const int diff = int{a.feature[i][e]} - int{b.feature[j][e]};
        d2 += diff * diff;
      }
      cost[i][j] = std::llround(ground_units * std::sqrt(static_cast<double>(d2)));
    }
  int flow[regions][regions] = {};
  int supply[regions], demand[regions];
  for (int i = 0; i < n; ++i) supply[i] = a.mass[i];
  for (int j = 0; j < m; ++j) demand[j] = b.mass[j];
  constexpr std::int64_t unreached = std::numeric_limits<std::int64_t>::max() / 4;
  for (int left = total_mass; left > 0;) {
    std::int64_t da[regions], db[regions];
    int from_a[regions], from_b[regions];  // the path's previous node: a region of the other side, -1 for a start
    for (int i = 0; i < n; ++i) {
      da[i] = supply[i] > 0 ? 0 : unreached;
      from_a[i] = -1;
    }
    for (int j = 0; j < m; ++j) db[j] = unreached;
    for (int pass = 0; pass <= n + m; ++pass) {
      bool changed = false;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
          if (da[i] + cost[i][j] < db[j]) {
            db[j] = da[i] + cost[i][j];
            from_b[j] = i;
            changed = true;
          }
          if (flow[i][j] > 0 && db[j] - cost[i][j] < da[i]) {
            da[i] = db[j] - cost[i][j];
            from_a[i] = j;
            changed = true;
          }
        }
      relaxations += static_cast<std::uint64_t>(2 * n * m);
      if (!changed) break;
    }
    int end = -1;
    for (int j = 0; j < m; ++j)
      if (demand[j] > 0 && db[j] < unreached && (end < 0 || db[j] < db[end])) end = j;
    // The path back from `end`: its bottleneck, then the move.
    int push = demand[end];
    for (int j = end;;) {
      const int i = from_b[j];
      if (from_a[i] < 0) {
        push = std::min(push, supply[i]);
        break;
      }
      push = std::min(push, flow[i][from_a[i]]);
      j = from_a[i];
    }
    for (int j = end;;) {
      const int i = from_b[j];
      flow[i][j] += push;
      if (from_a[i] < 0) {
        supply[i] -= push;
        break;
      }
      flow[i][from_a[i]] -= push;
      j = from_a[i];
    }
    demand[end] -= push;
    left -= push;
  }
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) total += flow[i][j] * cost[i][j];
  return total;
}

struct match {
  std::int64_t image;
  std::int64_t distance;  // emd()
  bool operator==(const match&) const = default;
};

// The database's signatures: image j's regions at j * regions.
struct signatures {
  const std::uint8_t* feature;  // image x regions x features
  const std::uint16_t* mass;    // image x regions
  signature of(std::int64_t image) const {
    signature s;
    s.count = regions;
    for (int r = 0; r < regions; ++r) {
      for (int e = 0; e < features; ++e) s.feature[r][e] = feature[(image * regions + r) * features + e];
      s.mass[r] = mass[image * regions + r];
    }
    return s;
  }
};

// Cycles per relaxation: an add and a compare, or a test, a subtraction
// and a compare.
inline constexpr std::uint64_t relaxation_cycles = 2;

// The `top` candidates nearest to q by EMD (ties: the lower image number),
// from the `keep` best of `found` by descriptor distance.
[[gnu::noinline]] inline std::vector<match> rank(const signature& q, std::vector<candidate> found, int keep, int top,
                                                 const signatures& db) {
  std::sort(found.begin(), found.end());
  if (static_cast<int>(found.size()) > keep) found.resize(static_cast<std::size_t>(keep));
  std::vector<match> ranked;
  std::uint64_t relaxations = 0;
  for (const candidate& c : found) {
    bench::touch_n(db.feature + c.image * regions * features, regions * features, locus::access::read);
    bench::touch_n(db.mass + c.image * regions, regions, locus::access::read);
    ranked.push_back({c.image, emd(q, db.of(c.image), relaxations)});
  }
  // The ground distances: per pair of regions 10 sub and mul/fma, a sqrt.
  locus::compute(relaxations * relaxation_cycles + found.size() * regions * regions * (2 * features + 1) +
                 bench::sort_cycles(static_cast<std::int64_t>(found.size())));
  std::sort(ranked.begin(), ranked.end(), [](const match& x, const match& y) {
    return x.distance != y.distance ? x.distance < y.distance : x.image < y.image;
  });
  if (static_cast<int>(ranked.size()) > top) ranked.resize(static_cast<std::size_t>(top));
  return ranked;
}

}  // namespace ferret
