// sor and sor-ub: CATS's memory-bound SOR and SOR-ub (seed 002, section 4):
// red-black successive over-relaxation on an R x C grid, every half-sweep a
// recursive decomposition of the rows (balanced, or Algorithm 1's
// unbalanced shape) run as its own root task tree.
#include <cstdint>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>

#include "common/array_instance.hpp"
#include "common/halo_grid.hpp"
#include "common/row_tree.hpp"
#include "sor/kernel.hpp"

namespace {

class sor_instance final : public bench::array_instance<double> {
 public:
  sor_instance(bench::halo_grid g, std::int64_t iterations, double omega, std::int64_t leaf, bench::row_tree shape)
      : array_instance(bench::pattern_grids(g, 1), "serial gives"), grid_(g), iterations_(iterations),
        omega_(omega), leaf_(leaf), shape_(shape) {
    sor::relax<bench::serial_backend>(expected_.data(), grid_, iterations_, omega_, leaf_, shape_);
  }

  // The grid is copied serially from the input, then placed: the first root
  // task of a run is its first half-sweep.
  void prepare() override {
    array_instance::prepare();
    bench::place_grids(data_, grid_, 1);
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { sor::relax<P>(data_.data(), grid_, iterations_, omega_, leaf_, shape_); });
  }

  std::string summary() override {
    std::ostringstream s;
    s.precision(12);
    s << grid_.rows << "x" << grid_.cols << ", " << iterations_ << " iterations, omega " << omega_ << ", leaf "
      << leaf_ << ", checksum " << std::accumulate(data_.begin(), data_.end(), 0.0);
    return s.str();
  }

 private:
  bench::halo_grid grid_;
  std::int64_t iterations_;
  double omega_;
  std::int64_t leaf_;
  bench::row_tree shape_;
};

std::unique_ptr<bench::instance> make(const char* name, bench::row_tree shape, bench::size_class s,
                                      bench::params& p) {
  const bench::halo_grid grid = bench::grid_size(s, p);
  const auto steps = p.get("steps", 4, 100, 100, s,
                           "iterations, each a red and a black half-sweep, each half-sweep its own root task tree", {0});
  const double omega = p.get_real("omega", 1.5, 1.5, 1.5, s, "over-relaxation factor w (not given by the paper)",
                                  {0.0, 1.99});
  const auto leaf = bench::leaf_rows(s, p);
  bench::check_rows_exceed_leaf(name, "rows", grid.rows, leaf);
  return std::make_unique<sor_instance>(grid, steps, omega, leaf, shape);
}

const bench::registrar balanced{{
    "sor",
    "CATS (seed 002), section 4, Table 1 and Fig. 7 and 9: SOR (successive over-relaxation), 1024 x 512 and up to "
    "8192 x 512",
    "Red-black successive over-relaxation of the five-point Laplace equation on an R x C grid of doubles, in place; "
    "each half-sweep halves the rows recursively with fork2 down to leaves of 8 rows and is its own root task tree. "
    "Memory bound; equal to serial bit for bit.",
    false,
    [](bench::size_class s, bench::params& p) { return make("sor", bench::row_tree::balanced, s, p); }}};

const bench::registrar unbalanced{{
    "sor-ub",
    "CATS (seed 002), section 4, Table 1 and Fig. 11: SOR-ub (SOR with an unbalanced DAG, built as Algorithm 1)",
    "sor with Algorithm 1's unbalanced recursion over the rows of each half-sweep (heat/heat2, the 4-way split as "
    "two nested fork2). The same work, in leaves of at most 8 rows of an unbalanced tree.",
    false,
    [](bench::size_class s, bench::params& p) { return make("sor-ub", bench::row_tree::unbalanced, s, p); }}};

}  // namespace
