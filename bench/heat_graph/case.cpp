// heat-graph: the heat stencil of heat/kernel.hpp as a task graph (NabbitC,
// seed 004, section V: heat as a block task graph). Node (t, b) computes
// block b of the rows at time step t from grid t % 2 into grid (t + 1) % 2;
// its predecessors are (t - 1, b - 1), (t - 1, b) and (t - 1, b + 1), the
// blocks whose rows it reads (and, two steps on, the readers of the block it
// overwrites). The sink is a node after the last step that needs all of it.
//
// locus variants run it through locus::task_graph (on demand from the sink:
// Nabbit under ws, NabbitC under nabbitc); serial runs the same blocks in
// step order; oneTBB and OpenMP run the loop version of the same stencil
// (heat/kernel.hpp), as the paper compares with OpenMP static. Node colors
// follow the data: block b belongs to the worker that a static partition of
// the rows gives it, as OpenMP static and bench::place_blocks do.
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/locus.hpp>

#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"
#include "heat/kernel.hpp"
#include "heat/grids.hpp"

namespace {

class heat_graph_instance final : public bench::instance {
 public:
  heat_graph_instance(std::int64_t n, std::int64_t rows, std::int64_t steps, std::int64_t block)
      : n_(n), rows_(rows), steps_(steps), block_(block), blocks_((rows - 2 + block - 1) / block), even_(cells()),
        odd_(cells()) {
    prepare();
    run_serial();
    reference_.assign(result_, result_ + cells());
  }

  void prepare() override {
    heat::prepare_grids(even_, odd_, n_, rows_);
    result_ = nullptr;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
  }

  std::string verify() override { return heat::grid_mismatch(result_, reference_, n_, rows_); }

  std::string summary() override {
    const double checksum = result_ == nullptr ? 0.0 : std::accumulate(result_, result_ + cells(), 0.0);
    std::ostringstream s;
    s.precision(12);
    s << rows_ << "x" << n_ << ", " << steps_ << " steps, " << blocks_ << " blocks of " << block_
      << " rows, checksum " << checksum;
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  std::int64_t cells() const { return rows_ * n_; }
  double* grid(std::int64_t t) { return t % 2 == 0 ? even_.data() : odd_.data(); }

  // Block b of step t: rows [1 + b * block, ...) of grid t + 1 from grid t.
  void update_block(std::int64_t t, std::int64_t b) {
    const std::int64_t lo = 1 + b * block_, hi = std::min(rows_ - 1, lo + block_);
    heat::update_rows(grid(t), grid(t + 1), n_, lo, hi);
  }

  void run_serial() {
    for (std::int64_t t = 0; t < steps_; ++t)
      for (std::int64_t b = 0; b < blocks_; ++b) update_block(t, b);
    result_ = grid(steps_);
  }

  // oneTBB and OpenMP: the loop version of the same stencil.
  template <class P>
  void run_baseline() {
    result_ = heat::run_steps<P>(even_.data(), odd_.data(), n_, steps_, block_, rows_);
  }

  // The stencil graph of graph_bench.hpp over this benchmark's blocks.
  locus::graph_locality run_graph() {
    const locus::graph_locality measured =
        bench::run_row_stencil_graph(steps_, blocks_, [this](std::int64_t t, std::int64_t b) { update_block(t, b); });
    result_ = grid(steps_);
    return measured;
  }

  std::int64_t n_, rows_, steps_, block_, blocks_;
  std::vector<double> even_, odd_, reference_;
  const double* result_ = nullptr;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar heat_graph{{
    "heat-graph",
    "NabbitC (seed 004), section V, Table I: heat as a block task graph (n = 16384, 5 iterations in the paper)",
    "The Jacobi five-point heat stencil of `heat` as a task graph computed on demand: node (t, b) updates "
    "block b of the rows at step t once blocks b-1, b, b+1 of step t-1 are done; colored by the worker a "
    "static partition of the rows gives the block. oneTBB and OpenMP run the loop version.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 200, 4096, 16384, s, "grid side (cells); two grids of rows*n doubles", {3, INT32_MAX});
      const auto rows = p.get("rows", 0, 0, 0, s, "rows of each grid (0: n, a square grid)", {0, INT32_MAX});
      if (rows != 0 && rows < 3) throw std::invalid_argument("heat-graph: rows=" + std::to_string(rows) + " (accepted: 0 or at least 3)");
      const auto steps = p.get("steps", 6, 30, 100, s, "time steps", {0});
      const auto block = p.get("block", 8, 32, 64, s, "rows per node (and per loop piece)", {1});
      return std::make_unique<heat_graph_instance>(n, rows == 0 ? n : rows, steps, block);
    }}};

}  // namespace
