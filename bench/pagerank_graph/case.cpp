// pagerank-graph: PageRank by the power method as a task graph (NabbitC,
// seed 004, section V, Table I: PageRank on the uk-2002, twitter-2010 and
// uk-2007-05 crawls, 10 iterations). The crawls cannot be downloaded here;
// the graph is a synthetic R-MAT graph instead (2^scale vertices,
// edges * 2^scale directed edges, quadrant probabilities a, b = c =
// 0.19 (1 - a) / 0.43, d = 0.05 (1 - a) / 0.43, so a = 0.57 gives the usual
// 0.57 / 0.19 / 0.19 / 0.05; a larger a skews the degrees more, as
// twitter-2010's do). Vertex labels are not permuted (unless permute=1),
// so the high-degree vertices gather at low labels and blocks of vertices
// carry unequal work, the irregularity that OpenMP static cannot balance.
//
// Iteration t (1 <= t <= iterations) computes, for every vertex v, pulling
// over its in-edges in a fixed order,
//   rank[v] = (1 - damping) / n + damping * sum over u -> v of contrib[t-1][u]
//   contrib[t][v] = rank[v] / outdeg(v), 0 for a vertex without out-edges
// with contrib[0][u] = (1 / n) / outdeg(u). The mass of vertices without
// out-edges is dropped, as in the GAP benchmark suite's pr. Every iteration
// writes its own contrib array, so node (t, b), which computes block b of
// the vertices at iteration t, has exactly the predecessors the paper
// gives: the nodes (t - 1, b') of the blocks b' holding in-neighbours of
// block b. The sink needs every block of the last iteration. Each sum runs
// over the same edges in the same order whoever computes it, so the ranks
// equal the serial ones bit for bit.
//
// locus variants run the graph on demand from the sink (Nabbit under ws,
// NabbitC under nabbitc); serial runs the blocks iteration by iteration;
// oneTBB and OpenMP run one loop over the blocks per iteration, in one
// region (the paper compares with OpenMP static and guided). Colors follow
// the data, as the paper colors each task by the block of pages it takes as
// input: block b belongs to the worker a static partition of the vertices
// gives it.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/annotate.hpp>
#include <locus/locus.hpp>

#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/places.hpp"
#include "common/splitmix64.hpp"

namespace {

constexpr double damping = 0.85;

using bench::splitmix64;

class pagerank_graph_instance final : public bench::instance {
 public:
  pagerank_graph_instance(std::int64_t scale, std::int64_t edges, double a, std::int64_t local, bool permute,
                          std::int64_t iterations, std::int64_t block, std::int64_t seed)
      : n_(std::int64_t{1} << scale), iterations_(iterations), block_(block), blocks_((n_ + block - 1) / block),
        offsets_(static_cast<std::size_t>(n_ + 1)), outdeg_(static_cast<std::size_t>(n_)),
        contrib_(static_cast<std::size_t>(iterations + 1)), rank_(static_cast<std::size_t>(n_)) {
    build_rmat(scale, edges * n_, a, local, permute, seed);
    build_block_preds();
    for (auto& c : contrib_) c.resize(static_cast<std::size_t>(n_));
    for (std::int64_t v = 0; v < n_; ++v)
      contrib_[0][static_cast<std::size_t>(v)] = outdeg_[static_cast<std::size_t>(v)] == 0
                                                     ? 0.0
                                                     : 1.0 / static_cast<double>(n_) / outdeg_[static_cast<std::size_t>(v)];
    prepare();
    run_serial();
    reference_ = rank_;
  }

  // The graph and contrib[0] are inputs that no run writes; the rank and
  // the later contrib arrays are outputs, cleared. Every array is placed in
  // equal blocks: the per-vertex ones in blocks of vertices, as the colors
  // assume; the in-edges in equal blocks of edges, which follow the vertex
  // blocks only where the in-degrees are even (R-MAT's are not).
  void prepare() override {
    std::fill(rank_.begin(), rank_.end(), 0.0);
    for (std::size_t t = 1; t < contrib_.size(); ++t) std::fill(contrib_[t].begin(), contrib_[t].end(), 0.0);
    for (auto& c : contrib_) bench::place_blocks(std::span(c));
    bench::place_blocks(std::span(rank_));
    bench::place_blocks(std::span(offsets_));
    bench::place_blocks(std::span(sources_));
    done_ = false;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
    done_ = true;
  }

