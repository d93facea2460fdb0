// mg-graph: NAS MG (a V-cycle multigrid solving the discrete Poisson
// problem on a periodic n^3 grid) as a task graph over blocks of planes per
// level (NabbitC, seed 004, section V, Table I: mg). The timed part is
// NAS's: r = v - A u from u = 0, then `iterations` times a V-cycle (mg3P)
// and r = v - A u again, then the norm of r.
//
// Every operator of the cycle (kernel.hpp) runs as one node per block of
// `block` planes of the level it writes: resid, psinv, rprj3 (restriction
// to the next coarser level), interp (prolongation, adding to the finer
// level) in mg3P's order, then a node per block for the sum of squares of
// r and one node adding them in block order (norm2u3). A node's
// predecessors are the nodes that last wrote the planes it reads (with the
// periodic ghost planes: ghost 0 is written with plane n, ghost n + 1 with
// plane 1), the nodes that last wrote the planes it overwrites, and the
// nodes that read those planes since: built once, by walking the operators
// in order and keeping per plane its last writer and its readers since.
// The serial version runs the nodes in that order (a topological order);
// oneTBB and OpenMP run each operator as a loop over the planes, `block`
// planes a piece, as the paper compares with OpenMP static.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.hpp>

#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"
#include "mg_graph/kernel.hpp"

