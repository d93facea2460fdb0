// streamcluster in the suite: a synthetic stream of `chunks` x `chunk`
// points in `dim` dimensions, clustered chunk by chunk and then as a whole
// (kernel.hpp). Each run reads the stream from its start; every run must
// end with the serial run's centers, bit for bit.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/partition_tasks.hpp"
#include "common/places.hpp"
#include "streamcluster/kernel.hpp"

namespace {

using streamcluster::point_set;

// The stream: PARSEC's native input ("none") makes its points with a random
// generator as it reads them; so does this one, but around hidden centers,
// so that there are clusters to find. Point g lies in hidden cluster
// mix(g) mod `hidden`, each coordinate off its center by up to spread / 2,
// from a multiplicative hash of (g, d): cheap enough that the serial read
// stays a small part of a run, as in PARSEC.
class synthetic_stream {
 public:
  static constexpr int hidden = 16;
  static constexpr float spread = 0.25f;
  // Declared per coordinate read: the hash (a multiply, a shift, an xor), the
  // conversion and the multiply-add.
  static constexpr std::uint64_t cycles_per_coordinate = 5;

  explicit synthetic_stream(std::int64_t dim) : dim_(dim), centers_(static_cast<std::size_t>(hidden * dim)) {
    streamcluster::random_stream random{0x5eedc1057e5ULL};
    for (float& c : centers_) c = static_cast<float>(random.uniform());
  }

  // Points [first, first + count) of the stream into s (weight 1 each).
  void read(std::int64_t first, std::int64_t count, const point_set& s) const {
    bench::touch_n(s.coord, count * dim_, locus::access::write);
    bench::touch_n(s.weight, count, locus::access::write);
    locus::compute(static_cast<std::uint64_t>(count * dim_) * cycles_per_coordinate);
    for (std::int64_t i = 0; i < count; ++i) {
      const auto g = static_cast<std::uint64_t>(first + i);
      const float* center = &centers_[static_cast<std::size_t>(mix(g) % hidden * static_cast<std::uint64_t>(dim_))];
      float* out = s.coord + i * dim_;
      for (std::int64_t d = 0; d < dim_; ++d) {
        std::uint64_t v = (g * static_cast<std::uint64_t>(dim_) + static_cast<std::uint64_t>(d) + 1) * 0x9e3779b97f4a7c15ULL;
        v ^= v >> 29;
        out[d] = center[d] + spread * (static_cast<float>(v >> 40) * 0x1.0p-24f - 0.5f);
      }
      s.weight[i] = 1.0f;
    }
  }

 private:
  static std::uint64_t mix(std::uint64_t g) {
    g = (g ^ (g >> 31)) * 0xbf58476d1ce4e5b9ULL;
    return g ^ (g >> 29);
  }
  std::int64_t dim_;
  std::vector<float> centers_;
};

// The arrays of one point set, owned.
struct point_arrays {
  std::vector<float> coord, weight, cost, x_cost;
  std::vector<std::int64_t> assign;
  std::vector<std::int32_t> slot;
  void resize(std::int64_t n, std::int64_t dim) {
    coord.resize(static_cast<std::size_t>(n * dim));
    for (auto* v : {&weight, &cost, &x_cost}) v->resize(static_cast<std::size_t>(n));
    assign.resize(static_cast<std::size_t>(n));
    slot.resize(static_cast<std::size_t>(n));
  }
  point_set view(std::int64_t n, std::int64_t dim) {
    return {n, dim, coord.data(), weight.data(), cost.data(), assign.data(), x_cost.data(), slot.data()};
  }
};

// PARSEC's contcenters: every point that is not a center moves its center
// to the weighted mean of the two and adds its weight to it, so a center
// ends as the weighted mean of its points. Serial, as in PARSEC.
void gather_into_centers(const point_set& s) {
  bench::touch_n(s.coord, s.n * s.dim, locus::access::write);
  bench::touch_n(s.weight, s.n, locus::access::write);
  bench::touch_n(s.assign, s.n, locus::access::read);
  locus::compute(static_cast<std::uint64_t>(2 * s.n * s.dim));
  for (std::int64_t i = 0; i < s.n; ++i) {
    const std::int64_t c = s.assign[i];
    if (c == i) continue;
    const float share = s.weight[i] / (s.weight[c] + s.weight[i]);
    float* center = s.coord + c * s.dim;
    const float* point = s.coord + i * s.dim;
    for (std::int64_t d = 0; d < s.dim; ++d) center[d] = center[d] * (1.0f - share) + point[d] * share;
    s.weight[c] += s.weight[i];
  }
}

struct outcome {
  std::vector<std::int64_t> chunk_centers;  // k of each chunk
  std::vector<std::int64_t> ids;            // stream index of each final center
  std::vector<float> weights;               // points each final center stands for
  std::vector<float> coords;                // their coordinates
  double cost = 0.0;                        // of the final clustering, before the centers move
  std::int64_t gains = 0, opened = 0;       // gain() calls, and those that opened a center
};

class streamcluster_instance final : public bench::instance {
 public:
  streamcluster_instance(std::int64_t chunks, std::int64_t chunk, std::int64_t dim,
                         streamcluster::search_settings settings)
      : chunks_(chunks), chunk_(chunk), dim_(dim), settings_(settings), stream_(dim) {
    block_.resize(chunk, dim);
    prepare();
    run(bench::parse_variant("serial"));
    expected_ = result_;
  }

