// cg-graph: NAS CG (the inverse power method of cg/kernel.hpp) as a block
// task graph (NabbitC, seed 004, section V, Table I: cg). The rows (of the
// matrix and of every vector) are cut into blocks. Per CG iteration:
//
//   spmv(b)    q = A p on block b's rows, and its partial sum of p . q;
//              after every block's p-update of the previous iteration (the
//              gathers p[column] read all of p)
//   dot_pq     alpha = rho / (p . q), adding the partials in block order;
//              after every spmv(b)
//   zr(b)      z += alpha p, r -= alpha q on block b, and its partial r . r;
//              after dot_pq
//   dot_rr     beta = rho' / rho; after every zr(b)
//   p(b)       p = r + beta p on block b; after dot_rr
//
// Each solve (power-method step s) starts with start(b) (x = z / ||z|| from
// the previous solve, then z = 0, r = p = x, partial r . r) and rho0 (rho =
// r . r) after every start(b); it ends with finish (x . z and z . z, from
// partials the last iteration's p(b) also compute: the eigenvalue estimate
// 1 / (x . z) and the next scale). Every node's writes reach only its block
// of a vector, and its readers are its successors or come after them, so
// these edges order every read after the write it needs and before the
// next write.
//
// locus variants run one graph per solve, on demand from its finish
// (Nabbit under ws, NabbitC under nabbitc), the solves one after another;
// serial runs the same nodes in iteration order; oneTBB and OpenMP run the
// loop version of bench/cg (cg::inverse_power), as the paper compares with
// OpenMP static. Colors follow the data: block b belongs to the worker a
// static partition of the rows gives it; the reductions, which read a
// partial sum per block, take block 0's color.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <locus/annotate.hpp>
#include <locus/locus.hpp>

#include "cg/kernel.hpp"
#include "cg/matrix.hpp"
#include "common/annotations.hpp"
#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"

namespace {

class cg_graph_instance final : public bench::instance {
 public:
  cg_graph_instance(cg::csr_matrix a, std::int64_t outer, std::int64_t inner, std::int64_t block)
      : a_(std::move(a)),
        outer_(outer),
        inner_(inner),
        block_(block),
        blocks_((a_.n + block - 1) / block),
        x_(static_cast<std::size_t>(a_.n)),
        z_(x_.size()),
        r_(x_.size()),
        p_(x_.size()),
        q_(x_.size()),
        partial_(static_cast<std::size_t>(blocks_)) {
    // The reference: bench/cg's serial CG (one left-to-right sum per dot
    // product), not this graph's block order.
    prepare();
    cg::inverse_power<bench::serial_backend>(a_, {x_.data(), z_.data(), r_.data(), p_.data(), q_.data()},
                                             {outer_, inner_, block_, block_});
    reference_z_ = z_;
    reference_residual_ = cg::residual(a_, x_, z_);
    prepare();
  }

  // x = (1, ..., 1), NAS CG's starting vector; block p of the rows on place p.
  void prepare() override {
    std::fill(x_.begin(), x_.end(), 1.0);
    std::fill(z_.begin(), z_.end(), 0.0);
    for (auto* v : {&x_, &z_, &r_, &p_, &q_}) bench::place_blocks(std::span(*v));
    bench::place_blocks(std::span(a_.row_start));
    bench::place_blocks(std::span(a_.column));
    bench::place_blocks(std::span(a_.value));
    eigenvalue_ = 0.0;
  }

  void run(const bench::variant& v) override { locality_ = bench::run_graph_variant(v, *this); }

  // The graph sums each dot product per block, then over blocks in order;
  // the tolerance for such reorderings is bench/cg's (cg::solve_mismatch).
  std::string verify() override {
    return cg::solve_mismatch(a_, x_, z_, reference_residual_, reference_z_, z_deviation_);
  }

