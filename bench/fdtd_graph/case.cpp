// fdtd-graph: the 2-D finite-difference time-domain kernel of PolyBench
// (fdtd-2d) as a block task graph (NabbitC, seed 004, section V, Table I:
// fdtd, n = 16384, 5 iterations). Three nx x ny fields, updated in place
// every time step t:
//
//   ey[0][j] = fict[t]
//   ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j])                    i >= 1
//   ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1])                    j >= 1
//   hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])  i < nx-1, j < ny-1
//
// The rows are cut into blocks. hz of a row needs ey of the next row of the
// same step, so a step has two phases: node (t, e, b) updates ey and ex of
// block b, node (t, h, b) updates hz of block b. Their predecessors are the
// nodes that wrote what they read and the nodes that read what they
// overwrite:
//   (t, e, b) after (t-1, h, b-1) and (t-1, h, b): hz of its rows and of the
//     row above (and those are the last readers of its ey and ex rows);
//   (t, h, b) after (t, e, b) and (t, e, b+1): ey and ex of its rows and ey
//     of the row below (which are also the readers of its hz rows).
// The sink needs every (last step, h, b). Every cell is updated by the same
// expression, from the same values, as in the serial loops, so the result
// equals the serial one bit for bit.
//
// locus variants run the graph on demand from the sink (Nabbit under ws,
// NabbitC under nabbitc); serial runs the same blocks phase by phase;
// oneTBB and OpenMP run the loop version, two loops over the rows per step
// in one region, as the paper compares with OpenMP static. Colors follow the
// data: block b belongs to the worker a static partition of the rows gives it.
#include <algorithm>
#include <cmath>
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

class fdtd_graph_instance final : public bench::instance {
 public:
  fdtd_graph_instance(std::int64_t nx, std::int64_t ny, std::int64_t steps, std::int64_t block)
      : nx_(nx), ny_(ny), steps_(steps), block_(block), blocks_((nx + block - 1) / block), ex_(cells()), ey_(cells()),
        hz_(cells()) {
    prepare();
    run_serial();
    reference_ex_ = ex_;
    reference_ey_ = ey_;
    reference_hz_ = hz_;
  }

  // PolyBench's init_array, placed in blocks of rows.
  void prepare() override {
    for (std::int64_t i = 0; i < nx_; ++i)
      for (std::int64_t j = 0; j < ny_; ++j) {
        const auto c = static_cast<std::size_t>(i * ny_ + j);
        const auto di = static_cast<double>(i), dj = static_cast<double>(j);
        ex_[c] = di * (dj + 1) / static_cast<double>(nx_);
        ey_[c] = di * (dj + 2) / static_cast<double>(ny_);
        hz_[c] = di * (dj + 3) / static_cast<double>(nx_);
      }
    for (auto* f : {&ex_, &ey_, &hz_}) bench::place_blocks(std::span(*f));
    done_ = false;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
    done_ = true;
  }

  std::string verify() override {
    if (!done_) return "no result";
    const struct {
      const char* name;
      const std::vector<double>& got;
      const std::vector<double>& want;
    } fields[] = {{"ex", ex_, reference_ex_}, {"ey", ey_, reference_ey_}, {"hz", hz_, reference_hz_}};
    std::ostringstream why;
    why.precision(17);
    for (const auto& f : fields) {
      std::int64_t wrong = 0, first = -1;
      for (std::int64_t c = 0; c < cells(); ++c)
        if (f.got[static_cast<std::size_t>(c)] != f.want[static_cast<std::size_t>(c)]) {
          if (first < 0) first = c;
          ++wrong;
        }
      if (wrong != 0)
        why << (why.tellp() > 0 ? "; " : "") << wrong << " of " << cells() << " cells of " << f.name
            << " differ from the serial result; first at row " << first / ny_ << ", column " << first % ny_ << ": "
            << f.got[static_cast<std::size_t>(first)] << ", expected " << f.want[static_cast<std::size_t>(first)];
    }
    return why.str();
  }

