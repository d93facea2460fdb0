// Decision Tree in the suite: a synthetic data set of HIGGS's shape (rows of
// 28 float features and a binary label) whose labels come from a planted
// random tree of depth 6 with 10% of them flipped (fixed seed), so that the
// split search finds real structure and then fits noise. HIGGS itself
// (about 2 GB) cannot be downloaded here. Every run's tree must equal the
// serial build's node by node (feature, threshold, label, rows), and its
// training accuracy (every row classified again) must equal the serial
// tree's.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "dtree/kernel.hpp"

namespace {

using dtree::node;
using dtree::row;

inline constexpr int planted_depth = 6;
inline constexpr double label_noise = 0.10;

// Features uniform in [0, 1); the label is the planted tree's leaf label,
// flipped with probability label_noise. The planted tree splits on a random
// feature at a threshold in [0.25, 0.75), so no side is tiny.
std::vector<row> planted_rows(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::uniform_int_distribution<int> feature(0, dtree::features - 1);
  std::uniform_real_distribution<float> threshold(0.25f, 0.75f);
  const std::size_t inner = (std::size_t{1} << planted_depth) - 1;  // heap indices 1 .. inner
  std::vector<int> split_feature(inner + 1);
  std::vector<float> split_at(inner + 1);
  for (std::size_t i = 1; i <= inner; ++i) {
    split_feature[i] = feature(random);
    split_at[i] = threshold(random);
  }
  std::vector<std::int32_t> leaf_label(inner + 1);  // leaf i: heap index inner + 1 + i
  for (auto& l : leaf_label) l = static_cast<std::int32_t>(random() & 1);
  std::bernoulli_distribution flip(label_noise);

  std::vector<row> out(static_cast<std::size_t>(n));
  for (auto& r : out) {
    for (float& x : r.x) x = uniform(random);
    std::size_t at = 1;
    while (at <= inner) at = 2 * at + (r.x[split_feature[at]] <= split_at[at] ? 0 : 1);
    r.label = leaf_label[at - inner - 1] ^ static_cast<std::int32_t>(flip(random));
  }
  return out;
}

// bins - 1 boundaries per feature at the quantiles j / bins of (up to
// 2^16 evenly spaced) rows, as histogram-based builders bin features once.
dtree::binning quantiles(const std::vector<row>& rows, int bins) {
  dtree::binning b{bins, std::vector<float>(static_cast<std::size_t>(dtree::features) * (bins - 1))};
  const std::size_t stride = std::max<std::size_t>(1, rows.size() >> 16);
  std::vector<float> sample;
  for (int f = 0; f < dtree::features; ++f) {
    sample.clear();
    for (std::size_t i = 0; i < rows.size(); i += stride) sample.push_back(rows[i].x[f]);
    std::sort(sample.begin(), sample.end());
    float* out = b.boundary.data() + static_cast<std::size_t>(f) * (bins - 1);
    for (int j = 1; j < bins; ++j)
      out[j - 1] = sample.empty() ? 0.0f : sample[std::min(sample.size() - 1, sample.size() * j / bins)];
  }
  return b;
}

std::int64_t correct(const std::vector<node>& tree, const std::vector<row>& rows) {
  std::int64_t right = 0;
  for (const row& r : rows) right += dtree::predict(tree.data(), r) == r.label;
  return right;
}

class dtree_instance final : public bench::instance {
 public:
  dtree_instance(std::int64_t n, int bins, dtree::shape s)
      : shape_(s),
        input_(planted_rows(n, 20200907)),
        binning_(quantiles(input_, bins)),
        data_(input_.size()),
        scratch_(input_.size()),
        tree_(dtree::heap_size(s.max_depth)) {
    prepare();
    build<bench::serial_backend>();
    expected_ = tree_;
    expected_correct_ = correct(expected_, input_);
    for (const node& x : expected_) {
      inner_ += x.feature >= 0;
      leaves_ += x.feature == node::leaf;
    }
  }

