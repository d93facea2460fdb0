// fluidanimate in the suite: a dam break in PARSEC's box (a block of water
// filling half its width, 0.6 of its height and all its depth, particles on
// a lattice jittered by up to 0.1 spacing, fixed seed), `frames` frames from
// the same initial state every run (kernel.hpp). Every run must give the
// serial run's particles bit for bit.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "fluidanimate/kernel.hpp"

namespace {

using fluidanimate::particles;
using fluidanimate::vec3;

// The water's share of the box along x, y and z.
constexpr double water[3] = {0.5, 0.6, 1.0};

// The particle spacing that puts about `target` particles in the water.
double spacing_for(const fluidanimate::physics& box, std::int64_t target) {
  const double volume = water[0] * (box.hi.x - box.lo.x) * water[1] * (box.hi.y - box.lo.y) * water[2] *
                        (box.hi.z - box.lo.z);
  return std::cbrt(volume / static_cast<double>(target));
}

// A jitter in [-0.1, 0.1) from a hash of (particle, axis).
float jitter(std::uint64_t particle, int axis) {
  std::uint64_t v = (particle * 3 + static_cast<std::uint64_t>(axis) + 1) * 0x9e3779b97f4a7c15ULL;
  v ^= v >> 31;
  v *= 0xbf58476d1ce4e5b9ULL;
  v ^= v >> 29;
  return static_cast<float>(v >> 40) * 0x1.0p-24f * 0.2f - 0.1f;
}

// The water, binned in the grid's cells (by cell, in lattice order within
// a cell).
fluidanimate::input dam(const fluidanimate::grid& g, const fluidanimate::physics& f, double spacing) {
  const double lo[3] = {f.lo.x, f.lo.y, f.lo.z}, hi[3] = {f.hi.x, f.hi.y, f.hi.z};
  std::int64_t n[3];
  for (int d = 0; d < 3; ++d) n[d] = std::max<std::int64_t>(1, static_cast<std::int64_t>(water[d] * (hi[d] - lo[d]) / spacing));
  std::vector<vec3> lattice;
  std::vector<std::int64_t> cell;
  std::uint64_t id = 0;
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x, ++id) {
        const std::int64_t at[3] = {x, y, z};
        float p[3];
        for (int d = 0; d < 3; ++d)
          p[d] = static_cast<float>(lo[d] + (static_cast<double>(at[d]) + 0.5 + jitter(id, d)) * spacing);
        int i = 0, j = 0, k = 0;
        lattice.push_back({p[0], p[1], p[2]});
        cell.push_back(g.cell_of(lattice.back(), &i, &j, &k));
      }
  fluidanimate::input in;
  in.count.assign(static_cast<std::size_t>(g.cells()), 0);
  in.start.assign(static_cast<std::size_t>(g.cells()), 0);
  for (std::int64_t c : cell) ++in.count[static_cast<std::size_t>(c)];
  for (std::int64_t c = 1; c < g.cells(); ++c)
    in.start[static_cast<std::size_t>(c)] = in.start[static_cast<std::size_t>(c - 1)] + in.count[static_cast<std::size_t>(c - 1)];
  in.p.resize(lattice.size());
  std::vector<std::int32_t> filled(in.count.size(), 0);
  for (std::size_t q = 0; q < lattice.size(); ++q) {
    const auto c = static_cast<std::size_t>(cell[q]);
    in.p[static_cast<std::size_t>(in.start[c] + filled[c]++)] = lattice[q];
  }
  return in;
}

bool same_bits(const vec3& a, const vec3& b) {
  return std::bit_cast<std::uint32_t>(a.x) == std::bit_cast<std::uint32_t>(b.x) &&
         std::bit_cast<std::uint32_t>(a.y) == std::bit_cast<std::uint32_t>(b.y) &&
         std::bit_cast<std::uint32_t>(a.z) == std::bit_cast<std::uint32_t>(b.z);
}

std::string show(const vec3& a) {
  std::ostringstream s;
  s.precision(9);
  s << '(' << a.x << ", " << a.y << ", " << a.z << ')';
  return s.str();
}

class fluidanimate_instance final : public bench::instance {
 public:
  fluidanimate_instance(std::int64_t target, int frames, int parts)
      : physics_(fluidanimate::physics::for_spacing(spacing_for(fluidanimate::physics{}, target))),
        grid_(physics_),
        frames_(frames),
        parts_(parts) {
    initial_ = dam(grid_, physics_, spacing_for(physics_, target));
    for (auto& b : buf_) b.resize(grid_.cells());
    scratch_.resize(grid_.cells());
    prepare();
    run(bench::parse_variant("serial"));
    expected_ = buf_[last_];
  }

