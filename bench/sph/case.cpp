// SPH in the suite: a dam-break (a block of water in one corner of a box,
// particles on a jittered lattice, fixed seed), the octree and neighbour
// lists built once, untimed; each run is `iterations` steps from the same
// initial state. Every run must give the serial run's particles bit for bit
// (each particle's sums run over the same neighbours in the same order).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "sph/kernel.hpp"

namespace {

using sph::particle;

constexpr double spacing = 0.01;  // lattice spacing dx, metres

// The fluid: side x side x 2 side particles at the corner x = y = z = 0 of
// a box 4 side wide (x), side deep (y) and 2 side high (z), in lattice units.
std::vector<particle> dam(std::int64_t side, std::uint64_t seed) {
  std::vector<particle> out;
  out.reserve(static_cast<std::size_t>(side * side * 2 * side));
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  for (std::int64_t k = 0; k < 2 * side; ++k)
    for (std::int64_t j = 0; j < side; ++j)
      for (std::int64_t i = 0; i < side; ++i) {
        particle p{};
        const std::int64_t at[3] = {i, j, k};
        for (int d = 0; d < 3; ++d) p.x[d] = (static_cast<double>(at[d]) + 0.5 + jitter(random)) * spacing;
        out.push_back(p);
      }
  return out;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

bool same_particle(const particle& a, const particle& b) {
  for (int d = 0; d < 3; ++d)
    if (!same_bits(a.x[d], b.x[d]) || !same_bits(a.v[d], b.v[d])) return false;
  return same_bits(a.rho, b.rho) && same_bits(a.p, b.p);
}

std::string show(const particle& p) {
  std::ostringstream s;
  s.precision(17);
  s << "x (" << p.x[0] << ", " << p.x[1] << ", " << p.x[2] << "), v (" << p.v[0] << ", " << p.v[1] << ", "
    << p.v[2] << "), rho " << p.rho << ", p " << p.p;
  return s.str();
}

class sph_instance final : public bench::instance {
 public:
  sph_instance(std::int64_t side, std::int64_t leaf, int iterations, bool hints)
      : initial_(dam(side, 20070803)), iterations_(iterations), hints_(hints) {
    const double box[3] = {4.0 * side * spacing, side * spacing, 2.0 * side * spacing};
    physics_ = sph::physics::for_spacing(spacing, 2.0 * side * spacing, box);
    tree_ = sph::build_octree(initial_, leaf, 2.0 * physics_.h + physics_.skin);
    a_.resize(initial_.size());
    b_.resize(initial_.size());
    // The serial run once: what every run must give. The neighbour lists
    // are exact only if no particle moved skin / 2 or more.
    prepare();
    expected_ = *bench_run<bench::serial_backend>();
    double moved2 = 0.0;
    for (std::size_t i = 0; i < initial_.size(); ++i) {
      double d2 = 0.0;
      for (int d = 0; d < 3; ++d) d2 += (expected_[i].x[d] - initial_[i].x[d]) * (expected_[i].x[d] - initial_[i].x[d]);
      moved2 = std::max(moved2, d2);
    }
    if (std::sqrt(moved2) >= physics_.skin / 2)
      throw std::logic_error("sph: a particle moved " + std::to_string(std::sqrt(moved2) / spacing) +
                             " dx in " + std::to_string(iterations) +
                             " steps, more than half the skin of the fixed neighbour lists (fewer iterations)");
    moved_ = std::sqrt(moved2);
  }

  // Both particle buffers in the variant's data layout (bench::place_blocks).
  void prepare() override {
    std::copy(initial_.begin(), initial_.end(), a_.begin());
    bench::place_blocks(std::span(a_));
    bench::place_blocks(std::span(b_));
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { P::run([&] { result_ = bench_run<P>(); }); });
  }
  std::string verify() override {
    const auto [got, want] = std::mismatch(result_->begin(), result_->end(), expected_.begin(), same_particle);
    if (got == result_->end()) return "";
    return "particle " + std::to_string(got - result_->begin()) + " is " + show(*got) + ", the serial run's " +
           show(*want);
  }
  std::string summary() override {
    double rho_max = 0.0;
    for (const auto& p : expected_) rho_max = std::max(rho_max, p.rho);
    const auto leaves = tree_.leaf_node.size();
    std::ostringstream s;
    s.precision(3);
    s << initial_.size() << " particles, " << leaves << " leaves (height " << tree_.height << ", "
      << static_cast<double>(tree_.lists.size()) / static_cast<double>(std::max<std::size_t>(leaves, 1))
      << " neighbour leaves each), " << iterations_ << " steps: max density " << rho_max / physics_.rho0
      << " rho0, largest move " << moved_ / spacing << " dx";
    return s.str();
  }

 private:
  template <class P>
  std::vector<particle>* bench_run() {
    particle* final_state = sph::simulate<P>(tree_, a_.data(), b_.data(), iterations_, physics_, hints_);
    return final_state == a_.data() ? &a_ : &b_;
  }

  std::vector<particle> initial_;  // in tree order
  int iterations_;
  bool hints_;
  sph::physics physics_{};
  sph::octree tree_;
  std::vector<particle> a_, b_;  // the state, double-buffered
  std::vector<particle>* result_ = &a_;
  std::vector<particle> expected_;
  double moved_ = 0.0;
};

const bench::registrar registered{{
    "sph",
    "ADWS (seed 003), section 6.2 (SPH; working sets 52 MB to 2.2 GB, Fig. 16)",
    "Weakly compressible SPH (Becker-Teschner) dam-break: per step a density pass and a force pass, each a parallel "
    "traversal of an octree (leaves of at most 32 particles, built untimed) with each child's particle count as "
    "its work hint.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto side = p.get("side", 12, 34, 204, s,
                              "the fluid is side x side x 2 side particles of 64 bytes, 128 with the second "
                              "buffer (quick: 78 608 particles, 10 MB; 58: 390 224, 50 MB, the paper's 52 MB "
                              "point; full: 16 979 328, 2.2 GB)",
                              {1, 1000});
      const auto leaf = p.get("leaf", 32, 32, 32, s, "at most this many particles in a leaf (the paper's 32)",
                              {1, 1'000'000});
      const auto iterations = p.get("iterations", 5, 5, 5, s,
                                    "time steps (the paper's five); the tree stays fixed over them", {1, 50});
      const auto hints = p.get("hints", 1, 1, 1, s,
                               "1: each forked half of a node's children has its particle count as work hint "
                               "(read by adws only), 0: none (ADWS guesses 1 : 1)",
                               {0, 1});
      return std::make_unique<sph_instance>(side, leaf, static_cast<int>(iterations), hints == 1);
    }}};

}  // namespace
