// Weakly compressible SPH (Becker and Teschner, 2007), the SPH benchmark of
// ADWS (seed 003, section 6.2): a dam-break in 3-D, particles interacting
// within the support radius 2h of a cubic spline kernel.
//
// Set-up, not timed (as in the paper): an octree over the particles, leaves
// of at most `leaf` particles, the particles reordered so that every node
// owns a contiguous range; for every leaf, the list of leaves whose bounding
// box lies within 2h + skin of its own (its neighbour leaves, itself
// included, in tree order). The tree and the lists stay fixed over the
// timed iterations: particles move, but less than skin / 2 in all (the
// instance checks it), so no pair within 2h is ever missing from the lists.
//
// Timed: `iterations` steps, each two parallel traversals of the octree. At
// an internal node the children are forked by halving the child list, each
// half with its particle count as its work hint and its particles' bytes as
// its footprint (bench::fork_split). At a
// leaf, pass 1 sums each particle's density and sets its pressure (Tait,
// gamma = 7); pass 2 sums its pressure and viscosity accelerations, adds
// gravity and integrates velocity and position (symplectic Euler, walls
// clamp and reflect). Pass 2 reads the state `cur` and writes `next`, so
// leaves never read what another leaf writes in the same pass; every
// particle's sums run over the same neighbours in the same order in every
// implementation, so results are bit for bit the serial ones.
//
// For the simulator (README.md) every leaf declares its neighbour list, its
// neighbour leaves' boxes and particles (read) and its own particles
// (written),
// and its arithmetic, counted per operation below.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/backend.hpp"
#include "common/places.hpp"

namespace sph {

// One cache line per particle: a leaf reads its neighbours' whole state.
struct particle {
  double x[3];
  double v[3];
  double rho;  // density (pass 1)
  double p;    // pressure (pass 1)
};
static_assert(sizeof(particle) == 64);

// A leaf as the passes read it: its particle range and the bounding box of
// its particles' initial positions.
struct leaf_box {
  std::int64_t begin, end;
  double lo[3], hi[3];
};

struct node {
  std::int64_t begin, end;  // the node's particles
  std::int32_t first_child = 0;
  std::int32_t children = 0;  // 0: a leaf
  std::int32_t leaf = -1;     // a leaf's index (in tree order)
  double lo[3], hi[3];        // bounding box of its particles
};

struct octree {
  std::vector<node> nodes;                 // node 0 is the root; siblings are contiguous
  std::vector<leaf_box> leaves;            // per leaf (in tree order)
  std::vector<std::int32_t> leaf_node;     // per leaf, its node
  std::vector<std::int64_t> list_begin;    // per leaf, into lists (one more entry)
  std::vector<std::int32_t> lists;         // the neighbour leaves of every leaf
  int height = 0;
};

// Physical constants of a run; derived from the particle spacing dx.
struct physics {
  double h, inv_h, support2;  // smoothing length, 1 / h, (2h)^2
  double skin;                // particles move less than skin / 2 (checked)
  double prune2;              // (2h + skin / 2)^2: a leaf's box farther from a
                              // particle holds none of its neighbours
  double sigma;               // cubic spline normalization 1 / (pi h^3)
  double mass, rho0, stiffness;  // stiffness B = rho0 c^2 / gamma
  double viscosity;           // 2 alpha h c (Becker-Teschner's nu times rho_i + rho_j)
  double eps_h2;              // 0.01 h^2, keeps the viscosity finite
  double dt, gravity;
  double box[3];              // walls at 0 and box[d]
  double wall_damping;

