// mg-graph: the NAS MG operators (NPB 3 serial MG: resid, psinv, rprj3,
// interp, norm2u3, comm3 and the zran3 right-hand side), written here from
// the benchmark's specification, over planes of a level's grid so that a
// task-graph node, a loop piece and the serial version all call the same
// function on a range of planes.
//
// A level of n^3 points is stored with one ghost layer on each side: m = n
// + 2 points a side, index (i3 * m + i2) * m + i1, i1 fastest; interior
// points are 1..n in each direction and the ghosts hold the periodic copies
// (NAS comm3: ghost 0 = point n, ghost n + 1 = point 1). Every operator on
// planes [lo, hi) (interior planes, 1 <= lo < hi <= n + 1) computes its
// planes, fills their in-plane ghosts as comm3 does, and fills the ghost
// plane that copies one of its planes (plane 0 if it holds plane n, plane
// n + 1 if it holds plane 1). comm3 copies whole planes after the in-plane
// ghosts are filled, so this gives the same values, bit for bit, in any
// split of the planes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <locus/annotate.hpp>

namespace mg {

struct grid {
  std::int64_t n = 0;  // interior points a side
  std::vector<double> data;
  explicit grid(std::int64_t interior = 0) : n(interior), data(static_cast<std::size_t>(side() * side() * side())) {}
  std::int64_t side() const { return n + 2; }
  std::int64_t plane_size() const { return side() * side(); }
  double* plane(std::int64_t i3) { return data.data() + i3 * plane_size(); }
  const double* plane(std::int64_t i3) const { return data.data() + i3 * plane_size(); }
};

// NAS MG's coefficients: a for the residual (a[1] = 0, so resid leaves its
// term out, as NAS does), c for the smoother of classes S, W and A.
inline constexpr double a[4] = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
inline constexpr double c[4] = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};

// The simulator's view of an operator on planes: the planes [from, to) of
// `in` it reads, the planes of `out` it writes, and `cycles` per point
// written (its additions and multiplications).
inline void declare_planes(const grid& g, std::int64_t from, std::int64_t to, locus::access how) {
  locus::touch(g.plane(from), static_cast<std::size_t>((to - from) * g.plane_size()) * sizeof(double), how);
}
inline void declare_cycles(const grid& g, std::int64_t planes, std::uint64_t per_point) {
  locus::compute(per_point * static_cast<std::uint64_t>(planes * g.n * g.n));
}

// comm3 for planes [lo, hi) of g, which the caller has just computed.
inline void fill_ghosts(grid& g, std::int64_t lo, std::int64_t hi) {
  const std::int64_t m = g.side(), n = g.n;
  for (std::int64_t i3 = lo; i3 < hi; ++i3) {
    double* p = g.plane(i3);
    for (std::int64_t i2 = 1; i2 <= n; ++i2) {
      p[i2 * m] = p[i2 * m + n];
      p[i2 * m + n + 1] = p[i2 * m + 1];
    }
    std::memcpy(p, p + n * m, static_cast<std::size_t>(m) * sizeof(double));
    std::memcpy(p + (n + 1) * m, p + m, static_cast<std::size_t>(m) * sizeof(double));
  }
  const auto bytes = static_cast<std::size_t>(g.plane_size()) * sizeof(double);
  if (lo == 1) std::memcpy(g.plane(n + 1), g.plane(1), bytes);
  if (hi == n + 1) std::memcpy(g.plane(0), g.plane(n), bytes);
}

// r = v - A u on planes [lo, hi) (NAS resid). v may be r itself: each
// point reads v only at itself.
inline void resid(const grid& u, const grid& v, grid& r, std::int64_t lo, std::int64_t hi) {
  const std::int64_t m = u.side(), n = u.n;
  declare_planes(u, lo - 1, hi + 1, locus::access::read);
  declare_planes(v, lo, hi, locus::access::read);
  declare_planes(r, lo, hi, locus::access::write);
  declare_cycles(u, hi - lo, 17);
  std::vector<double> u1(static_cast<std::size_t>(m)), u2(static_cast<std::size_t>(m));
  for (std::int64_t i3 = lo; i3 < hi; ++i3)
    for (std::int64_t i2 = 1; i2 <= n; ++i2) {
      const double* uc = u.plane(i3) + i2 * m;
      const double *un = uc - m, *us = uc + m;                                // i2 - 1, i2 + 1
      const double *ub = u.plane(i3 - 1) + i2 * m, *uf = u.plane(i3 + 1) + i2 * m;  // i3 - 1, i3 + 1
      for (std::int64_t i1 = 0; i1 < m; ++i1) {
        u1[i1] = un[i1] + us[i1] + ub[i1] + uf[i1];
        u2[i1] = (ub - m)[i1] + (ub + m)[i1] + (uf - m)[i1] + (uf + m)[i1];
      }
      const double* vc = v.plane(i3) + i2 * m;
      double* rc = r.plane(i3) + i2 * m;
      for (std::int64_t i1 = 1; i1 <= n; ++i1)
        rc[i1] = vc[i1] - a[0] * uc[i1] - a[2] * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) - a[3] * (u2[i1 - 1] + u2[i1 + 1]);
    }
  fill_ghosts(r, lo, hi);
}

