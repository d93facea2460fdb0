// sw-graph: Smith-Waterman local alignment as a wavefront task graph
// (NabbitC, seed 004, section V, Table I: sw, the n^3 form, n = m = 5120
// with 32 x 32 blocks; swn2, the n^2 form, n = m = 131072 with 1024 x 1024
// blocks). The score matrix H is (n + 1) x (m + 1), row 0 and column 0 zero,
// and for 1 <= i <= n, 1 <= j <= m, with s the substitution score of a[i]
// and b[j]:
//
//   form 2 (linear gap g, O(nm)):
//     H[i][j] = max(0, H[i-1][j-1] + s, H[i-1][j] - g, H[i][j-1] - g)
//   form 3 (general gap penalty w(k), O(nm(n + m))), Smith and Waterman's
//   original recurrence:
//     H[i][j] = max(0, H[i-1][j-1] + s, max over 1 <= k <= i of H[i-k][j] - w(k),
//                                       max over 1 <= k <= j of H[i][j-k] - w(k))
//
// The paper names the two forms but prints no recurrence; these are the
// textbook ones its names refer to. w is a table that the n^3 loop reads for
// every k, so the loop does not exploit its shape; here w(k) = open +
// extend * k.
//
// The matrix is cut into blocks of `block` x `block` cells. Node (I, J)
// computes block (I, J) after (I-1, J), (I, J-1) and (I-1, J-1): those give
// the cells it reads in form 2, and in form 3 they are done only after every
// block above and to the left of it, which form 3 also reads. The sink is
// the last block. locus variants run the graph on demand from the sink;
// serial runs the blocks row by row; oneTBB and OpenMP run the wavefront
// over the anti-diagonals of blocks, one loop per diagonal (OpenMP: `omp
// for` with the variant's schedule, a barrier after each diagonal, as the
// paper's OpenMP version synchronizes at each diagonal step). Colors follow
// the data: the matrix is row major and placed in blocks of rows, so block
// row I belongs to the worker a static partition of the block rows gives it.
#include <algorithm>
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

constexpr std::int32_t match = 2, mismatch = -1;  // substitution scores
constexpr std::int32_t gap = 1;                   // form 2: per gap position
constexpr std::int32_t gap_open = 2, gap_extend = 1;  // form 3: w(k) = open + extend * k

