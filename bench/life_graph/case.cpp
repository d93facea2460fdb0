// life-graph: Conway's game of life as a block task graph (NabbitC, seed
// 004, section V, Table I: life, n = 16384, 5 iterations). The grid is n x n
// cells of one byte (0 dead, 1 alive) with a border of dead cells that
// never changes; two grids are used in turn. Node (t, b) computes block b of
// the interior rows at generation t from grid t % 2 into grid (t + 1) % 2;
// its predecessors are (t - 1, b - 1), (t - 1, b) and (t - 1, b + 1), the
// blocks whose rows it reads (and, two generations on, the readers of the
// block it overwrites). The sink is a node after the last generation that
// needs all of it.
//
// locus variants run the graph (on demand from the sink: Nabbit under ws,
// NabbitC under nabbitc); serial runs the same blocks in generation order;
// oneTBB and OpenMP run the loop version (one loop over the rows per
// generation, in one region), as the paper compares with OpenMP static.
// Colors follow the data: block b belongs to the worker a static partition
// of the rows gives it, as OpenMP static and bench::place_blocks do.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/annotate.hpp>
#include <locus/locus.hpp>

#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"

namespace {

// Rows [lo, hi) of dst from src, both n x n; the rows are interior (1 <= lo,
// hi <= n - 1) and columns 0 and n - 1 stay dead.
void life_rows(const std::uint8_t* src, std::uint8_t* dst, std::int64_t n, std::int64_t lo, std::int64_t hi) {
  // Read: src from row lo - 1 to row hi, one range. Written: each row's
  // interior. Cycles: 8 additions and the rule's 3 operations per cell.
  locus::touch(src + (lo - 1) * n, static_cast<std::size_t>((hi - lo + 2) * n), locus::access::read);
  locus::compute(static_cast<std::uint64_t>(11 * (hi - lo) * (n - 2)));
  for (std::int64_t i = lo; i < hi; ++i) {
    const std::uint8_t* up = src + (i - 1) * n;
    const std::uint8_t* mid = src + i * n;
    const std::uint8_t* down = src + (i + 1) * n;
    std::uint8_t* out = dst + i * n;
    locus::touch(out + 1, static_cast<std::size_t>(n - 2), locus::access::write);
    // Integer arithmetic: every order gives the same cells, so the pragma
    // (no threads, the suite is built with OpenMP) cannot change the result.
#pragma omp simd
    for (std::int64_t j = 1; j < n - 1; ++j) {
      const int alive = up[j - 1] + up[j] + up[j + 1] + mid[j - 1] + mid[j + 1] + down[j - 1] + down[j] + down[j + 1];
      out[j] = static_cast<std::uint8_t>((alive == 3) | ((alive == 2) & mid[j]));
    }
  }
}

class life_graph_instance final : public bench::instance {
 public:
  life_graph_instance(std::int64_t n, std::int64_t steps, std::int64_t block, std::int64_t density)
      : n_(n), steps_(steps), block_(block), density_(density), blocks_((n - 2 + block - 1) / block),
        even_(cells()), odd_(cells()) {
    prepare();
    run_serial();
    reference_.assign(result_, result_ + cells());
  }

  // Interior cells alive with probability density/100, from a hash of their
  // position (the same grid on every run and every machine); the border and
  // the whole second grid dead.
  void prepare() override {
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) {
        const bool interior = i > 0 && i < n_ - 1 && j > 0 && j < n_ - 1;
        even_[static_cast<std::size_t>(i * n_ + j)] =
            interior && hash(static_cast<std::uint64_t>(i * n_ + j)) % 100 < static_cast<std::uint64_t>(density_);
        odd_[static_cast<std::size_t>(i * n_ + j)] = 0;
      }
    bench::place_blocks(std::span(even_));
    bench::place_blocks(std::span(odd_));
    result_ = nullptr;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
  }