namespace {

// One operator of the timed part, on the levels it names.
struct op {
  enum kind_t { resid_top, resid_level, psinv, psinv_zero, rprj3, interp_zero, interp_add, squares, norm } kind;
  int level;  // the level it writes (norm: the finest)
};

class mg_graph_instance final : public bench::instance {
 public:
  mg_graph_instance(std::int64_t n, std::int64_t iterations, std::int64_t block)
      : top_(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n)) - 1)),
        n_(n),
        iterations_(iterations),
        block_(block),
        v_(n) {
    for (int k = 0; k <= top_; ++k) {
      u_.emplace_back(k == 0 ? 0 : std::int64_t{1} << k);
      r_.emplace_back(k == 0 ? 0 : std::int64_t{1} << k);
    }
    mg::zran3(v_);
    build_ops();
    build_graph();
    prepare();
    run_serial();
    reference_r_ = r_[static_cast<std::size_t>(top_)].data;
    reference_norm_ = norm_;
  }

  // u = 0 on the finest level (the other levels are zeroed by the cycle);
  // every level's arrays in blocks of planes, block p on place p.
  void prepare() override {
    std::fill(u_[static_cast<std::size_t>(top_)].data.begin(), u_[static_cast<std::size_t>(top_)].data.end(), 0.0);
    for (int k = 1; k <= top_; ++k) {
      bench::place_blocks(std::span(u_[static_cast<std::size_t>(k)].data));
      bench::place_blocks(std::span(r_[static_cast<std::size_t>(k)].data));
    }
    bench::place_blocks(std::span(v_.data));
    norm_ = 0.0;
    done_ = false;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
    done_ = true;
  }

  // The cycle has no reductions: every variant computes every point of r by
  // the same expressions from the same values, so r equals the serial r bit
  // for bit. The norm sums per block (graph, serial) or per loop piece
  // (oneTBB, OpenMP) in other orders: 1e-12 relative leaves room for the
  // rounding of 2^24 to 2^30 terms (about 1e-14 here) and catches a lost
  // plane. For NAS's classes S, W and A (n = 32, 128, 256 with 4
  // iterations) the norm must also match NAS's verification value within
  // NAS's own 1e-8.
  std::string verify() override {
    if (!done_) return "no result";
    const std::vector<double>& got = r_[static_cast<std::size_t>(top_)].data;
    std::ostringstream why;
    why.precision(17);
    std::int64_t wrong = 0, first = -1;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != reference_r_[i]) {
        if (first < 0) first = static_cast<std::int64_t>(i);
        ++wrong;
      }
    if (wrong != 0) {
      why << wrong << " of " << got.size() << " points of r differ from the serial r; first at " << first << ": "
          << got[static_cast<std::size_t>(first)] << ", expected " << reference_r_[static_cast<std::size_t>(first)];
      return why.str();
    }
    if (!(std::abs(norm_ - reference_norm_) <= 1e-12 * reference_norm_))
      why << "norm of r " << norm_ << ", serial " << reference_norm_;
    else if (const double nas = nas_value(); nas != 0 && !(std::abs(norm_ - nas) <= 1e-8 * nas))
      why << "norm of r " << norm_ << ", NAS's verification value " << nas;
    return why.str();
  }

  std::string summary() override {
    std::ostringstream s;
    s << n_ << "^3, " << top_ << " levels, " << iterations_ << " V-cycles, blocks of " << block_ << " planes, "
      << nodes_.size() << " nodes";
    s.precision(13);
    s << ", norm of r " << norm_;
    s << (nas_value() != 0 ? " (NAS class " + std::string(1, nas_class()) + " verified)" : " (no NAS class)");
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  struct node {
    std::size_t op;
    std::int64_t block;
    std::vector<std::int64_t> preds;
  };

  // NAS's classes this problem is (n, iterations, and the smoother's c of
  // classes S to A), with their verification values of the norm.
  char nas_class() const {
    if (iterations_ != 4) return 0;
    return n_ == 32 ? 'S' : n_ == 128 ? 'W' : n_ == 256 ? 'A' : 0;
  }
  double nas_value() const {
    switch (nas_class()) {
      case 'S': return 0.5307707005734e-04;
      case 'W': return 0.6467329375339e-05;
      case 'A': return 0.2433365309069e-05;
      default: return 0;
    }
  }

  std::int64_t points(int level) const { return std::int64_t{1} << level; }
  std::int64_t blocks(int level) const { return (points(level) + block_ - 1) / block_; }
  // Block b of a level: interior planes [lo, hi).
  std::int64_t lo(std::int64_t b) const { return 1 + b * block_; }
  std::int64_t hi(int level, std::int64_t b) const { return 1 + std::min(points(level), (b + 1) * block_); }

  // mg3P's order (NAS, serial MG), between the first and the last resid.
  void build_ops() {
    ops_.push_back({op::resid_top, top_});
    for (std::int64_t it = 0; it < iterations_; ++it) {
      for (int k = top_; k >= 2; --k) ops_.push_back({op::rprj3, k - 1});
      ops_.push_back({op::psinv_zero, 1});
      for (int k = 2; k < top_; ++k) {
        ops_.push_back({op::interp_zero, k});
        ops_.push_back({op::resid_level, k});
        ops_.push_back({op::psinv, k});
      }
      ops_.push_back({op::interp_add, top_});
      ops_.push_back({op::resid_top, top_});
      ops_.push_back({op::psinv, top_});
      ops_.push_back({op::resid_top, top_});
    }
    ops_.push_back({op::squares, top_});
    ops_.push_back({op::norm, top_});
  }

  // Arrays for the dependence walk: u, r and v of each level.
  enum array_t { u_array, r_array, v_array };
  struct planes {
    array_t array;
    int level;
    std::int64_t from, to;  // [from, to), ghost planes 0 and n + 1 included
  };

  // What block b of operator o reads and writes.
  void accesses(const op& o, std::int64_t b, std::vector<planes>& reads, std::vector<planes>& writes) const {
    const int k = o.level;
    const std::int64_t l = lo(b), h = hi(k, b);
    auto written = [&](array_t a) { writes.push_back({a, k, l, h}); };
    switch (o.kind) {
      case op::resid_top:
        reads.push_back({u_array, k, l - 1, h + 1});
        reads.push_back({v_array, k, l, h});
        written(r_array);
        break;
      case op::resid_level:
        reads.push_back({u_array, k, l - 1, h + 1});
        reads.push_back({r_array, k, l, h});
        written(r_array);
        break;
      case op::psinv:
        reads.push_back({r_array, k, l - 1, h + 1});
        reads.push_back({u_array, k, l, h});
        written(u_array);
        break;
      case op::psinv_zero:
        reads.push_back({r_array, k, l - 1, h + 1});
        written(u_array);
        break;
      case op::rprj3:
        reads.push_back({r_array, k + 1, mg::restrict_from(l), mg::restrict_to(h)});
        written(r_array);
        break;
      case op::interp_zero:
        reads.push_back({u_array, k - 1, mg::interpolate_from(l), mg::interpolate_to(h)});
        written(u_array);
        break;
      case op::interp_add:
        reads.push_back({u_array, k - 1, mg::interpolate_from(l), mg::interpolate_to(h)});
        reads.push_back({u_array, k, l, h});
        written(u_array);
        break;
      case op::squares:
        reads.push_back({r_array, k, l, h});
        break;
      case op::norm:
        break;
    }
    // A block that writes plane 1 or plane n also writes the ghost plane
    // that copies it.
    for (std::size_t i = 0, w = writes.size(); i < w; ++i) {
      const planes p = writes[i];
      if (p.from == 1) writes.push_back({p.array, p.level, points(k) + 1, points(k) + 2});
      if (p.to == points(k) + 1) writes.push_back({p.array, p.level, 0, 1});
    }
  }

  // The nodes (one per block of each operator; norm: one node after every
  // squares block) and their predecessors, from per-plane last writers and
  // readers since.
  void build_graph() {
    struct plane_state {
      std::int64_t writer = -1;
      std::vector<std::int64_t> readers;
    };
    std::vector<std::vector<plane_state>> state(3 * static_cast<std::size_t>(top_ + 1));
    auto planes_of = [&](const planes& p) -> std::vector<plane_state>& {
      auto& s = state[static_cast<std::size_t>(p.array) * static_cast<std::size_t>(top_ + 1) +
                      static_cast<std::size_t>(p.level)];
      if (s.empty()) s.resize(static_cast<std::size_t>(points(p.level) + 2));
      return s;
    };
    for (std::size_t o = 0; o < ops_.size(); ++o) {
      const op& x = ops_[o];
      const std::int64_t first = static_cast<std::int64_t>(nodes_.size());
      if (x.kind == op::norm) {
        node nd{o, 0, {}};
        for (std::int64_t b = 0; b < blocks(top_); ++b) nd.preds.push_back(first - blocks(top_) + b);
        nodes_.push_back(std::move(nd));
        continue;
      }
      std::vector<std::vector<planes>> reads(static_cast<std::size_t>(blocks(x.level))), writes(reads.size());
      for (std::int64_t b = 0; b < blocks(x.level); ++b) {
        accesses(x, b, reads[static_cast<std::size_t>(b)], writes[static_cast<std::size_t>(b)]);
        node nd{o, b, {}};
        for (const planes& p : reads[static_cast<std::size_t>(b)])
          for (std::int64_t i = p.from; i < p.to; ++i)
            if (const std::int64_t w = planes_of(p)[static_cast<std::size_t>(i)].writer; w >= 0) nd.preds.push_back(w);
        for (const planes& p : writes[static_cast<std::size_t>(b)])
          for (std::int64_t i = p.from; i < p.to; ++i) {
            const plane_state& s = planes_of(p)[static_cast<std::size_t>(i)];
            if (s.writer >= 0) nd.preds.push_back(s.writer);
            nd.preds.insert(nd.preds.end(), s.readers.begin(), s.readers.end());
          }
        std::sort(nd.preds.begin(), nd.preds.end());
        nd.preds.erase(std::unique(nd.preds.begin(), nd.preds.end()), nd.preds.end());
        nodes_.push_back(std::move(nd));
      }
      // The blocks of one operator run in any order: none may read a plane
      // another of them writes (the operators read other arrays, or their
      // own planes only).
      for (std::size_t b = 0; b < writes.size(); ++b)
        for (const planes& w : writes[b])
          for (std::size_t c = 0; c < reads.size(); ++c)
            for (const planes& r : reads[c])
              if (c != b && r.array == w.array && r.level == w.level && r.from < w.to && w.from < r.to)
                throw std::logic_error("mg-graph: two blocks of one operator share a plane; block too small?");
      for (std::size_t b = 0; b < reads.size(); ++b) {
        const std::int64_t id = first + static_cast<std::int64_t>(b);
        for (const planes& p : reads[b])
          for (std::int64_t i = p.from; i < p.to; ++i) planes_of(p)[static_cast<std::size_t>(i)].readers.push_back(id);
        for (const planes& p : writes[b])
          for (std::int64_t i = p.from; i < p.to; ++i) {
            plane_state& s = planes_of(p)[static_cast<std::size_t>(i)];
            s.writer = id;
            s.readers.clear();
          }
      }
    }
    partial_.assign(static_cast<std::size_t>(blocks(top_)), 0.0);
  }

  mg::grid& u(int k) { return u_[static_cast<std::size_t>(k)]; }
  mg::grid& r(int k) { return r_[static_cast<std::size_t>(k)]; }

  // Operator o on interior planes [l, h) of the level it writes; `b` is the
  // block (for the partial sums of squares).
  void apply(const op& o, std::int64_t l, std::int64_t h, std::int64_t b) {
    const int k = o.level;
    switch (o.kind) {
      case op::resid_top: mg::resid(u(k), v_, r(k), l, h); break;
      case op::resid_level: mg::resid(u(k), r(k), r(k), l, h); break;
      case op::psinv: mg::psinv(r(k), u(k), l, h, false); break;
      case op::psinv_zero: mg::psinv(r(k), u(k), l, h, true); break;
      case op::rprj3: mg::rprj3(r(k + 1), r(k), l, h); break;
      case op::interp_zero: mg::interp(u(k - 1), u(k), l, h, true); break;
      case op::interp_add: mg::interp(u(k - 1), u(k), l, h, false); break;
      case op::squares: partial_[static_cast<std::size_t>(b)] = mg::sum_of_squares(r(k), l, h); break;
      case op::norm: {
        double s = 0.0;
        for (const double p : partial_) s += p;
        norm_ = std::sqrt(s / static_cast<double>(n_ * n_ * n_));
        break;
      }
    }
  }

  void compute_node(std::int64_t id) {
    const node& nd = nodes_[static_cast<std::size_t>(id)];
    const op& o = ops_[nd.op];
    apply(o, lo(nd.block), hi(o.level, nd.block), nd.block);
  }

  void run_serial() {
    for (std::size_t id = 0; id < nodes_.size(); ++id) compute_node(static_cast<std::int64_t>(id));
  }

  // oneTBB and OpenMP: each operator a loop over its level's planes, `block`
  // planes a piece, all in one region; the norm a reduction over the planes.
  template <class P>
  void run_baseline() {
    P::region([&] {
      for (const op& o : ops_) {
        if (o.kind == op::norm) continue;
        if (o.kind == op::squares) {
          const double s = P::reduce(1, points(o.level) + 1, block_, [&](std::int64_t l, std::int64_t h) {
            return mg::sum_of_squares(r(o.level), l, h);
          });
          P::single([&] { norm_ = std::sqrt(s / static_cast<double>(n_ * n_ * n_)); });
          continue;
        }
        P::loop(1, points(o.level) + 1, block_, [&](std::int64_t l, std::int64_t h) { apply(o, l, h, 0); });
      }
    });
  }

  locus::graph_locality run_graph() {
    auto preds = [this](std::int64_t id) -> const std::vector<std::int64_t>& {
      return nodes_[static_cast<std::size_t>(id)].preds;
    };
    auto compute = [this](std::int64_t id) { compute_node(id); };
    // Block b of B on its level: b * num_colors() / B (the norm node: block 0).
    auto color = [this](std::int64_t id) {
      const node& nd = nodes_[static_cast<std::size_t>(id)];
      return bench::block_color(nd.block, blocks(ops_[nd.op].level));
    };
    auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
    g.measure_locality();
    g.run(static_cast<std::int64_t>(nodes_.size()) - 1);
    return g.locality();
  }

  int top_;  // the finest level: n = 2^top
  std::int64_t n_, iterations_, block_;
  mg::grid v_;
  std::vector<mg::grid> u_, r_;  // per level 1..top (index 0 unused)
  std::vector<op> ops_;
  std::vector<node> nodes_;
  std::vector<double> partial_;  // sums of squares per block of the finest level
  double norm_ = 0.0;
  bool done_ = false;
  std::vector<double> reference_r_;
  double reference_norm_ = 0.0;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar mg_graph{{
    "mg-graph",
    "NabbitC (seed 004), section V, Table I: mg from NAS as a task graph (nx = ny = nz = 2048, LM = 11, 16384 "
    "nodes in the paper)",
    "NAS MG (V-cycles of resid, psinv, rprj3 and interp on a periodic 3-D grid, then norm2u3) as a task graph "
    "computed on demand: a node per operator and block of planes of its level, after the nodes that last "
    "wrote what it reads and those that read what it overwrites; colored by the worker a static partition of "
    "the planes gives the block. oneTBB and OpenMP run each operator as a loop over planes.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 32, 128, 256, s,
                           "grid points a side, a power of two (NAS class S 32, W 128, A 256); 3 grids of n^3 "
                           "doubles and two more for the coarser levels",
                           {4, 1024});
      if ((n & (n - 1)) != 0)
        throw std::invalid_argument("n=" + std::to_string(n) + ": the grid side must be a power of two (4 to 1024)");
      const auto iterations = p.get("iterations", 4, 4, 4, s, "V-cycles (NAS nit: 4 for classes S, W, A)", {1});
      const auto block = p.get("block", 4, 4, 8, s, "planes per node (and per loop piece) on every level", {1});
      return std::make_unique<mg_graph_instance>(n, iterations, block);
    }}};

}  // namespace
