// fluidanimate: smoothed particle hydrodynamics on a grid of cells, as
// PARSEC's fluidanimate computes a frame (Müller, Charypar and Gross,
// "Particle-based fluid simulation for interactive applications", 2003):
// the particles are binned in cells at least one smoothing length h wide,
// so a particle's neighbours lie in its cell and the 26 around it.
//
// The cells are split into partitions of consecutive cells (slabs of
// rows), and a partition owns 16 particle slots per cell (PARSEC's
// PARTICLES_PER_CELL), one array per field: partition [first, last) owns
// slots [16 first, 16 last). Its cells' particles are packed in cell order
// from its first slot, cell c's at [start[c], start[c] + count[c]): a cell
// may hold more than 16 as long as its partition's cells hold 16 on
// average, where PARSEC chains overflow cells to a full one (after a few
// hundred frames the fullest cells hold twice that).
//
// A frame is five phases, each one task per partition
// (bench::partition_tasks; figure 13's GridLauncher, one launch per phase):
//
//   locate     the cell each particle of the last frame now falls in
//              (PARSEC: ClearParticles, and RebuildGrid's first half)
//   rebuild    each cell gathers, from the 27 cells around it in the other
//              buffer, the particles that now fall in it (RebuildGrid)
//   densities  each particle's density, from the neighbours within h
//              (InitDensitiesAndForces, ComputeDensities, ComputeDensities2)
//   forces     pressure and viscosity from the same neighbours, gravity,
//              and the walls' penalty in the boundary cells (ComputeForces,
//              ProcessCollisions)
//   advance    leapfrog integration, reflection at the walls
//              (AdvanceParticles)
//
// What differs from PARSEC, and why: PARSEC visits each pair of
// neighbours once and adds the term to both particles, locking the cells
// on a partition's border; the order in which two partitions add to a
// border cell then depends on timing, and so do the last bits of the
// result. Here each particle gathers its own sums, over its neighbours in
// a fixed order (the 27 cells by z, y, x offset, each cell's particles in
// order), and each cell gathers its particles in rebuild in the same fixed
// order: twice PARSEC's pair terms, no locks, and every variant and
// partitioning gives the serial run's bits. The gather assumes that no
// particle crosses more than one cell per frame (cells are at least h
// wide: h / dt is 4.1 m/s at the paper's input and 10 m/s at quick, against
// about 1.5 m/s for water falling the dam's height), and that no partition
// receives more than 16 particles per cell; locate and rebuild report
// either, and the run then throws.
//
// For the simulator each phase declares, per row of its cells, the slots
// holding the particles it reads in the cells around and those it writes
// in its own cells, and the cycles of its operations counted as it runs
// (README.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/partition_tasks.hpp"

namespace fluidanimate {

// Particle slots per cell, owned by the cell's partition.
inline constexpr int slots = 16;

struct vec3 {
  float x, y, z;
};

// The constants of the method. Values as PARSEC's (kernel radius 1.695
// particle spacings, rest density 1000, stiffness 3, viscosity 0.4, walls'
// penalty 30000 and damping 128 from 0.2 mm), the time step half of
// PARSEC's 1 ms: with stiffness 3 the speed of sound is sqrt(3) m/s, and
// 1 ms steps are at 0.85 of its Courant limit at the paper's input.
struct physics {
  float h = 0, h2 = 0;
  float dt = 0.0005f;
  float density_coeff = 0;   // mass 315 / (64 pi h^9): the poly6 kernel
  float pressure_coeff = 0;  // mass 45 / (pi h^6) stiffness / 2: the spiky kernel's gradient
  float viscosity_coeff = 0; // mass 45 / (pi h^6) viscosity: the viscosity kernel's Laplacian
  float rest_density2 = 2000.0f;  // twice the rest density (the pressures of both particles)
  vec3 gravity{0.0f, -9.8f, 0.0f};
  vec3 lo{-0.065f, -0.08f, -0.065f};  // PARSEC's box, metres
  vec3 hi{0.065f, 0.1f, 0.065f};
  float wall_stiffness = 30000.0f, wall_damping = 128.0f, particle_radius = 0.0002f;