// u += C r on planes [lo, hi) (NAS psinv, the smoother); zero first:
// u = C r (NAS's zero3 then psinv on the coarsest level).
inline void psinv(const grid& r, grid& u, std::int64_t lo, std::int64_t hi, bool zero_first) {
  const std::int64_t m = r.side(), n = r.n;
  declare_planes(r, lo - 1, hi + 1, locus::access::read);
  declare_planes(u, lo, hi, locus::access::write);
  declare_cycles(r, hi - lo, 17);
  if (zero_first) std::fill(u.plane(lo), u.plane(hi), 0.0);
  std::vector<double> r1(static_cast<std::size_t>(m)), r2(static_cast<std::size_t>(m));
  for (std::int64_t i3 = lo; i3 < hi; ++i3)
    for (std::int64_t i2 = 1; i2 <= n; ++i2) {
      const double* rc = r.plane(i3) + i2 * m;
      const double *rn = rc - m, *rs = rc + m;
      const double *rb = r.plane(i3 - 1) + i2 * m, *rf = r.plane(i3 + 1) + i2 * m;
      for (std::int64_t i1 = 0; i1 < m; ++i1) {
        r1[i1] = rn[i1] + rs[i1] + rb[i1] + rf[i1];
        r2[i1] = (rb - m)[i1] + (rb + m)[i1] + (rf - m)[i1] + (rf + m)[i1];
      }
      double* uc = u.plane(i3) + i2 * m;
      for (std::int64_t i1 = 1; i1 <= n; ++i1)
        uc[i1] = uc[i1] + c[0] * rc[i1] + c[1] * (rc[i1 - 1] + rc[i1 + 1] + r1[i1]) +
                 c[2] * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
    }
  fill_ghosts(u, lo, hi);
}

// The planes of the finer grid rprj3 reads for coarse planes [lo, hi):
// fine plane 2 j and its two neighbours for each coarse plane j.
inline std::int64_t restrict_from(std::int64_t lo) { return 2 * lo - 1; }
inline std::int64_t restrict_to(std::int64_t hi) { return 2 * hi; }  // exclusive

// s = the restriction of the fine r to the coarse planes [lo, hi) (NAS
// rprj3 on grids of 2^k points a side, where its d1 = d2 = d3 = 1).
inline void rprj3(const grid& r, grid& s, std::int64_t lo, std::int64_t hi) {
  const std::int64_t mk = r.side(), mj = s.side();
  declare_planes(r, restrict_from(lo), restrict_to(hi), locus::access::read);
  declare_planes(s, lo, hi, locus::access::write);
  declare_cycles(s, hi - lo, 34);
  std::vector<double> x1(static_cast<std::size_t>(mk)), y1(static_cast<std::size_t>(mk));
  auto at = [&r, mk](std::int64_t i1, std::int64_t i2, std::int64_t i3) { return r.plane(i3)[i2 * mk + i1]; };
  for (std::int64_t j3 = lo; j3 < hi; ++j3) {
    const std::int64_t i3 = 2 * j3;
    for (std::int64_t j2 = 1; j2 < mj - 1; ++j2) {
      const std::int64_t i2 = 2 * j2;
      for (std::int64_t j1 = 1; j1 < mj; ++j1) {
        const std::int64_t i1 = 2 * j1 - 1;
        x1[i1] = at(i1, i2 - 1, i3) + at(i1, i2 + 1, i3) + at(i1, i2, i3 - 1) + at(i1, i2, i3 + 1);
        y1[i1] = at(i1, i2 - 1, i3 - 1) + at(i1, i2 - 1, i3 + 1) + at(i1, i2 + 1, i3 - 1) + at(i1, i2 + 1, i3 + 1);
      }
      double* out = s.plane(j3) + j2 * mj;
      for (std::int64_t j1 = 1; j1 < mj - 1; ++j1) {
        const std::int64_t i1 = 2 * j1;
        const double y2 = at(i1, i2 - 1, i3 - 1) + at(i1, i2 - 1, i3 + 1) + at(i1, i2 + 1, i3 - 1) + at(i1, i2 + 1, i3 + 1);
        const double x2 = at(i1, i2 - 1, i3) + at(i1, i2 + 1, i3) + at(i1, i2, i3 - 1) + at(i1, i2, i3 + 1);
        out[j1] = 0.5 * at(i1, i2, i3) + 0.25 * (at(i1 - 1, i2, i3) + at(i1 + 1, i2, i3) + x2) +
                  0.125 * (x1[i1 - 1] + x1[i1 + 1] + y2) + 0.0625 * (y1[i1 - 1] + y1[i1 + 1]);
      }
    }
  }
  fill_ghosts(s, lo, hi);
}

