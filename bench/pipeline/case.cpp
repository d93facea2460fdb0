// pipeline in the suite: the cost of moving items through a three-stage
// pipeline (TBB-NUMA, seed 001, section 4.4.3; issue 14 asks for the
// pipeline overhead against tbb::parallel_pipeline in the same run).
//
//   make (serial, in order): item i
//   work (parallel):         `work` rounds of an integer hash of the item
//   take (serial, in order): folds the results into an order-sensitive checksum
//
// With work=0 the stages are empty and the time is the pipeline's own
// overhead per item. Variants: serial (the plain loop), locus:<policy>
// (locus::pipeline), tbb (tbb::parallel_pipeline), omp (a loop whose take
// stage is an ordered region: OpenMP's idiom for a pipeline with one
// in-order stage). The checksum is compared with the serial loop's every
// run, so an item out of order or lost fails verification.
#include <oneapi/tbb/parallel_pipeline.h>

#include <cstdint>
#include <string>

#include <locus/locus.hpp>

#include "common/harness.hpp"
#include "common/hash_rounds.hpp"

namespace {

using bench::hash_rounds;

std::uint64_t fold(std::uint64_t sum, std::uint64_t v) { return sum * 1099511628211ULL + v; }

class pipeline_instance final : public bench::instance {
 public:
  pipeline_instance(std::int64_t items, std::int64_t work, std::int64_t in_flight)
      : items_(items), work_(work), in_flight_(static_cast<std::size_t>(in_flight)) {
    for (std::int64_t i = 0; i < items_; ++i) expected_ = fold(expected_, hash_rounds(static_cast<std::uint64_t>(i), work_));
  }

  void run(const bench::variant& v) override {
    sum_ = 0;
    switch (v.kind) {
      case bench::impl::serial:
        for (std::int64_t i = 0; i < items_; ++i) sum_ = fold(sum_, hash_rounds(static_cast<std::uint64_t>(i), work_));
        break;
      case bench::impl::locus: run_locus(); break;
      case bench::impl::tbb: run_tbb(); break;
      case bench::impl::omp: run_omp(); break;
    }
  }
  std::string verify() override {
    return sum_ == expected_ ? "" : "checksum " + std::to_string(sum_) + ", expected " + std::to_string(expected_);
  }
  std::string summary() override {
    return std::to_string(items_) + " items, " + std::to_string(work_) + " hash rounds each, " +
           std::to_string(in_flight_) + " in flight";
  }

 private:
  void run_locus() {
    std::int64_t next = 0;
    locus::pipeline(in_flight_,
                    locus::make_stage<void, std::int64_t>(locus::stage_mode::serial_in_order,
                                                          [&](locus::flow_control& fc) -> std::int64_t {
                                                            if (next == items_) fc.stop();
                                                            return next++;
                                                          }) &
                        locus::make_stage<std::int64_t, std::uint64_t>(
                            locus::stage_mode::parallel,
                            [w = work_](std::int64_t i) { return hash_rounds(static_cast<std::uint64_t>(i), w); }) &
                        locus::make_stage<std::uint64_t, void>(locus::stage_mode::serial_in_order,
                                                               [&](std::uint64_t h) { sum_ = fold(sum_, h); }));
  }

  void run_tbb() {
    std::int64_t next = 0;
    tbb::parallel_pipeline(in_flight_,
                           tbb::make_filter<void, std::int64_t>(tbb::filter_mode::serial_in_order,
                                                                [&](tbb::flow_control& fc) -> std::int64_t {
                                                                  if (next == items_) fc.stop();
                                                                  return next++;
                                                                }) &
                               tbb::make_filter<std::int64_t, std::uint64_t>(
                                   tbb::filter_mode::parallel,
                                   [w = work_](std::int64_t i) { return hash_rounds(static_cast<std::uint64_t>(i), w); }) &
                               tbb::make_filter<std::uint64_t, void>(tbb::filter_mode::serial_in_order,
                                                                     [&](std::uint64_t h) { sum_ = fold(sum_, h); }));
  }

  void run_omp() {
    std::uint64_t sum = 0;
#pragma omp parallel for ordered schedule(static, 1)
    for (std::int64_t i = 0; i < items_; ++i) {
      const std::uint64_t h = hash_rounds(static_cast<std::uint64_t>(i), work_);
#pragma omp ordered
      sum = fold(sum, h);
    }
    sum_ = sum;
  }

  std::int64_t items_, work_;
  std::size_t in_flight_;
  std::uint64_t expected_ = 0;
  std::uint64_t sum_ = 0;
};

const bench::registrar pipeline_case{{
    "pipeline",
    "TBB-NUMA (seed 001), section 4.4.3: pipeline overhead",
    "Items through make (serial, in order) -> work (parallel) -> take (serial, in order); work=0 measures the "
    "pipeline's own cost per item.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto items = p.get("items", 2000, 200000, 2000000, s, "items through the pipeline", {1});
      const auto work = p.get("work", 0, 0, 0, s, "hash rounds per item in the parallel stage (0: empty stages)", {0});
      const auto in_flight = p.get("in_flight", 8, 8, 8, s, "items in flight at most", {1, 1 << 20});
      return std::make_unique<pipeline_instance>(items, work, in_flight);
    }}};

}  // namespace
