// fluidanimate: smoothed particle hydrodynamics on a grid of cells, as
// PARSEC's fluidanimate computes a frame (Müller, Charypar and Gross,
// "Particle-based fluid simulation for interactive applications", 2003):
// the particles are binned in cells at least one smoothing length h wide,
// so a particle's neighbours lie in its cell and the 26 around it; a cell
// holds up to 16 particles (PARSEC's PARTICLES_PER_CELL), one array per
// field, slot s of cell c at c * 16 + s.
//
// A frame is five phases, each one task per partition of the cells
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
// a fixed order (the 27 cells by z, y, x offset, each cell's slots in
// order), and each cell gathers its particles in rebuild in the same fixed
// order: twice PARSEC's pair terms, no locks, and every variant and
// partitioning gives the serial run's bits. The gather assumes that no
// particle crosses more than one cell per frame (cells are at least h
// wide: h / dt is 4.1 m/s at the paper's input and 10 m/s at quick, against
// about 1.5 m/s for water falling the dam's height), and that
// no cell receives more than 16 particles (PARSEC chains an overflow cell
// instead); locate and rebuild report either, and the run then throws.
//
// For the simulator each phase declares, per row of its cells, the cache
// lines holding the particles it reads in the cells around and the ones it
// writes in its own cells (locus::touch_indexed: the lines of a cell that
// hold particles, not its empty slots), and the cycles of its operations
// counted as it runs (README.md).
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

// One set of particles by cell: position, the half-step velocity of the
// leapfrog and the velocity, slot s of cell c at c * slots + s; count[c]
// particles in cell c.
struct particles {
  std::vector<vec3> p, hv, v;
  std::vector<std::int32_t> count;
  void resize(std::int64_t cells) {
    for (auto* a : {&p, &hv, &v}) a->resize(static_cast<std::size_t>(cells * slots));
    count.resize(static_cast<std::size_t>(cells));
  }
};

// What a frame computes besides the particles, one entry per slot.
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

// The simulator's view of a row of cells: the lines holding particles.
class declared_cells {
 public:
  // Cells a..b-1 of row (j, k), and with `around` the cells next to them in
  // the 9 rows (j +- 1, k +- 1) as well: the cells a phase reads around its
  // own. The counts of all of them are read (declared here).
  void collect(const grid& g, const std::int32_t* count, int j, int k, int a, int b, bool around) {
    cells_.clear();
    const int r = around ? 1 : 0;
    for (int dk = -r; dk <= r; ++dk)
      for (int dj = -r; dj <= r; ++dj) {
        const int jj = j + dj, kk = k + dk;
        if (jj < 0 || jj >= g.ny || kk < 0 || kk >= g.nz) continue;
        for (int i = std::max(0, a - r); i < std::min(g.nx, b + r); ++i) cells_.push_back(g.index(i, jj, kk));
      }
    locus::touch_indexed(count, cells_.data(), cells_.size(), sizeof(std::int32_t));
    count_ = count;
  }
  // The lines of `array` (per-slot elements of `bytes` each) holding the
  // particles of the collected cells.
  void touch(const void* array, std::size_t bytes, locus::access how) {
    lines_.clear();
    const std::int64_t line = 64;
    for (std::int64_t c : cells_) {
      const std::int64_t n = count_[c];
      if (n == 0) continue;
      const std::int64_t first = c * slots * static_cast<std::int64_t>(bytes);
      for (std::int64_t l = first / line; l <= (first + n * static_cast<std::int64_t>(bytes) - 1) / line; ++l) lines_.push_back(l);
    }
    locus::touch_indexed(array, lines_.data(), lines_.size(), line, how);
  }

 private:
  std::vector<std::int64_t> cells_, lines_;
  const std::int32_t* count_ = nullptr;
};

// Calls fn(a, b, j, k, d) for each run of cells [a, b) of one row (j, k)
// among cells [first, last); d is where to declare its accesses, nullptr
// unless the simulator runs.
template <class Fn>
void for_rows(const grid& g, std::int64_t first, std::int64_t last, Fn&& fn) {
  declared_cells declare;
  declared_cells* d = locus::simulating() ? &declare : nullptr;
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

// The phases, each over cells [first, last). Out of line, so that there is
// one copy of the floating-point code for every backend.
namespace phase {

// Returns false if a particle moved more than one cell.
[[gnu::noinline]] inline bool locate(const grid& g, const particles& from, std::int32_t* dest, std::int64_t first,
                                     std::int64_t last) {
  bool ok = true;
  std::uint64_t moved = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_cells* d) {
    if (d) {
      d->collect(g, from.count.data(), j, k, a, b, false);
      d->touch(from.p.data(), sizeof(vec3), locus::access::read);
      d->touch(dest, sizeof(std::int32_t), locus::access::write);
    }
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      for (int s = 0; s < from.count[c]; ++s) {
        int ni = 0, nj = 0, nk = 0;
        dest[c * slots + s] = static_cast<std::int32_t>(g.cell_of(from.p[c * slots + s], &ni, &nj, &nk));
        if (std::abs(ni - i) > 1 || std::abs(nj - j) > 1 || std::abs(nk - k) > 1) ok = false;
        ++moved;
      }
    }
  });
  locus::compute(moved * locate_cycles);
  return ok;
}