  // For particles `spacing` apart at rest.
  static physics for_spacing(double spacing) {
    constexpr double pi = 3.14159265358979323846;
    const double h = 1.695 * spacing, mass = 1000.0 * spacing * spacing * spacing;
    const double h6 = std::pow(h, 6), h9 = std::pow(h, 9);
    physics f;
    f.h = static_cast<float>(h);
    f.h2 = static_cast<float>(h * h);
    f.density_coeff = static_cast<float>(mass * 315.0 / (64.0 * pi * h9));
    f.pressure_coeff = static_cast<float>(mass * 45.0 / (pi * h6) * 3.0 / 2.0);
    f.viscosity_coeff = static_cast<float>(mass * 45.0 / (pi * h6) * 0.4);
    return f;
  }
};

// The grid: nx x ny x nz cells over the box, each at least h wide; cell
// (i, j, k) is number (k ny + j) nx + i, so a block of consecutive numbers
// is a slab of rows.
struct grid {
  int nx = 0, ny = 0, nz = 0;
  vec3 origin{}, size{};  // the box's low corner, a cell's size

  explicit grid(const physics& f) : origin(f.lo) {
    auto count = [&](float lo, float hi) { return std::max(1, static_cast<int>((hi - lo) / f.h)); };
    nx = count(f.lo.x, f.hi.x);
    ny = count(f.lo.y, f.hi.y);
    nz = count(f.lo.z, f.hi.z);
    size = {(f.hi.x - f.lo.x) / static_cast<float>(nx), (f.hi.y - f.lo.y) / static_cast<float>(ny),
            (f.hi.z - f.lo.z) / static_cast<float>(nz)};
  }
  std::int64_t cells() const { return static_cast<std::int64_t>(nx) * ny * nz; }
  std::int64_t index(int i, int j, int k) const { return (static_cast<std::int64_t>(k) * ny + j) * nx + i; }
  // The cell of a position, clamped into the grid (as PARSEC's).
  std::int64_t cell_of(vec3 p, int* i, int* j, int* k) const {
    auto axis = [](float x, float o, float s, int n) { return std::clamp(static_cast<int>((x - o) / s), 0, n - 1); };
    *i = axis(p.x, origin.x, size.x, nx);
    *j = axis(p.y, origin.y, size.y, ny);
    *k = axis(p.z, origin.z, size.z, nz);
    return index(*i, *j, *k);
  }
};

// One set of particles: position, the half-step velocity of the leapfrog
// and the velocity, by slot; cell c's particles in slots [start[c],
// start[c] + count[c]).
struct particles {
  std::vector<vec3> p, hv, v;
  std::vector<std::int32_t> start, count;
  void resize(std::int64_t cells) {
    for (auto* a : {&p, &hv, &v}) a->resize(static_cast<std::size_t>(cells * slots));
    start.resize(static_cast<std::size_t>(cells));
    count.resize(static_cast<std::size_t>(cells));
  }
  // One past the last slot in use by cells [first, last) (consecutive
  // cells of one partition), or `from` if they are empty.
  std::int64_t end_of(std::int64_t first, std::int64_t last, std::int64_t from) const {
    return last > first ? start[static_cast<std::size_t>(last - 1)] + count[static_cast<std::size_t>(last - 1)] : from;
  }
};

// What a frame computes besides the particles, by slot.
struct scratch {
  std::vector<float> density;
  std::vector<vec3> acc;
  std::vector<std::int32_t> dest;  // locate's cell for each particle of the source buffer
  void resize(std::int64_t cells) {
    density.resize(static_cast<std::size_t>(cells * slots));
    acc.resize(static_cast<std::size_t>(cells * slots));
    dest.resize(static_cast<std::size_t>(cells * slots));
  }
};

// Cycles declared per operation kind (one per arithmetic operation or
// comparison, sqrt and division one each).
inline constexpr std::uint64_t candidate_cycles = 7;   // a distance squared (3 sub, 3 mul/fma) and a compare
inline constexpr std::uint64_t density_cycles = 4;     // h2 - r2, its cube, the add
inline constexpr std::uint64_t force_cycles = 26;      // sqrt, h - r, the pressure and viscosity terms, the division
inline constexpr std::uint64_t locate_cycles = 15;     // 3 x (sub, div, clamp), the index, 3 distance checks
inline constexpr std::uint64_t advance_cycles = 18;    // leapfrog (4 vector fma/adds), 6 wall checks
inline constexpr std::uint64_t wall_cycles = 12;       // a boundary cell particle's penalty test per axis

// The simulator's view of a row of cells: the slots holding their
// particles, as ranges of consecutive slots (consecutive cells of one
// partition are one range).
class declared_rows {
 public:
  // Cells a..b-1 of row (j, k) of `at`, and with `around` the cells next to
  // them in the 9 rows (j +- 1, k +- 1) as well. Their starts and counts
  // are read (declared here, per z layer the rows between the first and
  // the last).
  void collect(const grid& g, const particles& at, int j, int k, int a, int b, bool around) {
    ranges_.clear();
    const int r = around ? 1 : 0;
    const int i0 = std::max(0, a - r), i1 = std::min(g.nx, b + r);
    const int j0 = std::max(0, j - r), j1 = std::min(g.ny - 1, j + r);
    for (int kk = std::max(0, k - r); kk <= std::min(g.nz - 1, k + r); ++kk) {
      const std::int64_t lo = g.index(i0, j0, kk), hi = g.index(i1 - 1, j1, kk) + 1;
      bench::touch_n(at.start.data() + lo, hi - lo, locus::access::read);
      bench::touch_n(at.count.data() + lo, hi - lo, locus::access::read);
      for (int jj = j0; jj <= j1; ++jj)
        for (std::int64_t c = g.index(i0, jj, kk); c < g.index(i1 - 1, jj, kk) + 1; ++c) {
          const std::int64_t first = at.start[static_cast<std::size_t>(c)], n = at.count[static_cast<std::size_t>(c)];
          if (n == 0) continue;
          if (!ranges_.empty() && ranges_.back().second == first) ranges_.back().second += n;
          else ranges_.push_back({first, first + n});
        }
    }
  }
  // The collected slots of a per-slot array.
  template <class T>
  void touch(const T* array, locus::access how) const {
    for (const auto& [lo, hi] : ranges_) bench::touch_n(array + lo, hi - lo, how);
  }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges_;
};

// Calls fn(a, b, j, k, d) for each run of cells [a, b) of one row (j, k)
// among cells [first, last); d is where to declare its accesses, nullptr
// unless the simulator runs.
template <class Fn>
void for_rows(const grid& g, std::int64_t first, std::int64_t last, Fn&& fn) {
  declared_rows declare;
  declared_rows* d = locus::simulating() ? &declare : nullptr;
  for (std::int64_t c = first; c < last;) {
    const std::int64_t row = c / g.nx;
    const std::int64_t row_end = std::min(last, (row + 1) * g.nx);
    fn(static_cast<int>(c - row * g.nx), static_cast<int>(row_end - row * g.nx), static_cast<int>(row % g.ny),
       static_cast<int>(row / g.ny), d);
    c = row_end;
  }
}

// fn(neighbour cell) for the cells around (i, j, k), itself included, in the
// fixed order every phase uses.
template <class Fn>
inline void for_neighbours(const grid& g, int i, int j, int k, Fn&& fn) {
  for (int kk = std::max(0, k - 1); kk <= std::min(g.nz - 1, k + 1); ++kk)
    for (int jj = std::max(0, j - 1); jj <= std::min(g.ny - 1, j + 1); ++jj)
      for (int ii = std::max(0, i - 1); ii <= std::min(g.nx - 1, i + 1); ++ii) fn(g.index(ii, jj, kk));
}

// The slots of cell c's particles.
inline std::int64_t first_slot(const particles& at, std::int64_t c) { return at.start[static_cast<std::size_t>(c)]; }
inline std::int64_t end_slot(const particles& at, std::int64_t c) {
  return at.start[static_cast<std::size_t>(c)] + at.count[static_cast<std::size_t>(c)];
}

// The phases, each over the cells [first, last) of one partition. Out of
// line, so that there is one copy of the floating-point code for every
// backend.
namespace phase {

// Returns false if a particle moved more than one cell.
[[gnu::noinline]] inline bool locate(const grid& g, const particles& from, std::int32_t* dest, std::int64_t first,
                                     std::int64_t last) {
  const std::int64_t lo = first * slots, hi = from.end_of(first, last, lo);
  bench::touch_n(from.start.data() + first, last - first, locus::access::read);
  bench::touch_n(from.count.data() + first, last - first, locus::access::read);
  bench::touch_n(from.p.data() + lo, hi - lo, locus::access::read);
  bench::touch_n(dest + lo, hi - lo, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(hi - lo) * locate_cycles);
  bool ok = true;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_rows*) {
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      for (std::int64_t o = first_slot(from, c); o < end_slot(from, c); ++o) {
        int ni = 0, nj = 0, nk = 0;
        dest[o] = static_cast<std::int32_t>(g.cell_of(from.p[static_cast<std::size_t>(o)], &ni, &nj, &nk));
        if (std::abs(ni - i) > 1 || std::abs(nj - j) > 1 || std::abs(nk - k) > 1) ok = false;
      }
    }
  });
  return ok;
}