std::uint64_t hash(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class sw_graph_instance final : public bench::instance {
 public:
  sw_graph_instance(int form, std::int64_t n, std::int64_t m, std::int64_t block, std::int64_t seed)
      : form_(form), n_(n), m_(m), block_(block), rows_((n + block - 1) / block), cols_((m + block - 1) / block),
        a_(static_cast<std::size_t>(n + 1)), b_(static_cast<std::size_t>(m + 1)),
        w_(static_cast<std::size_t>(std::max(n, m) + 1)), h_(cells()) {
    // Two sequences over a four-letter alphabet from the seed (a[0] and b[0]
    // are unused: the recurrence counts from 1).
    for (std::int64_t i = 1; i <= n_; ++i) a_[static_cast<std::size_t>(i)] = hash(2 * seed * n_ + i) % 4;
    for (std::int64_t j = 1; j <= m_; ++j) b_[static_cast<std::size_t>(j)] = hash((2 * seed + 1) * m_ + j) % 4;
    for (std::size_t k = 0; k < w_.size(); ++k) w_[k] = gap_open + gap_extend * static_cast<std::int32_t>(k);
    prepare();
    run_serial();
    reference_ = h_;
  }

  // Every cell zero (row 0 and column 0 stay so), placed in blocks of rows.
  void prepare() override {
    std::fill(h_.begin(), h_.end(), 0);
    bench::place_blocks(std::span(h_));
    done_ = false;
  }

  void run(const bench::variant& v) override {
    locality_ = bench::run_graph_variant(v, *this);
    done_ = true;
  }

  // The whole matrix, bit for bit: every cell is computed by the same
  // integer operations whichever worker runs its block.
  std::string verify() override {
    if (!done_) return "no result";
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t c = 0; c < cells(); ++c)
      if (h_[static_cast<std::size_t>(c)] != reference_[static_cast<std::size_t>(c)]) {
        if (first < 0) first = c;
        ++wrong;
      }
    if (wrong == 0) return "";
    std::ostringstream why;
    why << wrong << " of " << cells() << " cells of H differ from the serial result; first at i = " << first / (m_ + 1)
        << ", j = " << first % (m_ + 1) << ": " << h_[static_cast<std::size_t>(first)] << ", expected "
        << reference_[static_cast<std::size_t>(first)];
    return why.str();
  }

  std::string summary() override {
    std::ostringstream s;
    s << "n^" << form_ << " form, " << n_ << " x " << m_ << ", " << rows_ << " x " << cols_ << " blocks of " << block_
      << "^2, best local score " << (done_ ? *std::max_element(h_.begin(), h_.end()) : 0);
    s << bench::locality_note(locality_);
    return s.str();
  }

 private:
  // run_serial, run_graph and run_baseline are run_graph_variant's.
  template <class B>
  friend std::optional<locus::graph_locality> bench::run_graph_variant(const bench::variant&, B&);

  std::int64_t cells() const { return (n_ + 1) * (m_ + 1); }
  std::int32_t* row(std::int64_t i) { return h_.data() + i * (m_ + 1); }

  // Block (bi, bj): rows [i0, i1) and columns [j0, j1) of H.
  void compute_block(std::int64_t bi, std::int64_t bj) {
    const std::int64_t i0 = 1 + bi * block_, i1 = std::min(n_ + 1, i0 + block_);
    const std::int64_t j0 = 1 + bj * block_, j1 = std::min(m_ + 1, j0 + block_);
    if (form_ == 2) return block_n2(i0, i1, j0, j1);
    block_n3(i0, i1, j0, j1);
  }

  void block_n2(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
    // Read: the row above the block (from the diagonal cell); written: the
    // block, row by row. The column left of the block, one cell per row, is
    // not declared: it mostly shares a line with the row's first cells.
    // Cycles: 4 per cell (the diagonal's add, three comparisons; the two
    // gap subtractions fold into them).
    locus::touch(row(i0 - 1) + j0 - 1, static_cast<std::size_t>(j1 - j0 + 1) * sizeof(std::int32_t));
    locus::compute(static_cast<std::uint64_t>(4 * (i1 - i0) * (j1 - j0)));
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int32_t* up = row(i - 1);
      std::int32_t* h = row(i);
      locus::touch(h + j0, static_cast<std::size_t>(j1 - j0) * sizeof(std::int32_t), locus::access::write);
      const std::uint8_t ai = a_[static_cast<std::size_t>(i)];
      for (std::int64_t j = j0; j < j1; ++j) {
        const std::int32_t s = ai == b_[static_cast<std::size_t>(j)] ? match : mismatch;
        h[j] = std::max({0, up[j - 1] + s, up[j] - gap, h[j - 1] - gap});
      }
    }
  }

  void block_n3(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
    // Read: the block's columns from row 0 down, and each of its rows from
    // column 0; written: the block. Cycles: 2 per k (a subtraction and a
    // comparison) plus 3 per cell. Declared per row only when simulating:
    // i1 ranges per block.
    if (locus::simulating()) {
      for (std::int64_t i = 0; i < i0; ++i)
        locus::touch(row(i) + j0 - 1, static_cast<std::size_t>(j1 - j0 + 1) * sizeof(std::int32_t));
      for (std::int64_t i = i0; i < i1; ++i)
        locus::touch(row(i), static_cast<std::size_t>(j1) * sizeof(std::int32_t), locus::access::write);
      std::uint64_t cycles = 0;
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) cycles += static_cast<std::uint64_t>(2 * (i + j) + 3);
      locus::compute(cycles);
    }
    const std::int64_t stride = m_ + 1;
    for (std::int64_t i = i0; i < i1; ++i) {
      std::int32_t* h = row(i);
      const std::uint8_t ai = a_[static_cast<std::size_t>(i)];
      for (std::int64_t j = j0; j < j1; ++j) {
        const std::int32_t s = ai == b_[static_cast<std::size_t>(j)] ? match : mismatch;
        std::int32_t best = std::max(0, h[j - stride - 1] + s);
        const std::int32_t* up = h + j;
        for (std::int64_t k = 1; k <= i; ++k) best = std::max(best, up[-k * stride] - w_[static_cast<std::size_t>(k)]);
        for (std::int64_t k = 1; k <= j; ++k) best = std::max(best, h[j - k] - w_[static_cast<std::size_t>(k)]);
        h[j] = best;
      }
    }
  }

  void run_serial() {
    for (std::int64_t bi = 0; bi < rows_; ++bi)
      for (std::int64_t bj = 0; bj < cols_; ++bj) compute_block(bi, bj);
  }

  // Diagonal d holds the blocks (bi, d - bi); one loop over its bi per
  // diagonal, every diagonal in one region.
  template <class P>
  void run_baseline() {
    P::region([&] {
      for (std::int64_t d = 0; d < rows_ + cols_ - 1; ++d) {
        const std::int64_t lo = std::max<std::int64_t>(0, d - cols_ + 1), hi = std::min(rows_, d + 1);
        P::loop(lo, hi, 1, [&](std::int64_t a, std::int64_t b) {
          for (std::int64_t bi = a; bi < b; ++bi) compute_block(bi, d - bi);
        });
      }
    });
  }

  // Keys are bi * cols + bj; the sink is the last block.
  locus::graph_locality run_graph() {
    auto preds = [this](std::int64_t key) {
      std::vector<std::int64_t> p;
      const std::int64_t bi = key / cols_, bj = key % cols_;
      if (bi > 0) p.push_back(key - cols_);
      if (bj > 0) p.push_back(key - 1);
      if (bi > 0 && bj > 0) p.push_back(key - cols_ - 1);
      return p;
    };
    auto compute = [this](std::int64_t key) { compute_block(key / cols_, key % cols_); };
    auto color = [this](std::int64_t key) { return bench::block_color(key / cols_, rows_); };
    auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
    g.measure_locality();
    g.run(rows_ * cols_ - 1);
    return g.locality();
  }

  int form_;
  std::int64_t n_, m_, block_, rows_, cols_;
  std::vector<std::uint8_t> a_, b_;
  std::vector<std::int32_t> w_;  // w_[k]: form 3's penalty of a gap of k
  std::vector<std::int32_t> h_, reference_;
  bool done_ = false;
  std::optional<locus::graph_locality> locality_;  // of the last run, if it was a task graph's
};