  std::string verify() override {
    if (!done_) return "no result";
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t v = 0; v < n_; ++v)
      if (rank_[static_cast<std::size_t>(v)] != reference_[static_cast<std::size_t>(v)]) {
        if (first < 0) first = v;
        ++wrong;
      }
    if (wrong == 0) return "";
    std::ostringstream why;
    why.precision(17);
    why << wrong << " of " << n_ << " ranks differ from the serial result; first at vertex " << first << ": "
        << rank_[static_cast<std::size_t>(first)] << ", expected " << reference_[static_cast<std::size_t>(first)];
    return why.str();
  }

  std::string summary() override {
    double sum = 0.0;
    if (done_)
      for (double r : rank_) sum += r;
    std::size_t preds = 0;
    for (const auto& p : in_blocks_) preds += p.size();
    std::ostringstream s;
    s.precision(6);
    s << n_ << " vertices, " << sources_.size() << " edges (max in-degree " << max_indeg_ << ", max out-degree "
      << max_outdeg_ << "), " << iterations_ << " iterations, " << blocks_ << " blocks of " << block_
      << " vertices, " << static_cast<double>(preds) / static_cast<double>(blocks_)
      << " predecessor blocks per node, heaviest block " << 100.0 * static_cast<double>(heaviest_block_edges())
      / static_cast<double>(std::max<std::size_t>(sources_.size(), 1)) << "% of the edges, rank sum " << sum;
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  // R-MAT: each edge picks one quadrant per bit of the labels, the source's
  // bit from the row and the destination's from the column. With `local`
  // percent, an edge's source is redrawn uniformly within local_window
  // labels of its destination instead: the links within a host of a crawl
  // in URL order (uk-2002's), which R-MAT alone does not have. With
  // `permute`, R-MAT's labels are first mapped through a random permutation
  // (its own generator, so the edges drawn are the same), which spreads the
  // high-degree vertices over every block. Then the in-edges of every
  // vertex in CSR (sources by destination, in edge order).
  static constexpr std::int64_t local_window = 1024;
  void build_rmat(std::int64_t scale, std::int64_t edges, double a, std::int64_t local, bool permute,
                  std::int64_t seed) {
    const double b = 0.19 * (1 - a) / 0.43, c = b;
    splitmix64 rng{static_cast<std::uint64_t>(seed)};
    std::vector<std::uint32_t> label;
    if (permute) {
      label.resize(static_cast<std::size_t>(n_));
      std::iota(label.begin(), label.end(), std::uint32_t{0});
      splitmix64{~static_cast<std::uint64_t>(seed)}.shuffle(label);
    }
    std::vector<std::uint32_t> src(static_cast<std::size_t>(edges)), dst(static_cast<std::size_t>(edges));
    for (std::int64_t e = 0; e < edges; ++e) {
      std::uint32_t u = 0, v = 0;
      for (std::int64_t bit = 0; bit < scale; ++bit) {
        const double r = rng.uniform();
        const std::uint32_t row = r >= a + b, col = (r >= a && r < a + b) || r >= a + b + c;
        u = u << 1 | row;
        v = v << 1 | col;
      }
      if (permute) {
        u = label[u];
        v = label[v];
      }
      if (local > 0 && rng.uniform() * 100 < static_cast<double>(local)) {
        const auto offset = static_cast<std::int64_t>(rng.uniform() * (2 * local_window + 1)) - local_window;
        u = static_cast<std::uint32_t>(std::clamp<std::int64_t>(std::int64_t{v} + offset, 0, n_ - 1));
      }
      src[static_cast<std::size_t>(e)] = u;
      dst[static_cast<std::size_t>(e)] = v;
      ++outdeg_[u];
      ++offsets_[v + 1];
    }
    for (std::int64_t v = 0; v < n_; ++v) {
      max_indeg_ = std::max(max_indeg_, offsets_[static_cast<std::size_t>(v + 1)]);
      max_outdeg_ = std::max(max_outdeg_, static_cast<std::int64_t>(outdeg_[static_cast<std::size_t>(v)]));
      offsets_[static_cast<std::size_t>(v + 1)] += offsets_[static_cast<std::size_t>(v)];
    }
    sources_.resize(static_cast<std::size_t>(edges));
    std::vector<std::int64_t> next(offsets_.begin(), offsets_.end() - 1);
    for (std::int64_t e = 0; e < edges; ++e)
      sources_[static_cast<std::size_t>(next[dst[static_cast<std::size_t>(e)]]++)] = src[static_cast<std::size_t>(e)];
  }

  // in_blocks_[b]: the blocks holding an in-neighbour of block b, ascending.
  void build_block_preds() {
    in_blocks_.resize(static_cast<std::size_t>(blocks_));
    std::vector<std::int64_t> seen(static_cast<std::size_t>(blocks_), -1);
    for (std::int64_t b = 0; b < blocks_; ++b) {
      auto& list = in_blocks_[static_cast<std::size_t>(b)];
      for (std::int64_t i = offsets_[static_cast<std::size_t>(lo(b))]; i < offsets_[static_cast<std::size_t>(hi(b))];
           ++i) {
        const std::int64_t from = sources_[static_cast<std::size_t>(i)] / block_;
        if (seen[static_cast<std::size_t>(from)] != b) {
          seen[static_cast<std::size_t>(from)] = b;
          list.push_back(from);
        }
      }
      std::sort(list.begin(), list.end());
    }
  }

  // The in-edges of the block with the most: its node is on every
  // iteration's critical path, so iterations x its time bounds any run.
  std::int64_t heaviest_block_edges() const {
    std::int64_t most = 0;
    for (std::int64_t b = 0; b < blocks_; ++b)
      most = std::max(most, offsets_[static_cast<std::size_t>(hi(b))] - offsets_[static_cast<std::size_t>(lo(b))]);
    return most;
  }

  std::int64_t lo(std::int64_t b) const { return b * block_; }
  std::int64_t hi(std::int64_t b) const { return std::min(n_, (b + 1) * block_); }

  // Block b of iteration t: contrib[t] (and at the last iteration the
  // ranks) of its vertices from contrib[t - 1] of their in-neighbours.
  void update_block(std::int64_t t, std::int64_t b) {
    const std::int64_t v0 = lo(b), v1 = hi(b);
    const double* in = contrib_[static_cast<std::size_t>(t - 1)].data();
    double* out = contrib_[static_cast<std::size_t>(t)].data();
    const bool last = t == iterations_;
    const std::int64_t e0 = offsets_[static_cast<std::size_t>(v0)], e1 = offsets_[static_cast<std::size_t>(v1)];
    // Read: the offsets and in-edges of the block, the contributions of
    // the sources (a gather), the out-degrees; written: contrib[t] of the
    // block (and the ranks). Cycles: 1 per edge, 3 per vertex.
    locus::touch(offsets_.data() + v0, static_cast<std::size_t>(v1 - v0 + 1) * sizeof(std::int64_t));
    locus::touch(sources_.data() + e0, static_cast<std::size_t>(e1 - e0) * sizeof(std::uint32_t));
    locus::touch_indexed(in, sources_.data() + e0, static_cast<std::size_t>(e1 - e0), sizeof(double));
    locus::touch(outdeg_.data() + v0, static_cast<std::size_t>(v1 - v0) * sizeof(std::uint32_t));
    locus::touch(out + v0, static_cast<std::size_t>(v1 - v0) * sizeof(double), locus::access::write);
    if (last) locus::touch(rank_.data() + v0, static_cast<std::size_t>(v1 - v0) * sizeof(double), locus::access::write);
    locus::compute(static_cast<std::uint64_t>((e1 - e0) + 3 * (v1 - v0)));
    const double base = (1.0 - damping) / static_cast<double>(n_);
    for (std::int64_t v = v0; v < v1; ++v) {
      double sum = 0.0;
      for (std::int64_t i = offsets_[static_cast<std::size_t>(v)]; i < offsets_[static_cast<std::size_t>(v + 1)]; ++i)
        sum += in[sources_[static_cast<std::size_t>(i)]];
      const double r = base + damping * sum;
      const std::uint32_t deg = outdeg_[static_cast<std::size_t>(v)];
      out[v] = deg == 0 ? 0.0 : r / deg;
      if (last) rank_[static_cast<std::size_t>(v)] = r;
    }
  }

  void run_serial() {
    for (std::int64_t t = 1; t <= iterations_; ++t)
      for (std::int64_t b = 0; b < blocks_; ++b) update_block(t, b);
  }

  // One loop over the blocks per iteration, a block a piece, every
  // iteration in one region (OpenMP: one team, the variant's schedule).
  template <class P>
  void run_baseline() {
    P::region([&] {
      for (std::int64_t t = 1; t <= iterations_; ++t)
        P::loop(0, blocks_, 1, [&](std::int64_t a, std::int64_t b) {
          for (std::int64_t k = a; k < b; ++k) update_block(t, k);
        });
    });
  }

  // Keys are (t - 1) * blocks + b for 1 <= t <= iterations; the sink is
  // iterations * blocks.
  locus::graph_locality run_graph() {
    const std::int64_t sink = iterations_ * blocks_;
    auto preds = [this, sink](std::int64_t key) {
      std::vector<std::int64_t> p;
      if (key == sink) {
        if (iterations_ > 0)
          for (std::int64_t b = 0; b < blocks_; ++b) p.push_back((iterations_ - 1) * blocks_ + b);
        return p;
      }
      const std::int64_t t = key / blocks_ + 1, b = key % blocks_;
      if (t > 1) {
        const auto& from = in_blocks_[static_cast<std::size_t>(b)];
        p.reserve(from.size());
        for (std::int64_t f : from) p.push_back((t - 2) * blocks_ + f);
      }
      return p;
    };
    auto compute = [this, sink](std::int64_t key) {
      if (key != sink) update_block(key / blocks_ + 1, key % blocks_);
    };
    auto color = [this, sink](std::int64_t key) { return bench::block_color(key == sink ? 0 : key % blocks_, blocks_); };
    auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
    g.measure_locality();
    g.run(sink);
    return g.locality();
  }

  std::int64_t n_, iterations_, block_, blocks_;
  std::vector<std::int64_t> offsets_;   // in-edges of vertex v: sources_[offsets_[v], offsets_[v + 1])
  std::vector<std::uint32_t> sources_;
  std::vector<std::uint32_t> outdeg_;
  std::int64_t max_indeg_ = 0, max_outdeg_ = 0;
  std::vector<std::vector<std::int64_t>> in_blocks_;
  std::vector<std::vector<double>> contrib_;  // contrib_[t]: after iteration t
  std::vector<double> rank_, reference_;
  bool done_ = false;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

const bench::registrar pagerank_graph{{
    "pagerank-graph",
    "NabbitC (seed 004), section V, Table I: PageRank (power method), 10 iterations, on web crawls (uk-2002: "
    "18M vertices, 298M edges) in the paper; here a synthetic R-MAT graph",
    "PageRank by the power method on an R-MAT graph (a = 0.57 by default, --param a for the skew), pulling over "
    "in-edges, as a task graph computed on demand: node (t, b) computes block b of the vertices at iteration t "
    "after the blocks of iteration t-1 holding its in-neighbours; colored by the worker a static partition of "
    "the vertices gives the block. oneTBB and OpenMP (static, guided) run one loop over the blocks per iteration.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto scale = p.get("scale", 10, 20, 24, s, "2^scale vertices", {1, 31});
      const auto edges = p.get("edges", 8, 16, 16, s, "edges per vertex", {1, 1024});
      const auto a = p.get_real("a", 0.57, 0.57, 0.57, s,
                                "R-MAT probability of the first quadrant (b = c = 0.19 (1 - a) / 0.43): the skew",
                                {0.25, 0.97});
      const auto local = p.get("local", 0, 0, 0, s,
                               "percent of edges whose source lies within 1024 labels of the destination "
                               "(a crawl's links within a host; 0: R-MAT alone)",
                               {0, 100});
      const auto permute = p.get("permute", 0, 0, 0, s,
                                 "1: vertex labels randomly permuted (blocks of even work); 0: R-MAT's own, the "
                                 "high-degree vertices in the first blocks",
                                 {0, 1});
      const auto iterations = p.get("iterations", 4, 10, 10, s, "power-method iterations", {0});
      const auto block = p.get("block", 64, 4096, 65536, s, "vertices per node (and per loop piece)", {1});
      const auto seed = p.get("seed", 1, 1, 1, s, "seed of the R-MAT generator", {0});
      if ((std::int64_t{1} << scale) * edges > std::int64_t{1} << 32)
        throw std::invalid_argument("pagerank-graph: --param scale and edges give 2^scale * edges = " +
                                    std::to_string((std::int64_t{1} << scale) * edges) +
                                    " edges; accepted: at most 2^32");
      return std::make_unique<pagerank_graph_instance>(scale, edges, a, local, permute != 0, iterations, block, seed);
    }}};

}  // namespace