// Returns false if the partition's cells would receive more than `slots`
// particles per cell.
[[gnu::noinline]] inline bool rebuild(const grid& g, const particles& from, const std::int32_t* dest, particles& to,
                                      std::int64_t first, std::int64_t last) {
  std::int64_t next = first * slots;
  const std::int64_t room = last * slots;
  bool ok = true;
  std::uint64_t candidates = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_rows* d) {
    if (d) {
      d->collect(g, from, j, k, a, b, true);
      d->touch(dest, locus::access::read);
      d->touch(from.p.data(), locus::access::read);
      d->touch(from.hv.data(), locus::access::read);
      d->touch(from.v.data(), locus::access::read);
    }
    const std::int64_t row_first = next;
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      to.start[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(next);
      for_neighbours(g, i, j, k, [&](std::int64_t nb) {
        for (std::int64_t o = first_slot(from, nb); o < end_slot(from, nb); ++o) {
          ++candidates;
          if (dest[o] != c) continue;
          if (next == room) {
            ok = false;
            continue;
          }
          const auto at = static_cast<std::size_t>(next++), was = static_cast<std::size_t>(o);
          to.p[at] = from.p[was];
          to.hv[at] = from.hv[was];
          to.v[at] = from.v[was];
        }
      });
      to.count[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(next - to.start[static_cast<std::size_t>(c)]);
    }
    const std::int64_t cells = g.index(a, j, k);
    bench::touch_n(to.start.data() + cells, b - a, locus::access::write);
    bench::touch_n(to.count.data() + cells, b - a, locus::access::write);
    for (auto* field : {&to.p, &to.hv, &to.v}) bench::touch_n(field->data() + row_first, next - row_first, locus::access::write);
  });
  locus::compute(candidates);  // a compare each
  return ok;
}