// The planes of the coarser grid interp reads for fine planes [lo, hi).
inline std::int64_t interpolate_from(std::int64_t lo) { return lo / 2; }
inline std::int64_t interpolate_to(std::int64_t hi) { return (hi - 1) / 2 + 2; }  // exclusive

// u += the trilinear interpolation of the coarse z on the fine planes
// [lo, hi) (NAS interp, its case of grids of 2^k points a side); zero first:
// u = that (NAS's zero3 then interp on the intermediate levels). NAS
// interpolates the ghost planes too; a ghost plane here is copied from the
// plane it stands for, which gets the same values: z and u are periodic
// before interp, so both planes add the same terms of equal values.
inline void interp(const grid& z, grid& u, std::int64_t lo, std::int64_t hi, bool zero_first) {
  const std::int64_t mj = z.side(), mk = u.side();
  declare_planes(z, interpolate_from(lo), interpolate_to(hi), locus::access::read);
  declare_planes(u, lo, hi, locus::access::write);
  declare_cycles(u, hi - lo, 3);
  if (zero_first) std::fill(u.plane(lo), u.plane(hi), 0.0);
  std::vector<double> z1(static_cast<std::size_t>(mj)), z2(static_cast<std::size_t>(mj)),
      z3(static_cast<std::size_t>(mj));
  for (std::int64_t f = lo; f < hi; ++f) {
    const std::int64_t i3 = f / 2;
    const double* zc = z.plane(i3);
    const double* zf = z.plane(i3 + 1);
    double* out = u.plane(f);
    for (std::int64_t i2 = 0; i2 < mj - 1; ++i2) {
      const double *z0 = zc + i2 * mj, *z0s = z0 + mj, *zf0 = zf + i2 * mj, *zf0s = zf0 + mj;
      for (std::int64_t i1 = 0; i1 < mj; ++i1) {
        z1[i1] = z0s[i1] + z0[i1];
        z2[i1] = zf0[i1] + z0[i1];
        z3[i1] = zf0s[i1] + zf0[i1] + z1[i1];
      }
      double* even = out + 2 * i2 * mk;  // fine row 2 i2
      double* odd = even + mk;           // fine row 2 i2 + 1
      if (f % 2 == 0) {
        for (std::int64_t i1 = 0; i1 < mj - 1; ++i1) {
          even[2 * i1] += z0[i1];
          even[2 * i1 + 1] += 0.5 * (z0[i1 + 1] + z0[i1]);
        }
        for (std::int64_t i1 = 0; i1 < mj - 1; ++i1) {
          odd[2 * i1] += 0.5 * z1[i1];
          odd[2 * i1 + 1] += 0.25 * (z1[i1] + z1[i1 + 1]);
        }
      } else {
        for (std::int64_t i1 = 0; i1 < mj - 1; ++i1) {
          even[2 * i1] += 0.5 * z2[i1];
          even[2 * i1 + 1] += 0.25 * (z2[i1] + z2[i1 + 1]);
        }
        for (std::int64_t i1 = 0; i1 < mj - 1; ++i1) {
          odd[2 * i1] += 0.25 * z3[i1];
          odd[2 * i1 + 1] += 0.125 * (z3[i1] + z3[i1 + 1]);
        }
      }
    }
  }
  const auto bytes = static_cast<std::size_t>(u.plane_size()) * sizeof(double);
  if (lo == 1) std::memcpy(u.plane(u.n + 1), u.plane(1), bytes);
  if (hi == u.n + 1) std::memcpy(u.plane(0), u.plane(u.n), bytes);
}