  void prepare() override {
    std::copy(input_.begin(), input_.end(), data_.begin());
    std::fill(tree_.begin(), tree_.end(), node{});
    // The rows' two buffers in the variant's data layout (bench::place_blocks).
    bench::place_blocks(std::span(data_));
    bench::place_blocks(std::span(scratch_));
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { P::run([&] { build<P>(); }); });
  }
  std::string verify() override {
    for (std::size_t i = 1; i < tree_.size(); ++i) {
      const node &got = tree_[i], &want = expected_[i];
      if (got.feature == want.feature && got.bin == want.bin &&
          std::bit_cast<std::uint32_t>(got.threshold) == std::bit_cast<std::uint32_t>(want.threshold) &&
          got.label == want.label && got.rows == want.rows)
        continue;
      std::ostringstream s;
      s.precision(9);
      auto describe = [&](const node& x) {
        if (x.feature == node::absent) s << "absent";
        else if (x.feature == node::leaf) s << "a leaf of " << x.rows << " rows, label " << x.label;
        else
          s << "a split of " << x.rows << " rows on feature " << x.feature << " at " << x.threshold << " (bin "
            << x.bin << "), label " << x.label;
      };
      s << "node " << i << " is ";
      describe(got);
      s << ", the serial build's ";
      describe(want);
      return s.str();
    }
    if (const auto got = correct(tree_, input_); got != expected_correct_)
      return "the tree classifies " + std::to_string(got) + " training rows right, the serial tree " +
             std::to_string(expected_correct_);
    return "";
  }
  std::string summary() override {
    std::ostringstream s;
    s.precision(4);
    s << "tree of " << inner_ << " splits and " << leaves_ << " leaves over " << input_.size()
      << " rows, training accuracy "
      << (input_.empty() ? 0.0 : 100.0 * static_cast<double>(expected_correct_) / static_cast<double>(input_.size()))
      << "%";
    return s.str();
  }

 private:
  template <class P>
  void build() {
    dtree::build<P>(data_.data(), scratch_.data(), static_cast<std::int64_t>(data_.size()), 0, 1, binning_, shape_,
                    tree_.data());
  }

  dtree::shape shape_;
  std::vector<row> input_;
  dtree::binning binning_;
  std::vector<row> data_, scratch_;
  std::vector<node> tree_, expected_;
  std::int64_t expected_correct_ = 0, inner_ = 0, leaves_ = 0;
};

const bench::registrar registered{{
    "dtree",
    "ADWS (seed 003), sections 2.1 and 6.2 (Decision Tree, Fig. 1; HIGGS, 10.5 M training rows, depth 17)",
    "CART decision tree on a synthetic HIGGS-shaped data set (28 float features, binary label from a planted "
    "depth-6 tree, 10% noise): per node a parallel histogram reduction over quantile bins, the lowest Gini split, "
    "a parallel double-buffered partition, and both sides built in parallel with their row counts as work hints.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto rows = p.get("rows", 2'000, 200'000, 10'500'000, s,
                              "training rows of 116 bytes (28 floats and a label); full = the paper's 10.5 M HIGGS "
                              "training rows, a 2.4 GB working set with the second buffer",
                              {1, 1'000'000'000});
      const auto depth = p.get("depth", 5, 17, 17, s, "maximum depth of the tree (paper: 17)", {0, 24});
      const auto bins = p.get("bins", 8, 32, 32, s, "quantile bins per feature (the candidate thresholds + 1)",
                              {2, 256});
      const auto min_rows = p.get("min_rows", 20, 20, 20, s, "nodes with fewer rows are leaves", {2});
      const auto serial = p.get("serial", 200, 565, 565, s,
                                "at most this many rows are built without forks (565 rows = the paper's 64 KB)", {0});
      const auto grain = p.get("grain", 2000, 2260, 2260, s,
                               "rows per histogram piece and partition block (2260 rows = the paper's 256 KB)", {1});
      const auto hints = p.get("hints", 1, 1, 1, s,
                               "1: each side's row count is its work hint (the paper's), 0: none (ADWS guesses 1 : 1, "
                               "Fig. 20's hatched bars)",
                               {0, 1});
      return std::make_unique<dtree_instance>(
          rows, static_cast<int>(bins),
          dtree::shape{static_cast<int>(depth), min_rows, serial, grain, hints == 1});
    }}};

}  // namespace