[[gnu::noinline]] inline void densities(const grid& g, const physics& f, const particles& at, float* density,
                                        std::int64_t first, std::int64_t last) {
  std::uint64_t candidates = 0, pairs = 0, own = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_rows* d) {
    if (d) {
      d->collect(g, at, j, k, a, b, true);
      d->touch(at.p.data(), locus::access::read);
    }
    const std::int64_t row_first = first_slot(at, g.index(a, j, k)), row_end = end_slot(at, g.index(b - 1, j, k));
    bench::touch_n(density + row_first, row_end - row_first, locus::access::write);
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      for (std::int64_t me = first_slot(at, c); me < end_slot(at, c); ++me) {
        const vec3 p = at.p[static_cast<std::size_t>(me)];
        float sum = 0.0f;
        for_neighbours(g, i, j, k, [&](std::int64_t nb) {
          for (std::int64_t o = first_slot(at, nb); o < end_slot(at, nb); ++o) {
            if (o == me) continue;
            ++candidates;
            const vec3 q = at.p[static_cast<std::size_t>(o)];
            const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < f.h2) {
              const float t = f.h2 - r2;
              sum += t * t * t;
              ++pairs;
            }
          }
        });
        // The particle's own term, h^6, then the kernel's constant.
        density[me] = (sum + f.h2 * f.h2 * f.h2) * f.density_coeff;
        ++own;
      }
    }
  });
  locus::compute(candidates * candidate_cycles + pairs * density_cycles + own * 2);
}