  static physics for_spacing(double dx, double fluid_height, const double box[3]) {
    physics s{};
    s.h = 1.2 * dx;
    s.inv_h = 1.0 / s.h;
    s.support2 = 4.0 * s.h * s.h;
    s.skin = 0.4 * dx;
    s.prune2 = (2.0 * s.h + s.skin / 2) * (2.0 * s.h + s.skin / 2);
    s.sigma = 1.0 / (3.141592653589793 * s.h * s.h * s.h);
    s.rho0 = 1000.0;
    s.mass = s.rho0 * dx * dx * dx;
    s.gravity = 9.81;
    // Speed of sound: ten times the largest fluid speed, sqrt(2 g H), so
    // density varies by about 1% (Becker-Teschner's weak compressibility).
    const double c = 10.0 * std::sqrt(2.0 * s.gravity * fluid_height);
    s.stiffness = s.rho0 * c * c / 7.0;
    s.viscosity = 2.0 * 0.1 * s.h * c;  // alpha = 0.1
    s.eps_h2 = 0.01 * s.h * s.h;
    s.dt = 0.4 * s.h / c;  // CFL
    for (int d = 0; d < 3; ++d) s.box[d] = box[d];
    s.wall_damping = 0.5;
    return s;
  }
};

// Cycles charged (one per arithmetic operation or comparison; sqrt and
// divisions count one, as the cost model's rules say):
// - per neighbour leaf and particle: the squared distance from the particle
//   to the leaf's box, 3 x (2 subtractions, 2 max) + 3 (squares, sums) + 1
//   comparison;
inline constexpr std::uint64_t box_test_cycles = 16;
// - per candidate pair: 3 differences, 3 for the squared distance, 1
//   comparison;
inline constexpr std::uint64_t candidate_cycles = 7;
// - per pair within 2h, density: sqrt, q = r / h, the branch, the spline (4
//   at most), mass * sigma * W added (1);
inline constexpr std::uint64_t density_pair_cycles = 8;
// - per particle, pressure: rho / rho0, its 7th power (4 multiplications),
//   minus 1, times B, clamp at 0;
inline constexpr std::uint64_t pressure_cycles = 8;
// - per pair within 2h (not the particle itself), force: sqrt, q, the
//   branch, dW/dq (3 at most), the gradient factor (2), p_j / rho_j^2 (2),
//   the pressure sum (1), v_ij (3), v_ij . x_ij (3), its sign (1), the total
//   factor (2), the acceleration (3);
inline constexpr std::uint64_t force_pair_cycles = 23;
// - per approaching pair (v_ij . x_ij < 0), the viscosity: nu (2),
//   Pi_ij (3);
inline constexpr std::uint64_t viscosity_cycles = 5;
// - per particle, force: p_i / rho_i^2 (2), gravity and v += dt a (4),
//   x += dt v (3), the walls (6 comparisons).
inline constexpr std::uint64_t integrate_cycles = 15;

// Squared distance from x to the box [lo, hi].
inline double box_distance2(const double x[3], const double lo[3], const double hi[3]) {
  double s = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double out = std::max({lo[d] - x[d], 0.0, x[d] - hi[d]});
    s += out * out;
  }
  return s;
}

// A leaf's neighbour leaves, [first, last) of the lists, and the reads a
// pass makes through them declared to the simulator: the list, each
// neighbour's box and its particles in `cur`, but for the leaf's own when
// the pass writes them in `cur` (the write declares them).
struct neighbour_span {
  const std::int32_t* first;
  const std::int32_t* last;
};
inline neighbour_span declare_neighbour_reads(const octree& t, std::int32_t leaf, const particle* cur,
                                              bool own_written) {
  const std::int32_t* first = t.lists.data() + t.list_begin[static_cast<std::size_t>(leaf)];
  const std::int32_t* last = t.lists.data() + t.list_begin[static_cast<std::size_t>(leaf) + 1];
  bench::touch_n(first, last - first, locus::access::read);
  for (const std::int32_t* k = first; k != last; ++k) {
    const leaf_box& n = t.leaves[static_cast<std::size_t>(*k)];
    bench::touch_n(&n, 1, locus::access::read);
    if (!own_written || *k != leaf) bench::touch_n(cur + n.begin, n.end - n.begin, locus::access::read);
  }
  return {first, last};
}