// Returns false if a cell would receive more than `slots` particles.
[[gnu::noinline]] inline bool rebuild(const grid& g, const particles& from, const std::int32_t* dest, particles& to,
                                      std::int64_t first, std::int64_t last) {
  bool ok = true;
  std::uint64_t candidates = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_cells* d) {
    if (d) {
      d->collect(g, from.count.data(), j, k, a, b, true);
      d->touch(dest, sizeof(std::int32_t), locus::access::read);
      for (const auto* field : {&from.p, &from.hv, &from.v}) d->touch(field->data(), sizeof(vec3), locus::access::read);
    }
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      int n = 0;
      for_neighbours(g, i, j, k, [&](std::int64_t nb) {
        for (int s = 0; s < from.count[nb]; ++s) {
          ++candidates;
          if (dest[nb * slots + s] != c) continue;
          if (n == slots) {
            ok = false;
            continue;
          }
          to.p[c * slots + n] = from.p[nb * slots + s];
          to.hv[c * slots + n] = from.hv[nb * slots + s];
          to.v[c * slots + n] = from.v[nb * slots + s];
          ++n;
        }
      });
      to.count[c] = n;
    }
    if (d) {
      d->collect(g, to.count.data(), j, k, a, b, false);
      for (auto* field : {&to.p, &to.hv, &to.v}) d->touch(field->data(), sizeof(vec3), locus::access::write);
    }
  });
  locus::compute(candidates);  // a compare each
  return ok;
}

[[gnu::noinline]] inline void densities(const grid& g, const physics& f, const particles& at, float* density,
                                        std::int64_t first, std::int64_t last) {
  std::uint64_t candidates = 0, pairs = 0, own = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_cells* d) {
    if (d) {
      d->collect(g, at.count.data(), j, k, a, b, true);
      d->touch(at.p.data(), sizeof(vec3), locus::access::read);
      d->collect(g, at.count.data(), j, k, a, b, false);
      d->touch(density, sizeof(float), locus::access::write);
    }
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      for (int s = 0; s < at.count[c]; ++s) {
        const std::int64_t me = c * slots + s;
        const vec3 p = at.p[me];
        float sum = 0.0f;
        for_neighbours(g, i, j, k, [&](std::int64_t nb) {
          for (std::int64_t o = nb * slots; o < nb * slots + at.count[nb]; ++o) {
            if (o == me) continue;
            ++candidates;
            const float dx = p.x - at.p[o].x, dy = p.y - at.p[o].y, dz = p.z - at.p[o].z;
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
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_cells* d) {
    if (d) {
      d->collect(g, at.count.data(), j, k, a, b, true);
      d->touch(at.p.data(), sizeof(vec3), locus::access::read);
      d->touch(at.v.data(), sizeof(vec3), locus::access::read);
      d->touch(density, sizeof(float), locus::access::read);
      d->collect(g, at.count.data(), j, k, a, b, false);
      d->touch(at.hv.data(), sizeof(vec3), locus::access::read);
      d->touch(acc, sizeof(vec3), locus::access::write);
    }
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      const bool boundary = i == 0 || j == 0 || k == 0 || i == g.nx - 1 || j == g.ny - 1 || k == g.nz - 1;
      for (int s = 0; s < at.count[c]; ++s) {
        const std::int64_t me = c * slots + s;
        const vec3 p = at.p[me], v = at.v[me];
        const float rho = density[me];
        vec3 sum = f.gravity;
        for_neighbours(g, i, j, k, [&](std::int64_t nb) {
          for (std::int64_t o = nb * slots; o < nb * slots + at.count[nb]; ++o) {
            if (o == me) continue;
            ++candidates;
            const vec3 disp{p.x - at.p[o].x, p.y - at.p[o].y, p.z - at.p[o].z};
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
            sum.x += (disp.x * push + (at.v[o].x - v.x) * drag) * inv;
            sum.y += (disp.y * push + (at.v[o].y - v.y) * drag) * inv;
            sum.z += (disp.z * push + (at.v[o].z - v.z) * drag) * inv;
          }
        });
        if (boundary) {
          // The walls' penalty where the particle would be next step (PARSEC's
          // ProcessCollisions, on the cells at the box's faces only).
          const vec3 next{p.x + at.hv[me].x * f.dt, p.y + at.hv[me].y * f.dt, p.z + at.hv[me].z * f.dt};
          auto wall = [&](float x, float lo, float hi, float vel, float& a) {
            const float below = f.particle_radius - (x - lo);
            if (below > 1e-10f) a += f.wall_stiffness * below - f.wall_damping * vel;
            const float above = f.particle_radius - (hi - x);
            if (above > 1e-10f) a -= f.wall_stiffness * above + f.wall_damping * vel;
          };
          wall(next.x, f.lo.x, f.hi.x, v.x, sum.x);
          wall(next.y, f.lo.y, f.hi.y, v.y, sum.y);
          wall(next.z, f.lo.z, f.hi.z, v.z, sum.z);
          ++walls;
        }
        acc[me] = sum;
      }
    }
  });
  locus::compute(candidates * candidate_cycles + pairs * force_cycles + walls * wall_cycles);
}

[[gnu::noinline]] inline void advance(const grid& g, const physics& f, particles& at, const vec3* acc,
                                      std::int64_t first, std::int64_t last) {
  std::uint64_t moved = 0;
  for_rows(g, first, last, [&](int a, int b, int j, int k, declared_cells* d) {
    if (d) {
      d->collect(g, at.count.data(), j, k, a, b, false);
      d->touch(acc, sizeof(vec3), locus::access::read);
      for (auto* field : {&at.p, &at.hv, &at.v}) d->touch(field->data(), sizeof(vec3), locus::access::write);
    }
    for (int i = a; i < b; ++i) {
      const std::int64_t c = g.index(i, j, k);
      for (std::int64_t me = c * slots; me < c * slots + at.count[c]; ++me) {
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
        auto reflect = [](float& x, float& h, float& u, float lo, float hi) {
          if (x < lo) {
            x = lo + (lo - x);
            h = -h;
            u = -u;
          } else if (x > hi) {
            x = hi - (x - hi);
            h = -h;
            u = -u;
          }
        };
        reflect(p.x, hv.x, v.x, f.lo.x, f.hi.x);
        reflect(p.y, hv.y, v.y, f.lo.y, f.hi.y);
        reflect(p.z, hv.z, v.z, f.lo.z, f.hi.z);
        ++moved;
      }
    }
  });
  locus::compute(moved * advance_cycles);
}

}  // namespace phase

