// ferret in the suite: `queries` query images against a synthetic database
// of `images` signatures (kernel.hpp), through a five-stage pipeline:
//
//   load     (serial, in order)  the query's pixels into a work item
//   segment  (parallel)          its signature and index descriptor
//   probe    (parallel)          the index's candidates, over one block
//                                of the database per place: on locus each
//                                item fans out one task per block
//                                (bench::partition_tasks; under +nacs the
//                                task for block p at place p), or with
//                                probe_stages=1 one stage per place, stage
//                                p over block p and run at place p under
//                                +nacs (figure 12; without +nacs one stage
//                                over the whole database, as figure 12's
//                                program without NUMA)
//   rank     (parallel)          the `top` candidates by EMD
//   output   (serial, in order)  the query's result into the result table
//
// locus: locus::pipeline; tbb: tbb::parallel_pipeline; serial: each query
// through the stages in turn; omp (not in the paper, which ports ferret to
// TBB only): a loop over the queries whose output is an ordered region, as
// bench/pipeline does. Every run must give the serial run's results.
#include <oneapi/tbb/parallel_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <locus/locus.hpp>

#include "common/harness.hpp"
#include "common/partition_tasks.hpp"
#include "common/places.hpp"
#include "ferret/kernel.hpp"

namespace {

// A query on its way through the stages.
struct work_item {
  std::int64_t query = 0;
  std::vector<std::uint8_t> pixels;
  ferret::signature signature;
  ferret::descriptor descriptor{};
  std::vector<ferret::candidate> found;  // from every probe
  std::vector<std::vector<ferret::candidate>> per_block;  // the fanned-out probes', by block
  std::vector<ferret::match> ranked;
};

struct settings {
  std::int64_t images, queries;
  int side, keep, top;
  std::size_t in_flight;
  bool probe_stages;  // locus: one pipeline stage per place instead of a fan-out per item
};

class ferret_instance final : public bench::instance {
 public:
  explicit ferret_instance(settings s) : s_(s) {
    // The database: every image's signature and index entry.
    index_.resize(static_cast<std::size_t>(s_.images * ferret::descriptor_floats));
    feature_.resize(static_cast<std::size_t>(s_.images * ferret::regions * ferret::features));
    mass_.resize(static_cast<std::size_t>(s_.images * ferret::regions));
    for (std::int64_t j = 0; j < s_.images; ++j) {
      const ferret::signature sig = ferret::database_signature(ferret::layout(static_cast<std::uint64_t>(j)));
      const ferret::descriptor d = ferret::describe(sig);
      std::copy(d.begin(), d.end(), index_.begin() + j * ferret::descriptor_floats);
      for (int r = 0; r < ferret::regions; ++r) {
        std::copy(sig.feature[r].begin(), sig.feature[r].end(), feature_.begin() + (j * ferret::regions + r) * ferret::features);
        mass_[static_cast<std::size_t>(j * ferret::regions + r)] = sig.mass[r];
      }
    }
    // The queries, as files to load: query q shows database image
    // source(q), repainted.
    const auto bytes = static_cast<std::size_t>(3 * s_.side * s_.side);
    images_.resize(static_cast<std::size_t>(s_.queries) * bytes);
    for (std::int64_t q = 0; q < s_.queries; ++q)
      ferret::render(ferret::layout(static_cast<std::uint64_t>(source(q))), static_cast<std::uint64_t>(q), s_.side,
                     &images_[static_cast<std::size_t>(q) * bytes]);
    // An item per query in flight (OpenMP, whose threads may outnumber
    // them, makes more when it runs out).
    pool_.resize(s_.in_flight);
    for (auto& item : pool_) item.pixels.resize(bytes);
    results_.resize(static_cast<std::size_t>(s_.queries));
    prepare();
    run(bench::parse_variant("serial"));
    expected_ = results_;
  }

  // The database in the variant's layout: block p of the images on place p,
  // the block that probe stage p reads under +nacs.
  void prepare() override {
    bench::place_blocks(std::span(index_));
    bench::place_blocks(std::span(feature_));
    bench::place_blocks(std::span(mass_));
    for (auto& r : results_) r.clear();
  }

  void run(const bench::variant& v) override {
    free_.clear();
    for (auto& item : pool_) free_.push_back(&item);
    switch (v.kind) {
      case bench::impl::serial: run_serial(); break;
      case bench::impl::locus: run_locus(bench::locus_backend::loops == bench::locus_loops::distributed); break;
      case bench::impl::tbb: run_tbb(); break;
      case bench::impl::omp: run_omp(); break;
    }
  }

  std::string verify() override {
    for (std::size_t q = 0; q < results_.size(); ++q)
      if (results_[q] != expected_[q]) {
        std::ostringstream s;
        s << "query " << q << ": ";
        for (const auto& m : results_[q]) s << m.image << " (" << m.distance << ") ";
        s << "; the serial run's: ";
        for (const auto& m : expected_[q]) s << m.image << " (" << m.distance << ") ";
        return s.str();
      }
    return "";
  }