// Pass 1 at one leaf: density and pressure of its particles in `cur`.
inline void leaf_density(const octree& t, std::int32_t leaf, particle* cur, const physics& s) {
  const leaf_box& own = t.leaves[static_cast<std::size_t>(leaf)];
  const auto [first, last] = declare_neighbour_reads(t, leaf, cur, /*own_written=*/true);
  bench::touch_n(cur + own.begin, own.end - own.begin, locus::access::write);

  const double weight = s.mass * s.sigma;
  std::uint64_t boxes = 0, candidates = 0, pairs = 0;
  for (std::int64_t i = own.begin; i < own.end; ++i) {
    const double* xi = cur[i].x;
    double rho = 0.0;
    for (const std::int32_t* k = first; k != last; ++k) {
      const leaf_box* n = &t.leaves[static_cast<std::size_t>(*k)];
      ++boxes;
      if (box_distance2(xi, n->lo, n->hi) >= s.prune2) continue;
      candidates += static_cast<std::uint64_t>(n->end - n->begin);
      for (std::int64_t j = n->begin; j < n->end; ++j) {
        const double dx = xi[0] - cur[j].x[0], dy = xi[1] - cur[j].x[1], dz = xi[2] - cur[j].x[2];
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= s.support2) continue;
        ++pairs;
        const double q = std::sqrt(r2) * s.inv_h;
        double w;
        if (q < 1.0) w = 1.0 + q * q * (0.75 * q - 1.5);
        else {
          const double u = 2.0 - q;
          w = 0.25 * u * u * u;
        }
        rho += weight * w;
      }
    }
    const double ratio = rho / s.rho0;
    const double ratio2 = ratio * ratio;
    const double ratio7 = ratio2 * ratio2 * ratio2 * ratio;
    cur[i].rho = rho;
    // No boundary particles: near walls and the free surface the density
    // falls below rho0; clamping keeps the pressure from pulling.
    cur[i].p = std::max(0.0, s.stiffness * (ratio7 - 1.0));
  }
  locus::compute(boxes * box_test_cycles + candidates * candidate_cycles + pairs * density_pair_cycles +
                 static_cast<std::uint64_t>(own.end - own.begin) * pressure_cycles);
}

// Pass 2 at one leaf: accelerations of its particles from `cur`, their
// integrated state written to `next`.
inline void leaf_force(const octree& t, std::int32_t leaf, const particle* cur, particle* next, const physics& s) {
  const leaf_box& own = t.leaves[static_cast<std::size_t>(leaf)];
  const auto [first, last] = declare_neighbour_reads(t, leaf, cur, /*own_written=*/false);
  bench::touch_n(next + own.begin, own.end - own.begin, locus::access::write);

  const double gradient = s.sigma * s.inv_h;
  std::uint64_t boxes = 0, candidates = 0, pairs = 0, approaching = 0;
  for (std::int64_t i = own.begin; i < own.end; ++i) {
    const particle& pi = cur[i];
    const double pressure_i = pi.p / (pi.rho * pi.rho);
    double a[3] = {0.0, 0.0, 0.0};
    for (const std::int32_t* k = first; k != last; ++k) {
      const leaf_box* n = &t.leaves[static_cast<std::size_t>(*k)];
      ++boxes;
      if (box_distance2(pi.x, n->lo, n->hi) >= s.prune2) continue;
      candidates += static_cast<std::uint64_t>(n->end - n->begin);
      for (std::int64_t j = n->begin; j < n->end; ++j) {
        const particle& pj = cur[j];
        const double x[3] = {pi.x[0] - pj.x[0], pi.x[1] - pj.x[1], pi.x[2] - pj.x[2]};
        const double r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        if (r2 >= s.support2 || j == i) continue;
        ++pairs;
        const double r = std::sqrt(r2);
        const double q = r * s.inv_h;
        double dw;  // dW/dq / sigma
        if (q < 1.0) dw = q * (2.25 * q - 3.0);
        else {
          const double u = 2.0 - q;
          dw = -0.75 * u * u;
        }
        const double grad = gradient * dw / r;  // grad W_ij = grad * x_ij
        double term = pressure_i + pj.p / (pj.rho * pj.rho);
        const double vx[3] = {pi.v[0] - pj.v[0], pi.v[1] - pj.v[1], pi.v[2] - pj.v[2]};
        const double vdotx = vx[0] * x[0] + vx[1] * x[1] + vx[2] * x[2];
        if (vdotx < 0.0) {
          ++approaching;
          const double nu = s.viscosity / (pi.rho + pj.rho);
          term -= nu * vdotx / (r2 + s.eps_h2);
        }
        const double f = -s.mass * term * grad;
        a[0] += f * x[0];
        a[1] += f * x[1];
        a[2] += f * x[2];
      }
    }
    a[2] -= s.gravity;
    particle out = pi;
    for (int d = 0; d < 3; ++d) {
      out.v[d] = pi.v[d] + s.dt * a[d];
      out.x[d] = pi.x[d] + s.dt * out.v[d];
      if (out.x[d] < 0.0) {
        out.x[d] = 0.0;
        out.v[d] = -s.wall_damping * out.v[d];
      } else if (out.x[d] > s.box[d]) {
        out.x[d] = s.box[d];
        out.v[d] = -s.wall_damping * out.v[d];
      }
    }
    next[i] = out;
  }
  locus::compute(boxes * box_test_cycles + candidates * candidate_cycles + pairs * force_pair_cycles +
                 approaching * viscosity_cycles + static_cast<std::uint64_t>(own.end - own.begin) * integrate_cycles);
}