  // The chunk's arrays in the variant's layout: block p of each on place p,
  // where the partitions of place p read them (bench::place_blocks).
  void prepare() override {
    bench::place_blocks(std::span(block_.coord));
    for (auto* v : {&block_.weight, &block_.cost, &block_.x_cost}) bench::place_blocks(std::span(*v));
    bench::place_blocks(std::span(block_.assign));
    bench::place_blocks(std::span(block_.slot));
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { bench::partition_program<P>([&] { result_ = cluster_stream<P>(); }); });
  }

  std::string verify() override {
    const outcome& got = result_;
    const outcome& want = expected_;
    if (got.chunk_centers != want.chunk_centers) return "the chunks' numbers of centers differ from the serial run's";
    if (got.ids != want.ids) return "the final centers are other points than the serial run's";
    if (got.weights != want.weights || got.coords != want.coords)
      return "the final centers' weights or coordinates differ from the serial run's";
    if (got.cost != want.cost) {
      std::ostringstream s;
      s.precision(17);
      s << "final cost " << got.cost << ", the serial run's " << want.cost;
      return s.str();
    }
    return "";
  }

  std::string summary() override {
    std::ostringstream s;
    s.precision(6);
    s << chunks_ << " x " << chunk_ << " points of " << dim_ << " dimensions, " << settings_.parts
      << " partitions; centers per chunk";
    for (std::int64_t k : result_.chunk_centers) s << ' ' << k;
    s << "; " << result_.ids.size() << " final centers, cost " << result_.cost << "; " << result_.gains
      << " gains, " << result_.opened << " opened";
    return s.str();
  }

 private:
  template <class P>
  outcome cluster_stream() {
    outcome out;
    streamcluster::random_stream random{20120813};
    point_arrays centers;  // the chunks' centers, clustered at the end
    std::vector<std::int64_t> center_ids;
    std::int64_t gathered = 0;
    for (std::int64_t c = 0; c < chunks_; ++c) {
      const point_set s = block_.view(chunk_, dim_);
      stream_.read(c * chunk_, chunk_, s);
      streamcluster::clusterer<P> clustering(s, settings_, random);
      out.chunk_centers.push_back(clustering.run());
      out.gains += clustering.gains();
      out.opened += clustering.opened();
      gather_into_centers(s);
      // PARSEC's copycenters: the chunk's centers join the set, in point order.
      centers.resize(gathered + out.chunk_centers.back(), dim_);
      for (std::int64_t i = 0; i < chunk_; ++i) {
        if (s.slot[i] < 0) continue;
        std::copy_n(s.coord + i * dim_, dim_, centers.coord.begin() + gathered * dim_);
        centers.weight[static_cast<std::size_t>(gathered)] = s.weight[i];
        center_ids.push_back(c * chunk_ + i);
        ++gathered;
      }
    }
    const point_set all = centers.view(gathered, dim_);
    streamcluster::clusterer<P> clustering(all, settings_, random);
    clustering.run();
    out.gains += clustering.gains();
    out.opened += clustering.opened();
    for (std::int64_t i = 0; i < gathered; ++i) out.cost += all.cost[i];
    gather_into_centers(all);
    for (std::int64_t i = 0; i < gathered; ++i) {
      if (all.slot[i] < 0) continue;
      out.ids.push_back(center_ids[static_cast<std::size_t>(i)]);
      out.weights.push_back(all.weight[i]);
      out.coords.insert(out.coords.end(), all.coord + i * dim_, all.coord + (i + 1) * dim_);
    }
    return out;
  }

  std::int64_t chunks_, chunk_, dim_;
  streamcluster::search_settings settings_;
  synthetic_stream stream_;
  point_arrays block_;  // the chunk being clustered (PARSEC's `block`)
  outcome result_, expected_;
};

const bench::registrar registered{{
    "streamcluster",
    "TBB-NUMA (seed 001), section 5.1, Table 2: streamcluster from PARSEC, 10M input points, the task scheduler "
    "used directly",
    "PARSEC streamcluster's online k-median: per chunk of the stream, local search (pkmedian: speedy, then gains "
    "of candidate centers, each a pass over the chunk's points with one task per partition and a reduction); "
    "then the chunks' centers are clustered.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto chunk = p.get("chunk", 1024, 49152, 200000, s,
                               "points per chunk (PARSEC's chunksize; native: 200 000; quick: 24 MB of "
                               "coordinates, more than one Westmere socket's L3)",
                               {1, 1 << 26});
      const auto chunks = p.get("chunks", 2, 1, 50, s,
                                "chunks in the stream (the paper's 10M points: 50 of 200 000)", {1, 100000});
      const auto dim = p.get("dim", 16, 128, 128, s, "coordinates per point (PARSEC native: 128)", {1, 4096});
      const auto kmin = p.get("kmin", 5, 10, 10, s, "fewest centers per clustering (PARSEC native: 10)", {2, 10000});
      const auto kmax = p.get("kmax", 10, 20, 20, s, "most centers per clustering (PARSEC native: 20)", {2, 10000});
      const auto parts = p.get("parts", 32, 32, 32, s,
                               "partitions of the points, one task each per pass (the paper's one per thread: "
                               "32); a multiple of the places keeps each partition on one place's block",
                               {1, 4096});
      if (kmin > kmax)
        throw std::invalid_argument("--param kmin=" + std::to_string(kmin) + " is above kmax=" +
                                    std::to_string(kmax) + ": kmin must not exceed kmax");
      if (chunk * dim > (std::int64_t{1} << 31))
        throw std::invalid_argument("chunk x dim = " + std::to_string(chunk * dim) +
                                    " coordinates: at most 2^31 (8 GiB of floats) per chunk");
      return std::make_unique<streamcluster_instance>(chunks, chunk, dim,
                                                      streamcluster::search_settings{kmin, kmax, static_cast<int>(parts)});
    }}};

}  // namespace