  std::string summary() override {
    std::int64_t hits = 0;
    double nearest = 0.0;
    for (std::int64_t q = 0; q < s_.queries; ++q) {
      const auto& r = results_[static_cast<std::size_t>(q)];
      if (r.empty()) continue;
      hits += r.front().image == source(q);
      nearest += static_cast<double>(r.front().distance) / (ferret::ground_units * ferret::total_mass);
    }
    std::ostringstream s;
    s.precision(4);
    s << s_.queries << " queries of " << s_.side << " x " << s_.side << " pixels against " << s_.images
      << " images; " << s_.keep << " candidates, top " << s_.top << "; the source image first for " << hits
      << " queries, mean EMD to the first " << nearest / static_cast<double>(s_.queries);
    return s.str();
  }

 private:
  // The database image query q repaints.
  std::int64_t source(std::int64_t q) const {
    return static_cast<std::int64_t>(ferret::random_stream{static_cast<std::uint64_t>(q) + 99}.next() %
                                     static_cast<std::uint64_t>(s_.images));
  }
  ferret::signatures database() const { return {feature_.data(), mass_.data()}; }

  // The stages. The first takes an item from the pool, the last gives it
  // back.
  work_item* load(std::int64_t q) {
    work_item* item = nullptr;
    {
      std::lock_guard hold(lock_);
      if (free_.empty()) {
        item = &pool_.emplace_back();
        item->pixels.resize(static_cast<std::size_t>(3 * s_.side * s_.side));
      } else {
        item = free_.back();
        free_.pop_back();
      }
    }
    item->query = q;
    const std::uint8_t* file = &images_[static_cast<std::size_t>(q) * item->pixels.size()];
    bench::touch_n(file, static_cast<std::int64_t>(item->pixels.size()), locus::access::read);
    bench::touch_n(item->pixels.data(), static_cast<std::int64_t>(item->pixels.size()), locus::access::write);
    std::copy(file, file + item->pixels.size(), item->pixels.begin());
    return item;
  }
  work_item* segment(work_item* item) {
    item->signature = ferret::segment(item->pixels.data(), s_.side);
    item->descriptor = ferret::describe(item->signature);
    item->found.clear();
    return item;
  }
  // Probe of images [first, last): one stage's share of the index.
  work_item* probe(work_item* item, std::int64_t first, std::int64_t last) {
    ferret::probe(item->descriptor, index_.data(), first, last, s_.keep, item->found);
    return item;
  }
  // The probe fanned out over the places' blocks, one task each; the
  // blocks' candidates are gathered in block order.
  work_item* probe_blocks(work_item* item) {
    const int blocks = locus::num_places();
    item->per_block.resize(static_cast<std::size_t>(blocks));
    auto probe_block = [&](int b) {
      const bench::partition_range r(s_.images, b, blocks);
      auto& found = item->per_block[static_cast<std::size_t>(b)];
      found.clear();
      ferret::probe(item->descriptor, index_.data(), r.begin, r.end, s_.keep, found);
    };
    if (!bench::partition_affinity<bench::locus_backend>()) {
      bench::partition_tasks<bench::locus_backend>(blocks, probe_block);
    } else {
      // +nacs: the other places' blocks are detached to their places'
      // queues (section 4.4.3: an item's tasks form a shallow tree, and
      // spawned with affinities most would be revoked by the item's own
      // task at its sync); this place's block runs here.
      const int here = locus::current_place();
      locus::task_group group;
      for (int b = 0; b < blocks; ++b)
        if (b != here) group.enqueue([&probe_block, b] { probe_block(b); }, locus::at(b));
      if (here >= 0 && here < blocks) probe_block(here);
      group.sync();
    }
    for (const auto& found : item->per_block) item->found.insert(item->found.end(), found.begin(), found.end());
    return item;
  }
  work_item* rank(work_item* item) {
    item->ranked = ferret::rank(item->signature, item->found, s_.keep, s_.top, database());
    return item;
  }
  void output(work_item* item) {
    auto& slot = results_[static_cast<std::size_t>(item->query)];
    bench::touch_n(item->ranked.data(), static_cast<std::int64_t>(item->ranked.size()), locus::access::read);
    slot = item->ranked;
    std::lock_guard hold(lock_);
    free_.push_back(item);
  }

  // The first stage's body, for both pipeline libraries: the next query,
  // or the end of the stream.
  template <class FlowControl>
  work_item* next_query(std::int64_t& next, FlowControl& fc) {
    if (next == s_.queries) {
      fc.stop();
      return nullptr;
    }
    return load(next++);
  }

  void run_serial() {
    for (std::int64_t q = 0; q < s_.queries; ++q) output(rank(probe(segment(load(q)), 0, s_.images)));
  }