// The parallel traversal: at_leaf(leaf index) at every leaf; the children
// [first, last) of a node are halved recursively, each half forked with its
// particle count as its work hint (or without hints).
template <class P, class AtLeaf>
void traverse(const octree& t, std::int32_t id, const AtLeaf& at_leaf, bool hints);

template <class P, class AtLeaf>
void fork_children(const octree& t, std::int32_t first, std::int32_t last, const AtLeaf& at_leaf, bool hints) {
  if (last - first == 1) return traverse<P>(t, first, at_leaf, hints);
  const std::int32_t mid = first + (last - first) / 2;
  auto left = [&] { fork_children<P>(t, first, mid, at_leaf, hints); };
  auto right = [&] { fork_children<P>(t, mid, last, at_leaf, hints); };
  const auto& n = t.nodes;
  const std::int64_t left_count = n[static_cast<std::size_t>(mid)].begin - n[static_cast<std::size_t>(first)].begin;
  const std::int64_t right_count = n[static_cast<std::size_t>(last) - 1].end - n[static_cast<std::size_t>(mid)].begin;
  // Working set of a half: its particles in both buffers (their
  // neighbours' lie mostly within the half too).
  bench::fork_split<P>(hints, left_count, 2 * sizeof(particle) * static_cast<std::size_t>(left_count), left,
                       right_count, 2 * sizeof(particle) * static_cast<std::size_t>(right_count), right);
}

template <class P, class AtLeaf>
void traverse(const octree& t, std::int32_t id, const AtLeaf& at_leaf, bool hints) {
  const node& n = t.nodes[static_cast<std::size_t>(id)];
  if (n.children == 0) return at_leaf(n.leaf);
  fork_children<P>(t, n.first_child, n.first_child + n.children, at_leaf, hints);
}

// The timed part: `iterations` steps from the state in a; returns the
// buffer (a or b) that holds the final state.
template <class P>
particle* simulate(const octree& t, particle* a, particle* b, int iterations, const physics& s, bool hints) {
  particle* cur = a;
  particle* next = b;
  for (int step = 0; step < iterations; ++step) {
    traverse<P>(t, 0, [&](std::int32_t leaf) { leaf_density(t, leaf, cur, s); }, hints);
    traverse<P>(t, 0, [&](std::int32_t leaf) { leaf_force(t, leaf, cur, next, s); }, hints);
    std::swap(cur, next);
  }
  return cur;
}

// ---- Set-up (untimed) ----