[[gnu::noinline]] inline void forces(const grid& g, const physics& f, const particles& at, const float* density,
                                     vec3* acc, std::int64_t first, std::int64_t last) {
  std::uint64_t candidates = 0, pairs = 0, walls = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_rows* d) {
    if (d) {
      d->collect(g, at, j, k, a, b, true);
      d->touch(at.p.data(), locus::access::read);
      d->touch(at.v.data(), locus::access::read);
      d->touch(density, locus::access::read);
    }
    const std::int64_t row_first = first_slot(at, g.index(a, j, k)), row_end = end_slot(at, g.index(b - 1, j, k));
    bench::touch_n(at.hv.data() + row_first, row_end - row_first, locus::access::read);
    bench::touch_n(acc + row_first, row_end - row_first, locus::access::write);
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      const bool boundary = i == 0 || j == 0 || k == 0 || i == g.nx - 1 || j == g.ny - 1 || k == g.nz - 1;
      for (std::int64_t me = first_slot(at, c); me < end_slot(at, c); ++me) {
        const auto m = static_cast<std::size_t>(me);
        const vec3 p = at.p[m], v = at.v[m];
        const float rho = density[me];
        vec3 sum = f.gravity;
        for_neighbours(g, i, j, k, [&](std::int64_t nb) {
          for (std::int64_t o = first_slot(at, nb); o < end_slot(at, nb); ++o) {
            if (o == me) continue;
            ++candidates;
            const auto n = static_cast<std::size_t>(o);
            const vec3 disp{p.x - at.p[n].x, p.y - at.p[n].y, p.z - at.p[n].z};
            const float r2 = disp.x * disp.x + disp.y * disp.y + disp.z * disp.z;
            if (r2 >= f.h2) continue;
            ++pairs;
            const float r = std::sqrt(std::max(r2, 1e-12f));
            const float hr = f.h - r;
            // Pressure along the displacement (the two particles' mean
            // pressure, stiffness (rho - rho0) each), viscosity along the
            // velocity difference, both over the two densities.
            const float push = f.pressure_coeff * (hr * hr / r) * (rho + density[o] - f.rest_density2);
            const float drag = f.viscosity_coeff * hr;
            const float inv = 1.0f / (rho * density[o]);
            sum.x += (disp.x * push + (at.v[n].x - v.x) * drag) * inv;
            sum.y += (disp.y * push + (at.v[n].y - v.y) * drag) * inv;
            sum.z += (disp.z * push + (at.v[n].z - v.z) * drag) * inv;
          }
        });
        if (boundary) {
          // The walls' penalty where the particle would be next step (PARSEC's
          // ProcessCollisions, on the cells at the box's faces only).
          const vec3 hv = at.hv[m];
          const vec3 next{p.x + hv.x * f.dt, p.y + hv.y * f.dt, p.z + hv.z * f.dt};
          auto wall = [&](float x, float lo, float hi, float vel, float& a_axis) {
            const float below = f.particle_radius - (x - lo);
            if (below > 1e-10f) a_axis += f.wall_stiffness * below - f.wall_damping * vel;
            const float above = f.particle_radius - (hi - x);
            if (above > 1e-10f) a_axis -= f.wall_stiffness * above + f.wall_damping * vel;
          };
          wall(next.x, f.lo.x, f.hi.x, v.x, sum.x);
          wall(next.y, f.lo.y, f.hi.y, v.y, sum.y);
          wall(next.z, f.lo.z, f.hi.z, v.z, sum.z);
          ++walls;
        }
        acc[m] = sum;
      }
    }
  });
  locus::compute(candidates * candidate_cycles + pairs * force_cycles + walls * wall_cycles);
}

[[gnu::noinline]] inline void advance(const physics& f, particles& at, const vec3* acc, std::int64_t first,
                                      std::int64_t last) {
  const std::int64_t lo = first * slots, hi = at.end_of(first, last, lo);
  bench::touch_n(at.start.data() + first, last - first, locus::access::read);
  bench::touch_n(at.count.data() + first, last - first, locus::access::read);
  bench::touch_n(acc + lo, hi - lo, locus::access::read);
  for (auto* field : {&at.p, &at.hv, &at.v}) bench::touch_n(field->data() + lo, hi - lo, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(hi - lo) * advance_cycles);
  // The partition's particles are its slots [lo, hi), in cell order.
  for (auto me = static_cast<std::size_t>(lo); me < static_cast<std::size_t>(hi); ++me) {
    vec3& p = at.p[me];
    vec3& hv = at.hv[me];
    vec3& v = at.v[me];
    // Leapfrog: the half step's velocity, the position, the velocity
    // as the mean of the two half steps.
    const vec3 half{hv.x + acc[me].x * f.dt, hv.y + acc[me].y * f.dt, hv.z + acc[me].z * f.dt};
    p = {p.x + half.x * f.dt, p.y + half.y * f.dt, p.z + half.z * f.dt};
    v = {(hv.x + half.x) * 0.5f, (hv.y + half.y) * 0.5f, (hv.z + half.z) * 0.5f};
    hv = half;
    // A particle the penalty did not stop is mirrored back into the box.
    auto reflect = [](float& x, float& h, float& u, float lo_wall, float hi_wall) {
      if (x < lo_wall) {
        x = lo_wall + (lo_wall - x);
        h = -h;
        u = -u;
      } else if (x > hi_wall) {
        x = hi_wall - (x - hi_wall);
        h = -h;
        u = -u;
      }
    };
    reflect(p.x, hv.x, v.x, f.lo.x, f.hi.x);
    reflect(p.y, hv.y, v.y, f.lo.y, f.hi.y);
    reflect(p.z, hv.z, v.z, f.lo.z, f.hi.z);
  }
}

}  // namespace phase