  std::string summary() override {
    double sum = 0.0;
    if (done_)
      for (double x : hz_) sum += std::abs(x);
    std::ostringstream s;
    s.precision(12);
    s << nx_ << "x" << ny_ << ", " << steps_ << " steps, " << blocks_ << " blocks of " << block_
      << " rows, sum |hz| " << sum;
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  std::int64_t cells() const { return nx_ * ny_; }

  // Phase e of step t on rows [lo, hi): ey and ex.
  void update_e(std::int64_t t, std::int64_t lo, std::int64_t hi) {
    // Read: hz from row lo - 1 (or lo) to hi - 1; written: ey and ex of the
    // rows. Cycles: 2 per field per cell (a subtraction, a multiply-add).
    const std::int64_t from = std::max<std::int64_t>(lo - 1, 0);
    const auto row_bytes = static_cast<std::size_t>(ny_) * sizeof(double);
    locus::touch(hz_.data() + from * ny_, static_cast<std::size_t>(hi - from) * row_bytes);
    locus::touch(ey_.data() + lo * ny_, static_cast<std::size_t>(hi - lo) * row_bytes, locus::access::write);
    locus::touch(ex_.data() + lo * ny_, static_cast<std::size_t>(hi - lo) * row_bytes, locus::access::write);
    locus::compute(static_cast<std::uint64_t>(4 * (hi - lo) * ny_));
    const double fict = static_cast<double>(t);
    for (std::int64_t i = lo; i < hi; ++i) {
      double* ey = ey_.data() + i * ny_;
      double* ex = ex_.data() + i * ny_;
      const double* hz = hz_.data() + i * ny_;
      if (i == 0) {
        std::fill(ey, ey + ny_, fict);
      } else {
        const double* hz_up = hz - ny_;
#pragma omp simd
        for (std::int64_t j = 0; j < ny_; ++j) ey[j] = ey[j] - 0.5 * (hz[j] - hz_up[j]);
      }
#pragma omp simd
      for (std::int64_t j = 1; j < ny_; ++j) ex[j] = ex[j] - 0.5 * (hz[j] - hz[j - 1]);
    }
  }

  // Phase h on rows [lo, hi): hz, from ex of the rows and ey of the rows and
  // of row hi. Row nx - 1 and column ny - 1 are not updated.
  void update_h(std::int64_t lo, std::int64_t hi) {
    hi = std::min(hi, nx_ - 1);
    if (lo >= hi) return;
    const auto row_bytes = static_cast<std::size_t>(ny_) * sizeof(double);
    locus::touch(ex_.data() + lo * ny_, static_cast<std::size_t>(hi - lo) * row_bytes);
    locus::touch(ey_.data() + lo * ny_, static_cast<std::size_t>(hi - lo + 1) * row_bytes);
    locus::touch(hz_.data() + lo * ny_, static_cast<std::size_t>(hi - lo) * row_bytes, locus::access::write);
    // 3 additions or subtractions and a multiply-add per cell.
    locus::compute(static_cast<std::uint64_t>(4 * (hi - lo) * (ny_ - 1)));
    for (std::int64_t i = lo; i < hi; ++i) {
      double* hz = hz_.data() + i * ny_;
      const double* ex = ex_.data() + i * ny_;
      const double* ey = ey_.data() + i * ny_;
      const double* ey_down = ey + ny_;
#pragma omp simd
      for (std::int64_t j = 0; j < ny_ - 1; ++j) hz[j] = hz[j] - 0.7 * (ex[j + 1] - ex[j] + ey_down[j] - ey[j]);
    }
  }

  std::int64_t lo(std::int64_t b) const { return b * block_; }
  std::int64_t hi(std::int64_t b) const { return std::min(nx_, (b + 1) * block_); }

  void run_serial() {
    for (std::int64_t t = 0; t < steps_; ++t) {
      for (std::int64_t b = 0; b < blocks_; ++b) update_e(t, lo(b), hi(b));
      for (std::int64_t b = 0; b < blocks_; ++b) update_h(lo(b), hi(b));
    }
  }

  // Two loops over the rows per step, `block` rows a piece, every step in
  // one region (OpenMP: one team, a barrier after each loop).
  template <class P>
  void run_baseline() {
    P::region([&] {
      for (std::int64_t t = 0; t < steps_; ++t) {
        P::loop(0, nx_, block_, [&](std::int64_t a, std::int64_t b) { update_e(t, a, b); });
        P::loop(0, nx_, block_, [&](std::int64_t a, std::int64_t b) { update_h(a, b); });
      }
    });
  }

  // Keys: (2 t + phase) * blocks + b, phase 0 for e and 1 for h; the sink
  // is 2 * steps * blocks.
  locus::graph_locality run_graph() {
    const std::int64_t sink = 2 * steps_ * blocks_;
    auto key = [this](std::int64_t t, std::int64_t phase, std::int64_t b) { return (2 * t + phase) * blocks_ + b; };
    auto preds = [this, sink, key](std::int64_t k) {
      std::vector<std::int64_t> p;
      if (k == sink) {
        if (steps_ > 0)
          for (std::int64_t b = 0; b < blocks_; ++b) p.push_back(key(steps_ - 1, 1, b));
        return p;
      }
      const std::int64_t t = k / (2 * blocks_), phase = k / blocks_ % 2, b = k % blocks_;
      if (phase == 0) {
        if (t > 0) {
          if (b > 0) p.push_back(key(t - 1, 1, b - 1));
          p.push_back(key(t - 1, 1, b));
        }
      } else {
        p.push_back(key(t, 0, b));
        if (b + 1 < blocks_) p.push_back(key(t, 0, b + 1));
      }
      return p;
    };
    auto compute = [this, sink](std::int64_t k) {
      if (k == sink) return;
      const std::int64_t t = k / (2 * blocks_), phase = k / blocks_ % 2, b = k % blocks_;
      if (phase == 0)
        update_e(t, lo(b), hi(b));
      else
        update_h(lo(b), hi(b));
    };
    auto color = [this, sink](std::int64_t k) { return bench::block_color(k == sink ? 0 : k % blocks_, blocks_); };
    auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
    g.measure_locality();
    g.run(sink);
    return g.locality();
  }

  std::int64_t nx_, ny_, steps_, block_, blocks_;
  std::vector<double> ex_, ey_, hz_, reference_ex_, reference_ey_, reference_hz_;
  bool done_ = false;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar fdtd_graph{{
    "fdtd-graph",
    "NabbitC (seed 004), section V, Table I: fdtd as a block task graph (n = 16384, 5 iterations in the paper); "
    "the kernel of PolyBench fdtd-2d",
    "PolyBench fdtd-2d (ey, ex, then hz updated in place per step) as a task graph computed on demand: per step "
    "and block of rows, node e (ey, ex) after the hz nodes of the previous step for its block and the one above, "
    "node h (hz) after the e nodes of its block and the one below; colored by the worker a static partition of "
    "the rows gives the block. oneTBB and OpenMP run the loop version.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto nx = p.get("nx", 160, 2048, 8192, s, "rows of each field", {2, INT32_MAX});
      const auto ny = p.get("ny", 160, 2048, 8192, s, "columns of each field; three fields of nx*ny doubles",
                            {2, INT32_MAX});
      const auto steps = p.get("steps", 4, 40, 5, s, "time steps", {0});
      const auto block = p.get("block", 8, 32, 64, s, "rows per node (and per loop piece)", {1});
      return std::make_unique<fdtd_graph_instance>(nx, ny, steps, block);
    }}};

}  // namespace