// Sizes per form: (tiny, quick, full) of the sequence length and the block.
std::unique_ptr<bench::instance> make_sw(int default_form, bench::size_class s, bench::params& p) {
  const auto form = static_cast<int>(p.get("form", default_form, default_form, default_form, s,
                                           "2: the n^2 form (linear gap), 3: the n^3 form (general gap penalty)",
                                           {2, 3}));
  const bool n3 = form == 3;
  const auto n = n3 ? p.get("n", 64, 1024, 5120, s, "length of the first sequence (rows of H)", {1, 1 << 20})
                    : p.get("n", 160, 12288, 16384, s, "length of the first sequence (rows of H)", {1, 1 << 20});
  const auto m = n3 ? p.get("m", 64, 1024, 5120, s, "length of the second sequence (columns of H)", {1, 1 << 20})
                    : p.get("m", 160, 12288, 16384, s, "length of the second sequence (columns of H)", {1, 1 << 20});
  const auto block = n3 ? p.get("block", 8, 32, 32, s, "rows and columns of H per node", {1})
                        : p.get("block", 32, 384, 128, s, "rows and columns of H per node", {1});
  const auto seed = p.get("seed", 1, 1, 1, s, "seed of the two sequences", {0, 1 << 30});
  return std::make_unique<sw_graph_instance>(form, n, m, block, seed);
}

const bench::registrar sw_graph{{
    "sw-graph",
    "NabbitC (seed 004), section V, Table I: Smith-Waterman as a wavefront task graph (swn2: n = m = 131072, "
    "1024^2 blocks; sw: n = m = 5120, 32^2 blocks, in the paper)",
    "Smith-Waterman local alignment of two random sequences as a task graph of blocks of H computed on demand: "
    "node (I, J) after (I-1, J), (I, J-1), (I-1, J-1); --param form=2 (default) the n^2 linear-gap form, "
    "form=3 the n^3 general-gap form. Colored by block row; oneTBB and OpenMP run the wavefront of diagonals.",
    true, [](bench::size_class s, bench::params& p) { return make_sw(2, s, p); }}};

// The same benchmark with form 3 by default, so that the smoke, sanitizer
// and simulator runs (which use the defaults) cover the n^3 form too.
const bench::registrar sw3_graph{{
    "sw3-graph",
    "NabbitC (seed 004), section V, Table I: sw, Smith-Waterman n^3 (n = m = 5120, 32^2 blocks in the paper)",
    "sw-graph with --param form=3 by default: the general gap penalty, each cell the max over its whole "
    "column above and row to its left.",
    true, [](bench::size_class s, bench::params& p) { return make_sw(3, s, p); }}};

}  // namespace