// The input, copied into `to` by the coordinator alone before the first
// frame, as PARSEC's InitSim reads the file into its cells: with first
// touch its pages are on the coordinator's node.
inline void load(const grid& g, const particles& initial, particles& to) {
  bench::touch_n(to.count.data(), g.cells(), locus::access::write);
  for_rows(g, 0, g.cells(), [&](int a, int b, int j, int k, declared_cells* d) {
    if (!d) return;
    d->collect(g, initial.count.data(), j, k, a, b, false);
    for (const auto* field : {&initial.p, &initial.hv, &initial.v}) d->touch(field->data(), sizeof(vec3), locus::access::read);
    for (auto* field : {&to.p, &to.hv, &to.v}) d->touch(field->data(), sizeof(vec3), locus::access::write);
  });
  to.count = initial.count;
  for (std::int64_t c = 0; c < g.cells(); ++c)
    for (std::int64_t o = c * slots; o < c * slots + initial.count[c]; ++o) {
      to.p[o] = initial.p[o];
      to.hv[o] = initial.hv[o];
      to.v[o] = initial.v[o];
    }
}

// `frames` frames from `initial`, each phase one task per partition of the
// cells; the state alternates between buf[0] and buf[1]. Returns the
// buffer holding the last frame. Throws std::runtime_error if a particle
// crossed more than one cell in a frame or a cell overflowed.
template <class P>
int simulate(const grid& g, const physics& f, const particles& initial, particles* buf, scratch& s, int frames,
             int parts) {
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
    load(g, initial, buf[0]);
    for (int frame = 0; frame < frames; ++frame) {
      const particles& from = buf[frame % 2];
      particles& to = buf[1 - frame % 2];
      if (!launch([&](std::int64_t a, std::int64_t b) { return phase::locate(g, from, s.dest.data(), a, b); }))
        throw std::runtime_error("fluidanimate: frame " + std::to_string(frame) +
                                 ": a particle moved more than one cell; rebuild gathers from the cells around only");
      if (!launch([&](std::int64_t a, std::int64_t b) { return phase::rebuild(g, from, s.dest.data(), to, a, b); }))
        throw std::runtime_error("fluidanimate: frame " + std::to_string(frame) + ": a cell received more than " +
                                 std::to_string(slots) + " particles");
      launch([&](std::int64_t a, std::int64_t b) {
        phase::densities(g, f, to, s.density.data(), a, b);
        return true;
      });
      launch([&](std::int64_t a, std::int64_t b) {
        phase::forces(g, f, to, s.density.data(), s.acc.data(), a, b);
        return true;
      });
      launch([&](std::int64_t a, std::int64_t b) {
        phase::advance(g, f, to, s.acc.data(), a, b);
        return true;
      });
    }
  });
  return frames % 2;
}

}  // namespace fluidanimate