// Builds the octree over `ps` (reordered in place into tree order): a node
// splits its cube at the centre into up to eight non-empty children while it
// holds more than `leaf` particles.
inline octree build_octree(std::vector<particle>& ps, std::int64_t leaf, double search_radius) {
  octree t;
  const auto n = static_cast<std::int64_t>(ps.size());
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = ps.empty() ? 0.0 : ps[0].x[d];
    hi[d] = lo[d];
  }
  for (const auto& p : ps)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], p.x[d]);
      hi[d] = std::max(hi[d], p.x[d]);
    }
  const double side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  std::vector<particle> scratch(ps.size());
  t.nodes.push_back(node{0, n});

  // Recursion over (node, its cube's corner and side, depth).
  struct builder {
    octree& t;
    std::vector<particle>& ps;
    std::vector<particle>& scratch;
    std::int64_t leaf;
    void build(std::int32_t id, const double corner[3], double side, int depth) {
      t.height = std::max(t.height, depth);
      node& self = t.nodes[static_cast<std::size_t>(id)];
      const std::int64_t begin = self.begin, end = self.end;
      for (int d = 0; d < 3; ++d) {
        self.lo[d] = ps[static_cast<std::size_t>(begin)].x[d];
        self.hi[d] = self.lo[d];
      }
      for (std::int64_t i = begin; i < end; ++i)
        for (int d = 0; d < 3; ++d) {
          self.lo[d] = std::min(self.lo[d], ps[static_cast<std::size_t>(i)].x[d]);
          self.hi[d] = std::max(self.hi[d], ps[static_cast<std::size_t>(i)].x[d]);
        }
      // Depth 40: cubes below 1e-12 of the root's; only coincident
      // particles would get there.
      if (end - begin <= leaf || depth == 40) {
        self.leaf = static_cast<std::int32_t>(t.leaf_node.size());
        t.leaf_node.push_back(id);
        return;
      }
      const double half = side / 2;
      auto octant = [&](const particle& p) {
        int o = 0;
        for (int d = 0; d < 3; ++d)
          if (p.x[d] >= corner[d] + half) o |= 1 << d;
        return o;
      };
      // Counting sort by octant, stable.
      std::int64_t count[8] = {};
      for (std::int64_t i = begin; i < end; ++i) ++count[octant(ps[static_cast<std::size_t>(i)])];
      std::int64_t start[9];
      start[0] = begin;
      for (int o = 0; o < 8; ++o) start[o + 1] = start[o] + count[o];
      std::int64_t fill[8];
      std::copy(start, start + 8, fill);
      for (std::int64_t i = begin; i < end; ++i) {
        const auto& p = ps[static_cast<std::size_t>(i)];
        scratch[static_cast<std::size_t>(fill[octant(p)]++)] = p;
      }
      std::copy(scratch.begin() + begin, scratch.begin() + end, ps.begin() + begin);
      const auto first = static_cast<std::int32_t>(t.nodes.size());
      std::int32_t made = 0;
      int which[8];
      for (int o = 0; o < 8; ++o)
        if (count[o] > 0) {
          which[made++] = o;
          t.nodes.push_back(node{start[o], start[o + 1]});
        }
      t.nodes[static_cast<std::size_t>(id)].first_child = first;
      t.nodes[static_cast<std::size_t>(id)].children = made;
      for (std::int32_t c = 0; c < made; ++c) {
        double child_corner[3];
        for (int d = 0; d < 3; ++d) child_corner[d] = corner[d] + ((which[c] >> d) & 1) * half;
        build(first + c, child_corner, half, depth + 1);
      }
    }
  } b{t, ps, scratch, leaf};
  if (n > 0) b.build(0, lo, side, 0);

  for (const std::int32_t id : t.leaf_node) {
    const node& c = t.nodes[static_cast<std::size_t>(id)];
    leaf_box box{c.begin, c.end, {}, {}};
    std::copy(c.lo, c.lo + 3, box.lo);
    std::copy(c.hi, c.hi + 3, box.hi);
    t.leaves.push_back(box);
  }

  // Neighbour leaves: a walk from the root per leaf, in tree order.
  const double radius2 = search_radius * search_radius;
  auto box_gap2 = [](const node& a, const node& c) {
    double s = 0.0;
    for (int d = 0; d < 3; ++d) {
      const double gap = std::max({a.lo[d] - c.hi[d], 0.0, c.lo[d] - a.hi[d]});
      s += gap * gap;
    }
    return s;
  };
  std::vector<std::int32_t> stack;
  t.list_begin.push_back(0);
  for (const std::int32_t id : t.leaf_node) {
    const node& self = t.nodes[static_cast<std::size_t>(id)];
    stack.assign(1, 0);
    while (!stack.empty()) {
      const node& c = t.nodes[static_cast<std::size_t>(stack.back())];
      stack.pop_back();
      if (n == 0 || box_gap2(self, c) >= radius2) continue;
      if (c.children == 0) {
        t.lists.push_back(c.leaf);
        continue;
      }
      for (std::int32_t k = c.children - 1; k >= 0; --k) stack.push_back(c.first_child + k);
    }
    t.list_begin.push_back(static_cast<std::int64_t>(t.lists.size()));
  }
  return t;
}

}  // namespace sph