  std::string verify() override {
    if (result_ == nullptr) return "no result";
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t c = 0; c < cells(); ++c)
      if (result_[c] != reference_[static_cast<std::size_t>(c)]) {
        if (first < 0) first = c;
        ++wrong;
      }
    if (wrong == 0) return "";
    std::ostringstream why;
    why << wrong << " of " << cells() << " cells differ from the serial result; first at row " << first / n_
        << ", column " << first % n_ << ": " << int{result_[first]} << ", expected "
        << int{reference_[static_cast<std::size_t>(first)]};
    return why.str();
  }

  std::string summary() override {
    std::int64_t alive = 0;
    if (result_ != nullptr)
      for (std::int64_t c = 0; c < cells(); ++c) alive += result_[c];
    std::ostringstream s;
    s << n_ << "x" << n_ << ", " << steps_ << " generations, " << blocks_ << " blocks of " << block_ << " rows, "
      << alive << " cells alive";
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  std::int64_t cells() const { return n_ * n_; }
  std::uint8_t* grid(std::int64_t t) { return t % 2 == 0 ? even_.data() : odd_.data(); }

  static std::uint64_t hash(std::uint64_t x) {  // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  // Block b of generation t: rows [1 + b * block, ...) of grid t + 1.
  void update_block(std::int64_t t, std::int64_t b) {
    const std::int64_t lo = 1 + b * block_, hi = std::min(n_ - 1, lo + block_);
    life_rows(grid(t), grid(t + 1), n_, lo, hi);
  }

  void run_serial() {
    for (std::int64_t t = 0; t < steps_; ++t)
      for (std::int64_t b = 0; b < blocks_; ++b) update_block(t, b);
    result_ = grid(steps_);
  }

  // One loop over the interior rows per generation, `block` rows a piece,
  // every generation in one region (OpenMP keeps one team).
  template <class P>
  void run_baseline() {
    std::uint8_t* even = even_.data();
    std::uint8_t* odd = odd_.data();
    const std::int64_t n = n_;
    P::region([&] {
      for (std::int64_t t = 0; t < steps_; ++t) {
        // Each team thread derives the grids from t: no shared swap.
        const std::uint8_t* src = t % 2 == 0 ? even : odd;
        std::uint8_t* dst = t % 2 == 0 ? odd : even;
        P::loop(1, n - 1, block_, [&](std::int64_t lo, std::int64_t hi) { life_rows(src, dst, n, lo, hi); });
      }
    });
    result_ = grid(steps_);
  }

  // The stencil graph of graph_bench.hpp over this benchmark's blocks.
  locus::graph_locality run_graph() {
    const locus::graph_locality measured =
        bench::run_row_stencil_graph(steps_, blocks_, [this](std::int64_t t, std::int64_t b) { update_block(t, b); });
    result_ = grid(steps_);
    return measured;
  }

  std::int64_t n_, steps_, block_, density_, blocks_;
  std::vector<std::uint8_t> even_, odd_, reference_;
  const std::uint8_t* result_ = nullptr;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar life_graph{{
    "life-graph",
    "NabbitC (seed 004), section V, Table I: Conway's game of life as a block task graph (n = 16384, 5 "
    "iterations in the paper)",
    "Conway's game of life on an n x n byte grid with a dead border, as a task graph computed on demand: node "
    "(t, b) computes block b of the rows at generation t once blocks b-1, b, b+1 of generation t-1 are done; "
    "colored by the worker a static partition of the rows gives the block. oneTBB and OpenMP run the loop "
    "version.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 200, 8192, 16384, s, "grid side (cells); two grids of n*n bytes", {3, INT32_MAX});
      const auto steps = p.get("steps", 6, 20, 5, s, "generations", {0});
      const auto block = p.get("block", 8, 64, 16, s, "rows per node (and per loop piece)", {1});
      const auto density = p.get("density", 35, 35, 35, s, "percent of interior cells alive at the start", {0, 100});
      return std::make_unique<life_graph_instance>(n, steps, block, density);
    }}};

}  // namespace