// The sum of squares of r's interior points on planes [lo, hi) (NAS
// norm2u3's s).
inline double sum_of_squares(const grid& r, std::int64_t lo, std::int64_t hi) {
  const std::int64_t m = r.side(), n = r.n;
  declare_planes(r, lo, hi, locus::access::read);
  declare_cycles(r, hi - lo, 1);
  double s = 0.0;
  for (std::int64_t i3 = lo; i3 < hi; ++i3)
    for (std::int64_t i2 = 1; i2 <= n; ++i2) {
      const double* row = r.plane(i3) + i2 * m;
      for (std::int64_t i1 = 1; i1 <= n; ++i1) s += row[i1] * row[i1];
    }
  return s;
}

// NAS's random number generator (randlc/vranlc): x <- a x mod 2^46, the
// value x / 2^46; exact in 64-bit integers with both factors (< 2^46) split
// in halves of 23 bits, as randlc splits them in doubles.
inline std::uint64_t times_mod46(std::uint64_t f, std::uint64_t x) {
  constexpr std::uint64_t mask23 = (1ULL << 23) - 1, mask46 = (1ULL << 46) - 1;
  const std::uint64_t cross = ((f >> 23) * (x & mask23) + (f & mask23) * (x >> 23)) & mask23;
  return ((cross << 23) + (f & mask23) * (x & mask23)) & mask46;
}
inline std::uint64_t power_mod46(std::uint64_t base, std::uint64_t e) {
  std::uint64_t result = 1;
  for (; e != 0; e >>= 1, base = times_mod46(base, base))
    if (e & 1) result = times_mod46(base, result);
  return result;
}

// NAS zran3: v = 0 except +1 at the 10 largest and -1 at the 10 smallest
// of n^3 uniform numbers drawn in i1, i2, i3 order from seed 314159265 and
// multiplier 5^13, then comm3.
inline void zran3(grid& v) {
  constexpr std::uint64_t multiplier = 1220703125, seed = 314159265;  // 5^13
  constexpr int extremes = 10;
  const std::int64_t n = v.n, m = v.side();
  const std::uint64_t a1 = power_mod46(multiplier, static_cast<std::uint64_t>(n));
  const std::uint64_t a2 = power_mod46(multiplier, static_cast<std::uint64_t>(n * n));
  std::fill(v.data.begin(), v.data.end(), 0.0);
  std::uint64_t x0 = seed;
  for (std::int64_t i3 = 1; i3 <= n; ++i3) {
    std::uint64_t x1 = x0;
    for (std::int64_t i2 = 1; i2 <= n; ++i2) {
      std::uint64_t x = x1;
      double* row = v.plane(i3) + i2 * m;
      for (std::int64_t i1 = 1; i1 <= n; ++i1) {
        x = times_mod46(multiplier, x);
        row[i1] = static_cast<double>(x) * 0x1.0p-46;
      }
      x1 = times_mod46(a1, x1);
    }
    x0 = times_mod46(a2, x0);
  }
  std::vector<std::int64_t> interior;
  interior.reserve(static_cast<std::size_t>(n * n * n));
  for (std::int64_t i3 = 1; i3 <= n; ++i3)
    for (std::int64_t i2 = 1; i2 <= n; ++i2)
      for (std::int64_t i1 = 1; i1 <= n; ++i1) interior.push_back((i3 * m + i2) * m + i1);
  const double* value = v.data.data();
  auto by_value = [value](std::int64_t l, std::int64_t r) { return value[l] < value[r]; };
  const auto k = std::min<std::size_t>(extremes, interior.size() / 2);
  std::nth_element(interior.begin(), interior.begin() + static_cast<std::ptrdiff_t>(k), interior.end(), by_value);
  std::nth_element(interior.begin() + static_cast<std::ptrdiff_t>(k),
                   interior.end() - static_cast<std::ptrdiff_t>(k), interior.end(), by_value);
  const std::vector<std::int64_t> smallest(interior.begin(), interior.begin() + static_cast<std::ptrdiff_t>(k));
  const std::vector<std::int64_t> largest(interior.end() - static_cast<std::ptrdiff_t>(k), interior.end());
  std::fill(v.data.begin(), v.data.end(), 0.0);
  for (const std::int64_t i : smallest) v.data[static_cast<std::size_t>(i)] = -1.0;
  for (const std::int64_t i : largest) v.data[static_cast<std::size_t>(i)] = 1.0;
  fill_ghosts(v, 1, n + 1);
}

}  // namespace mg
