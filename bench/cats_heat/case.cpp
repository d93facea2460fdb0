// cats-heat and cats-heat-ub: CATS's memory-bound Heat and Heat-ub (seed
// 002, section 4): the five-point Jacobi stencil on an R x C grid, every
// time step a recursive decomposition of the rows (balanced, or Algorithm
// 1's unbalanced heat/heat2) run as its own root task tree.
#include <cstdint>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>

#include "cats_heat/kernel.hpp"
#include "common/array_instance.hpp"
#include "common/halo_grid.hpp"
#include "common/row_tree.hpp"

namespace {

// The two grids, even then odd, are one array: verification compares both
// with the serial run's, the final state and the step before it.
class cats_heat_instance final : public bench::array_instance<double> {
 public:
  cats_heat_instance(bench::halo_grid g, std::int64_t steps, std::int64_t leaf, bench::row_tree shape)
      : array_instance(bench::pattern_grids(g, 2), "serial gives"), grid_(g), steps_(steps), leaf_(leaf),
        shape_(shape) {
    cats_heat::run_steps<bench::serial_backend>(expected_.data(), expected_.data() + g.cells(), grid_, steps_, leaf_,
                                                shape_);
  }

  // The grids are copied serially from the input, then placed: the first
  // root task of a run is its first time step.
  void prepare() override {
    array_instance::prepare();
    bench::place_grids(data_, grid_, 2);
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      cats_heat::run_steps<P>(data_.data(), data_.data() + grid_.cells(), grid_, steps_, leaf_, shape_);
    });
  }

  std::string summary() override {
    const double* final_state = data_.data() + (steps_ % 2 == 0 ? 0 : grid_.cells());
    std::ostringstream s;
    s.precision(12);
    s << grid_.rows << "x" << grid_.cols << ", " << steps_ << " steps, leaf " << leaf_ << ", checksum "
      << std::accumulate(final_state, final_state + grid_.cells(), 0.0);
    return s.str();
  }

 private:
  bench::halo_grid grid_;
  std::int64_t steps_, leaf_;
  bench::row_tree shape_;
};

std::unique_ptr<bench::instance> make(const char* name, bench::row_tree shape, bench::size_class s,
                                      bench::params& p) {
  const bench::halo_grid grid = bench::grid_size(s, p);
  const auto steps = p.get("steps", 4, 200, 200, s, "time steps, each its own root task tree", {0});
  const auto leaf = bench::leaf_rows(s, p);
  bench::check_rows_exceed_leaf(name, "rows", grid.rows, leaf);
  return std::make_unique<cats_heat_instance>(grid, steps, leaf, shape);
}

const bench::registrar balanced{{
    "cats-heat",
    "CATS (seed 002), section 4, Table 1 and Fig. 7 and 9: Heat (five-point heat), 1024 x 512 and up to 8192 x 512",
    "Jacobi five-point heat on an R x C grid of doubles (two grids); every time step halves the rows recursively "
    "with fork2 down to leaves of 8 rows and is its own root task tree. Memory bound.",
    false,
    [](bench::size_class s, bench::params& p) { return make("cats-heat", bench::row_tree::balanced, s, p); }}};

const bench::registrar unbalanced{{
    "cats-heat-ub",
    "CATS (seed 002), section 4, Algorithm 1 and Fig. 11: Heat-ub (five-point heat, unbalanced DAG)",
    "cats-heat with Algorithm 1's unbalanced recursion: heat halves into heat2 and heat, heat2 quarters into heat, "
    "heat, heat2, heat (two nested fork2). The same work, in leaves of at most 8 rows of an unbalanced tree.",
    false,
    [](bench::size_class s, bench::params& p) { return make("cats-heat-ub", bench::row_tree::unbalanced, s, p); }}};

}  // namespace
