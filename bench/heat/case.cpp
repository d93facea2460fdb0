// heat and heat-l2: the Jacobi five-point stencil of kernel.hpp on a grid far
// larger than the caches (memory bound) and on a grid whose two copies
// overflow one core's L2 while each of two cores touches only half of them,
// so keeping each core on its own rows step after step pays (iterative data
// locality).
#include <cstdint>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "heat/kernel.hpp"
#include "heat/grids.hpp"

namespace {

class heat_instance final : public bench::instance {
 public:
  heat_instance(std::int64_t n, std::int64_t steps, std::int64_t grain)
      : n_(n), steps_(steps), grain_(grain), even_(cells()), odd_(cells()) {
    prepare();
    const double* final_state = heat::run_steps<bench::serial_backend>(even_.data(), odd_.data(), n_, steps_, grain_);
    reference_.assign(final_state, final_state + cells());
  }

  void prepare() override {
    heat::prepare_grids(even_, odd_, n_);
    result_ = nullptr;
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { result_ = heat::run_steps<P>(even_.data(), odd_.data(), n_, steps_, grain_); });
  }

  std::string verify() override { return heat::grid_mismatch(result_, reference_, n_); }

  std::string summary() override {
    const double checksum = result_ == nullptr ? 0.0 : std::accumulate(result_, result_ + cells(), 0.0);
    std::ostringstream s;
    s.precision(12);
    s << n_ << "x" << n_ << ", " << steps_ << " steps, checksum " << checksum;
    return s.str();
  }

 private:
  std::int64_t cells() const { return n_ * n_; }

  std::int64_t n_, steps_, grain_;
  std::vector<double> even_, odd_, reference_;
  const double* result_ = nullptr;
};

// A grid of n * n cells with a fixed boundary needs an interior; n * n
// must be addressable.
constexpr bench::int_range grid_side{3, INT32_MAX};

const bench::registrar memory_bound{{
    "heat",
    "NUMA-WS (seed 000), section V, Figure 7: heat, 16k x 16k x 100 steps, base case 16k x 10; "
    "CATS (seed 002), section 4, Table 1: Heat (five-point heat)",
    "Jacobi five-point heat diffusion on an n x n grid with a fixed boundary, two grids in turn; every time step "
    "is a parallel loop over rows. The grid is far larger than the caches: memory bound.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 200, 4096, 16384, s, "grid side (cells); two grids of n*n doubles", grid_side);
      const auto steps = p.get("steps", 10, 30, 100, s, "time steps", {0});
      const auto grain = p.get("grain", 4, 8, 10, s, "rows per loop piece", {1});
      return std::make_unique<heat_instance>(n, steps, grain);
    }}};

const bench::registrar l2_resident{{
    "heat-l2",
    "ADWS (seed 003), section 6.2: Heat2D (iterative data locality); CATS (seed 002), section 4: Heat",
    "The heat stencil on a 448 x 448 grid: the two grids (3.2 MB) overflow one core's L2, while two cores "
    "each touch half of them, so a schedule that keeps each core on the same rows every step can run "
    "superlinearly faster.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 448, 448, 448, s, "grid side (cells); two grids of n*n doubles", grid_side);
      const auto steps = p.get("steps", 20, 2000, 10000, s, "time steps", {0});
      // 4 rows per piece: omp:dynamic is then schedule(dynamic,4) over rows,
      // the setting the issue compares with a static schedule.
      const auto grain = p.get("grain", 4, 4, 4, s, "rows per loop piece", {1});
      return std::make_unique<heat_instance>(n, steps, grain);
    }}};

}  // namespace