  std::string summary() override {
    std::ostringstream s;
    s.precision(3);
    s << a_.n << " rows, " << a_.column.size() << " nonzeros, " << outer_ << " x " << inner_ << " iterations, "
      << blocks_ << " blocks of " << block_ << " rows, residual " << cg::residual(a_, x_, z_) << ", z off serial by "
      << z_deviation_;
    s.precision(12);
    s << ", smallest eigenvalue " << eigenvalue_;
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  // A block's partial sums, one cache line per block (written by different
  // workers).
  struct alignas(64) partials {
    double pq = 0, rr = 0, xz = 0, zz = 0;
  };

  std::int64_t lo(std::int64_t b) const { return b * block_; }
  std::int64_t hi(std::int64_t b) const { return std::min(a_.n, (b + 1) * block_); }

  // Declares to the simulator block b's entries of the vectors read and
  // written, and `cycles` per entry.
  void declare(std::int64_t b, std::initializer_list<const double*> in, std::initializer_list<double*> out,
               std::uint64_t cycles) const {
    const std::int64_t l = lo(b), n = hi(b) - lo(b);
    for (const double* u : in) bench::touch_n(u + l, n, locus::access::read);
    for (double* u : out) bench::touch_n(u + l, n, locus::access::write);
    locus::compute(cycles * static_cast<std::uint64_t>(n));
  }

  // The sum over blocks, in block order, of the partial `field`.
  double sum(double partials::*field) const {
    bench::touch_n(partial_.data(), blocks_, locus::access::read);
    locus::compute(static_cast<std::uint64_t>(blocks_));
    double s = 0.0;
    for (const partials& p : partial_) s += p.*field;
    return s;
  }

  // The nodes. Solve s's start(b): x = scale z (s > 0), z = 0, r = p = x.
  void start(std::int64_t s, std::int64_t b) {
    double *x = x_.data(), *z = z_.data(), *r = r_.data(), *p = p_.data();
    declare(b, {z, x}, {x, z, r, p}, 2);
    double rr = 0.0;
    for (std::int64_t i = lo(b); i < hi(b); ++i) {
      if (s > 0) x[i] = scale_ * z[i];
      z[i] = 0.0;
      r[i] = x[i];
      p[i] = x[i];
      rr += r[i] * r[i];
    }
    partial_[static_cast<std::size_t>(b)].rr = rr;
  }
  void rho0() {
    rho_ = sum(&partials::rr);
    stopped_ = false;
  }
  void spmv(std::int64_t b) {
    if (stopped_) return;
    cg::multiply_rows(a_, p_.data(), q_.data(), lo(b), hi(b));
    declare(b, {p_.data(), q_.data()}, {}, 1);
    double pq = 0.0;
    for (std::int64_t i = lo(b); i < hi(b); ++i) pq += p_[i] * q_[i];
    partial_[static_cast<std::size_t>(b)].pq = pq;
  }
  void dot_pq() {
    if (!stopped_) alpha_ = rho_ / sum(&partials::pq);
  }
  void update_zr(std::int64_t b) {
    if (stopped_) return;
    double *z = z_.data(), *r = r_.data();
    const double *p = p_.data(), *q = q_.data();
    declare(b, {p, q}, {z, r}, 3);
    double rr = 0.0;
    for (std::int64_t i = lo(b); i < hi(b); ++i) {
      z[i] += alpha_ * p[i];
      r[i] -= alpha_ * q[i];
      rr += r[i] * r[i];
    }
    partial_[static_cast<std::size_t>(b)].rr = rr;
  }
  // An exactly zero residual means z is the solution; another step would
  // divide 0 by 0, so the solve's remaining nodes do nothing (as the loop
  // version breaks).
  void dot_rr() {
    if (stopped_) return;
    const double rho_next = sum(&partials::rr);
    if (rho_next == 0.0) {
      stopped_ = true;
      return;
    }
    beta_ = rho_next / rho_;
    rho_ = rho_next;
  }
  // The last iteration's p-update also computes block b's x . z and z . z.
  void update_p(std::int64_t it, std::int64_t b) {
    double* p = p_.data();
    const double *r = r_.data(), *x = x_.data(), *z = z_.data();
    if (!stopped_) {
      declare(b, {r}, {p}, 1);
      for (std::int64_t i = lo(b); i < hi(b); ++i) p[i] = r[i] + beta_ * p[i];
    }
    if (it == inner_ - 1) {
      declare(b, {x, z}, {}, 2);
      double xz = 0.0, zz = 0.0;
      for (std::int64_t i = lo(b); i < hi(b); ++i) {
        xz += x[i] * z[i];
        zz += z[i] * z[i];
      }
      partial_[static_cast<std::size_t>(b)].xz = xz;
      partial_[static_cast<std::size_t>(b)].zz = zz;
    }
  }
  void finish() {
    eigenvalue_ = 1.0 / sum(&partials::xz);
    scale_ = 1.0 / std::sqrt(sum(&partials::zz));
  }

  void run_serial() {
    for (std::int64_t s = 0; s < outer_; ++s) {
      for (std::int64_t b = 0; b < blocks_; ++b) start(s, b);
      rho0();
      for (std::int64_t it = 0; it < inner_; ++it) {
        for (std::int64_t b = 0; b < blocks_; ++b) spmv(b);
        dot_pq();
        for (std::int64_t b = 0; b < blocks_; ++b) update_zr(b);
        dot_rr();
        for (std::int64_t b = 0; b < blocks_; ++b) update_p(it, b);
      }
      finish();
    }
  }

  // oneTBB and OpenMP: bench/cg's loop version, `block` rows a piece.
  template <class P>
  void run_baseline() {
    eigenvalue_ = cg::inverse_power<P>(a_, {x_.data(), z_.data(), r_.data(), p_.data(), q_.data()},
                                       {outer_, inner_, block_, block_});
  }

  // One graph per iteration, run one after another: the exploration on
  // demand from a sink nests once per level of nodes with several
  // predecessors (docs/usage.md, "Stack depth"), 5 levels per iteration
  // here; a graph of all 15 solves of the quick size overflowed the default
  // 512 KiB fiber stack, and one of a solve (130 levels) did under
  // AddressSanitizer. Keys within a solve: stage * (3 blocks + 2) + local.
  // Stage 0 holds start(b) (local b) and rho0 (3 blocks); stage it + 1
  // iteration it's spmv(b) (b), zr(b) (blocks + b), p(b) (2 blocks + b),
  // dot_pq (3 blocks) and dot_rr (3 blocks + 1); stage inner + 1 holds
  // finish (3 blocks). Graph c (0 to inner) of a solve ends with iteration
  // c's dot_rr (the last one with finish) and holds the nodes after the
  // previous graph's end: the previous iteration's p(b) and this one's
  // spmv, dot_pq, zr and dot_rr (graph 0: start and rho0 instead of p(b)).
  static constexpr std::int64_t first_block = 0, second_block = 1, third_block = 2;
  locus::graph_locality run_graph() {
    locus::graph_locality sum;
    for (std::int64_t s = 0; s < outer_; ++s)
      for (std::int64_t c = 0; c <= inner_; ++c) {
        const locus::graph_locality one = run_part(s, c);
        sum.nodes += one.nodes;
        sum.remote_nodes += one.remote_nodes;
        sum.predecessors += one.predecessors;
        sum.remote_predecessors += one.remote_predecessors;
      }
    return sum;
  }

  // Graph c of solve s: its nodes' predecessors in earlier graphs are
  // left out (they are computed).
  locus::graph_locality run_part(std::int64_t s, std::int64_t c) {
    const std::int64_t B = blocks_, stride = 3 * B + 2;
    auto key = [=](std::int64_t stage, std::int64_t local) { return stage * stride + local; };
    auto part = [=, this](std::int64_t k) {
      const std::int64_t local = k % stride, stage = k / stride;
      if (stage == 0) return std::int64_t{0};
      if (stage == inner_ + 1) return inner_;
      return local >= 2 * B && local < 3 * B ? stage : stage - 1;
    };
    auto all = [=](std::vector<std::int64_t>& p, std::int64_t stage, std::int64_t kind) {
      for (std::int64_t b = 0; b < B; ++b)
        if (part(key(stage, kind * B + b)) == c) p.push_back(key(stage, kind * B + b));
    };
    auto preds = [=, this](std::int64_t k) {
      const std::int64_t local = k % stride, stage = k / stride;
      std::vector<std::int64_t> p;
      if (stage == 0) {
        if (local == 3 * B) all(p, 0, first_block);  // rho0; start(b) has none
      } else if (stage == inner_ + 1) {
        all(p, inner_, third_block);  // finish
      } else if (local == 3 * B) {
        all(p, stage, first_block);  // dot_pq
      } else if (local == 3 * B + 1) {
        all(p, stage, second_block);  // dot_rr
      } else if (local / B == first_block) {
        if (stage == 1) p.push_back(key(0, 3 * B));  // spmv of the first iteration, in graph 0
        else all(p, stage - 1, third_block);
      } else {
        // zr(b) after dot_pq; p(b) after dot_rr, which ended the previous graph.
        if (local / B == second_block) p.push_back(key(stage, 3 * B));
      }
      return p;
    };
    auto compute = [this, s, stride, B](std::int64_t k) {
      const std::int64_t local = k % stride, stage = k / stride, b = local % B;
      if (stage == 0) {
        if (local == 3 * B) rho0();
        else start(s, b);
      } else if (stage == inner_ + 1) {
        finish();
      } else if (local == 3 * B) {
        dot_pq();
      } else if (local == 3 * B + 1) {
        dot_rr();
      } else if (local / B == first_block) {
        spmv(b);
      } else if (local / B == second_block) {
        update_zr(b);
      } else {
        update_p(stage - 1, b);
      }
    };
    auto color = [stride, B](std::int64_t k) {
      const std::int64_t local = k % stride;
      return bench::block_color(local >= 3 * B ? 0 : local % B, B);
    };
    auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
    g.measure_locality();
    g.run(c == inner_ ? key(inner_ + 1, 3 * B) : key(c + 1, 3 * B + 1));
    return g.locality();
  }

  cg::csr_matrix a_;
  std::int64_t outer_, inner_, block_, blocks_;
  std::vector<double> x_, z_, r_, p_, q_;
  std::vector<partials> partial_;
  // The scalars of the recurrence: each written by one reduction node and
  // read by nodes ordered after it and before the next write.
  double rho_ = 0.0, alpha_ = 0.0, beta_ = 0.0, scale_ = 1.0;
  bool stopped_ = false;
  double eigenvalue_ = 0.0;
  std::vector<double> reference_z_;
  double reference_residual_ = 0.0, z_deviation_ = 0.0;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar cg_graph{{
    "cg-graph",
    "NabbitC (seed 004), section V, Table I: cg from NAS as a task graph (NA = 900000, 26 nonzeros a row, 300 "
    "nodes in the paper)",
    "NAS CG (the inverse power method of `cg`) as a task graph computed on demand: per CG iteration a node per "
    "block of rows for the sparse matrix-vector product, a node per dot product after all blocks, vector "
    "updates per block after it; colored by the worker a static partition of the rows gives the block. "
    "oneTBB and OpenMP run `cg`'s loop version.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const cg::problem problem = cg::read_problem(s, p);
      const auto block = p.get("block", 100, 350, 1875, s, "rows per block node (and per loop piece)", {1});
      return std::make_unique<cg_graph_instance>(problem.matrix(), problem.outer, problem.inner, block);
    }}};

}  // namespace