// The input: particles by cell, cell c's at [start[c], start[c] + count[c])
// of one array (a file's contents, binned).
struct input {
  std::vector<vec3> p;
  std::vector<std::int32_t> start, count;
};

// The input copied into `to`, each partition's cells packed from its first
// slot, by the coordinator alone before the first frame, as PARSEC's
// InitSim reads the file into its cells: with first touch its pages are on
// the coordinator's node. The particles start at rest. Throws
// std::logic_error if a partition holds more than `slots` per cell.
inline void load(const grid& g, const input& in, particles& to, int parts) {
  bench::touch_n(in.p.data(), static_cast<std::int64_t>(in.p.size()), locus::access::read);
  bench::touch_n(to.start.data(), g.cells(), locus::access::write);
  bench::touch_n(to.count.data(), g.cells(), locus::access::write);
  for (int part = 0; part < parts; ++part) {
    const bench::partition_range r(g.cells(), part, parts);
    std::int64_t next = r.begin * slots;
    for (std::int64_t c = r.begin; c < r.end; ++c) {
      const auto cell = static_cast<std::size_t>(c);
      if (next + in.count[cell] > r.end * slots)
        throw std::logic_error("fluidanimate: the input has more than " + std::to_string(slots) +
                               " particles per cell in partition " + std::to_string(part));
      to.start[cell] = static_cast<std::int32_t>(next);
      to.count[cell] = in.count[cell];
      for (std::int32_t s = 0; s < in.count[cell]; ++s, ++next) {
        const auto at = static_cast<std::size_t>(next);
        to.p[at] = in.p[static_cast<std::size_t>(in.start[cell] + s)];
        to.hv[at] = to.v[at] = {0.0f, 0.0f, 0.0f};
      }
    }
    for (auto* field : {&to.p, &to.hv, &to.v})
      bench::touch_n(field->data() + r.begin * slots, next - r.begin * slots, locus::access::write);
  }
}

// `frames` frames from `in`, each phase one task per partition of the
// cells; the state alternates between buf[0] and buf[1]. Returns the
// buffer holding the last frame. Throws std::runtime_error if a particle
// crossed more than one cell in a frame or a partition overflowed.
template <class P>
int simulate(const grid& g, const physics& f, const input& in, particles* buf, scratch& s, int frames, int parts) {
  std::vector<char> ok(static_cast<std::size_t>(parts));
  // Runs a phase over every partition; false if one of them reported a failure.
  auto launch = [&](auto&& phase_of_range) {
    std::fill(ok.begin(), ok.end(), 1);
    bench::partition_tasks<P>(parts, [&](int part) {
      const bench::partition_range r(g.cells(), part, parts);
      ok[static_cast<std::size_t>(part)] = phase_of_range(r.begin, r.end);
    });
    return std::all_of(ok.begin(), ok.end(), [](char x) { return x != 0; });
  };
  bench::partition_program<P>([&] {
    load(g, in, buf[0], parts);
    for (int frame = 0; frame < frames; ++frame) {
      const particles& from = buf[frame % 2];
      particles& to = buf[1 - frame % 2];
      if (!launch([&](std::int64_t a, std::int64_t b) { return phase::locate(g, from, s.dest.data(), a, b); }))
        throw std::runtime_error("fluidanimate: frame " + std::to_string(frame) +
                                 ": a particle moved more than one cell; rebuild gathers from the cells around only");
      if (!launch([&](std::int64_t a, std::int64_t b) { return phase::rebuild(g, from, s.dest.data(), to, a, b); }))
        throw std::runtime_error("fluidanimate: frame " + std::to_string(frame) + ": a partition's cells received more than " +
                                 std::to_string(slots) + " particles per cell");
      launch([&](std::int64_t a, std::int64_t b) {
        phase::densities(g, f, to, s.density.data(), a, b);
        return true;
      });
      launch([&](std::int64_t a, std::int64_t b) {
        phase::forces(g, f, to, s.density.data(), s.acc.data(), a, b);
        return true;
      });
      launch([&](std::int64_t a, std::int64_t b) {
        phase::advance(f, to, s.acc.data(), a, b);
        return true;
      });
    }
  });
  return frames % 2;
}

}  // namespace fluidanimate