  void run_locus(bool nacs) {
    using item_ptr = work_item*;
    std::int64_t next = 0;
    locus::stage<void, item_ptr> chain =
        locus::make_stage<void, item_ptr>(locus::stage_mode::serial_in_order,
                                          [&](locus::flow_control& fc) { return next_query(next, fc); }) &
        locus::make_stage<item_ptr, item_ptr>(locus::stage_mode::parallel, [&](item_ptr i) { return segment(i); });
    if (!s_.probe_stages) {
      chain = chain & locus::make_stage<item_ptr, item_ptr>(locus::stage_mode::parallel,
                                                            [&](item_ptr i) { return probe_blocks(i); });
    } else if (nacs) {
      // TBB-NUMA's ferret (figure 12): one probe stage per place, each over
      // its place's block of the database and run there.
      const int places = locus::num_places();
      for (int p = 0; p < places; ++p) {
        const bench::partition_range r(s_.images, p, places);
        chain = chain & locus::make_stage<item_ptr, item_ptr>(
                            locus::stage_mode::parallel, [this, r](item_ptr i) { return probe(i, r.begin, r.end); },
                            locus::at(p));
      }
    } else {
      chain = chain & locus::make_stage<item_ptr, item_ptr>(locus::stage_mode::parallel,
                                                            [&](item_ptr i) { return probe(i, 0, s_.images); });
    }
    locus::pipeline(s_.in_flight,
                    chain &
                        locus::make_stage<item_ptr, item_ptr>(locus::stage_mode::parallel, [&](item_ptr i) { return rank(i); }) &
                        locus::make_stage<item_ptr, void>(locus::stage_mode::serial_in_order, [&](item_ptr i) { output(i); }));
  }

  void run_tbb() {
    using item_ptr = work_item*;
    std::int64_t next = 0;
    tbb::parallel_pipeline(
        s_.in_flight,
        tbb::make_filter<void, item_ptr>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) { return next_query(next, fc); }) &
            tbb::make_filter<item_ptr, item_ptr>(tbb::filter_mode::parallel, [&](item_ptr i) { return segment(i); }) &
            tbb::make_filter<item_ptr, item_ptr>(tbb::filter_mode::parallel,
                                                 [&](item_ptr i) { return probe(i, 0, s_.images); }) &
            tbb::make_filter<item_ptr, item_ptr>(tbb::filter_mode::parallel, [&](item_ptr i) { return rank(i); }) &
            tbb::make_filter<item_ptr, void>(tbb::filter_mode::serial_in_order, [&](item_ptr i) { output(i); }));
  }

  void run_omp() {
#pragma omp parallel for ordered schedule(static, 1)
    for (std::int64_t q = 0; q < s_.queries; ++q) {
      work_item* item = rank(probe(segment(load(q)), 0, s_.images));
#pragma omp ordered
      output(item);
    }
  }

  settings s_;
  std::vector<float> index_;            // image x descriptor_floats
  std::vector<std::uint8_t> feature_;   // image x regions x features
  std::vector<std::uint16_t> mass_;     // image x regions
  std::vector<std::uint8_t> images_;    // the queries' pixels, query x side x side x 3
  std::deque<work_item> pool_;  // grows without moving its items
  std::vector<work_item*> free_;
  std::mutex lock_;
  std::vector<std::vector<ferret::match>> results_, expected_;
};

const bench::registrar registered{{
    "ferret",
    "TBB-NUMA (seed 001), section 5.1, Table 2 and Figure 12: ferret from PARSEC, 3500 query images, pipeline",
    "PARSEC ferret's similarity search as a pipeline: load, segment (k-means, region features), probe the index "
    "(per place under +nacs), rank the candidates by exact EMD, output in order.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto images = p.get("images", 4096, 1000000, 4000000, s,
                                "database images, 64 bytes of index and 96 of signature each (quick: a 64 MB "
                                "index; full: 640 MB in all)",
                                {1, 1'000'000'000});
      const auto queries = p.get("queries", 16, 192, 3500, s, "query images (the paper's 3500)", {1, 10'000'000});
      const auto side = p.get("side", 32, 64, 128, s, "query images are side x side pixels", {8, 4096});
      const auto keep = p.get("candidates", 16, 32, 32, s, "candidates the index proposes per query", {1, 100000});
      const auto top = p.get("top", 10, 10, 10, s, "results per query (PARSEC's top 10)", {1, 100000});
      const auto in_flight = p.get("in_flight", 16, 128, 128, s, "queries in flight at most", {1, 1 << 20});
      const auto stages = p.get("probe_stages", 0, 0, 0, s,
                                "locus: 0, each item's probe fans out one task per place's block (under +nacs at "
                                "that place); 1, one pipeline stage per place (figure 12; under +nacs at that place)",
                                {0, 1});
      if (top > keep)
        throw std::invalid_argument("--param top=" + std::to_string(top) + " is above candidates=" +
                                    std::to_string(keep) + ": the ranking keeps at most the candidates");
      return std::make_unique<ferret_instance>(settings{images, queries, static_cast<int>(side), static_cast<int>(keep),
                                                        static_cast<int>(top), static_cast<std::size_t>(in_flight), stages == 1});
    }}};

}  // namespace