  // Both buffers and the frame's scratch arrays in the variant's layout:
  // block p of each on place p, where the partitions of place p work.
  void prepare() override {
    for (auto& b : buf_) {
      for (auto* field : {&b.p, &b.hv, &b.v}) bench::place_blocks(std::span(*field));
      bench::place_blocks(std::span(b.start));
      bench::place_blocks(std::span(b.count));
    }
    bench::place_blocks(std::span(scratch_.density));
    bench::place_blocks(std::span(scratch_.acc));
    bench::place_blocks(std::span(scratch_.dest));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      last_ = fluidanimate::simulate<P>(grid_, physics_, initial_, buf_, scratch_, frames_, parts_);
    });
  }

  // Cell by cell: the same number of particles, each with the same bits,
  // in the same order.
  std::string verify() override {
    const particles& got = buf_[last_];
    for (std::int64_t c = 0; c < grid_.cells(); ++c) {
      const auto cell = static_cast<std::size_t>(c);
      if (got.count[cell] != expected_.count[cell])
        return "cell " + std::to_string(c) + " holds " + std::to_string(got.count[cell]) + " particles, the serial run's " +
               std::to_string(expected_.count[cell]);
      for (std::int32_t s = 0; s < got.count[cell]; ++s) {
        const auto o = static_cast<std::size_t>(got.start[cell] + s), e = static_cast<std::size_t>(expected_.start[cell] + s);
        if (!same_bits(got.p[o], expected_.p[e]) || !same_bits(got.hv[o], expected_.hv[e]) ||
            !same_bits(got.v[o], expected_.v[e]))
          return "cell " + std::to_string(c) + " particle " + std::to_string(s) + ": position " + show(got.p[o]) +
                 ", velocity " + show(got.v[o]) + "; the serial run's " + show(expected_.p[e]) + ", " + show(expected_.v[e]);
      }
    }
    return "";
  }

  std::string summary() override {
    const particles& got = buf_[last_];
    int fullest = 0;
    double height = 0.0, speed = 0.0;
    for (std::int64_t c = 0; c < grid_.cells(); ++c) {
      const auto cell = static_cast<std::size_t>(c);
      fullest = std::max(fullest, got.count[cell]);
      for (std::int32_t s = 0; s < got.count[cell]; ++s) {
        const auto o = static_cast<std::size_t>(got.start[cell] + s);
        height += got.p[o].y;
        speed = std::max(speed, std::sqrt(double{got.v[o].x} * got.v[o].x + double{got.v[o].y} * got.v[o].y +
                                          double{got.v[o].z} * got.v[o].z));
      }
    }
    const auto n = static_cast<double>(initial_.p.size());
    std::ostringstream s;
    s.precision(4);
    s << initial_.p.size() << " particles, " << grid_.nx << " x " << grid_.ny << " x " << grid_.nz << " cells, "
      << parts_ << " partitions, " << frames_ << " frames: mean height " << height / n << " m, top speed " << speed
      << " m/s, fullest cell " << fullest;
    return s.str();
  }

 private:
  fluidanimate::physics physics_;
  fluidanimate::grid grid_;
  int frames_, parts_;
  fluidanimate::input initial_;
  particles buf_[2];
  fluidanimate::scratch scratch_;
  int last_ = 0;
  particles expected_;
};

const bench::registrar registered{{
    "fluidanimate",
    "TBB-NUMA (seed 001), section 5.1, Table 2 and Figure 13: fluidanimate from PARSEC, 500K particles, 500 frames, "
    "the task scheduler used directly",
    "PARSEC fluidanimate's SPH frame on a grid of cells (locate, rebuild, densities, forces, advance), each phase "
    "one task per partition of the cells, as figure 13's launcher spawns them.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto target = p.get("particles", 2000, 35000, 500000, s,
                                "about this many particles in the water (the paper's 500K)", {100, 50'000'000});
      const auto frames = p.get("frames", 3, 8, 500, s, "frames (the paper's 500)", {1, 100000});
      const auto parts = p.get("parts", 32, 32, 32, s,
                               "partitions of the cells, one task each per phase (the paper's one per thread: 32); "
                               "a multiple of the places keeps each partition on one place's block",
                               {1, 4096});
      return std::make_unique<fluidanimate_instance>(target, static_cast<int>(frames), static_cast<int>(parts));
    }}};

}  // namespace
