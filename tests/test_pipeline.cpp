// locus::pipeline: in-order stages see the items in the order they were
// made, serial stages run one item at a time, no more items are in flight
// than allowed, an exception in any stage stops the pipeline and reaches
// the caller, placed stages run, bad input is rejected before anything
// runs, and the serial elision is the plain loop.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "locus/locus.hpp"

std::vector<std::string> serial_elision_pipeline_log();  // pipeline_serial.cpp

namespace {

locus::runtime_options options(int workers, const char* policy = "ws") {
  locus::runtime_options o;
  o.workers = workers;
  o.policy = policy;
  return o;
}

void note_max(std::atomic<int>& most, int now) {
  int seen = most.load(std::memory_order_relaxed);
  while (now > seen && !most.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
}

// Work of a few microseconds with nested parallelism, so items overlap and
// stages suspend and resume on other workers.
std::int64_t busy(std::int64_t v) {
  std::int64_t a = 0, b = 0;
  locus::fork_join([&] { for (std::int64_t i = 0; i < 200 + v % 50; ++i) a += (v ^ i) % 7; },
                   [&] { for (std::int64_t i = 0; i < 100; ++i) b += (v + i) % 5; });
  return v + (a + b) * 0;  // the work must not change the value
}

struct run_log {
  std::vector<std::int64_t> taken;  // by the last, in-order stage
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
  std::atomic<int> in_serial{0};
  std::atomic<int> serial_overlaps{0};
  std::int64_t serial_sum = 0;  // plain: only the serial stage touches it (TSan checks)
};

// make 0..n-1 -> square (parallel) -> add to a sum (serial, any order) ->
// take (serial, in order).
void square_pipeline(std::size_t max_in_flight, std::int64_t n, run_log& log) {
  std::int64_t next = 0;
  locus::pipeline(
      max_in_flight,
      locus::make_stage<void, std::int64_t>(locus::stage_mode::serial_in_order,
                                            [&](locus::flow_control& fc) -> std::int64_t {
                                              if (next == n) {
                                                fc.stop();
                                                return -1;
                                              }
                                              note_max(log.most_in_flight, log.in_flight.fetch_add(1) + 1);
                                              return next++;
                                            }) &
          locus::make_stage<std::int64_t, std::int64_t>(locus::stage_mode::parallel,
                                                        [](std::int64_t v) { return busy(v) * v; }) &
          locus::make_stage<std::int64_t, std::int64_t>(locus::stage_mode::serial_out_of_order,
                                                        [&](std::int64_t v) {
                                                          if (log.in_serial.fetch_add(1) != 0) log.serial_overlaps++;
                                                          log.serial_sum += v;
                                                          busy(v);
                                                          log.in_serial.fetch_sub(1);
                                                          return v;
                                                        }) &
          locus::make_stage<std::int64_t, void>(locus::stage_mode::serial_in_order, [&](std::int64_t v) {
            log.taken.push_back(v);
            log.in_flight.fetch_sub(1);
          }));
}

}  // namespace

class PipelineOnWorkers : public ::testing::TestWithParam<std::tuple<const char*, int, int>> {};

TEST_P(PipelineOnWorkers, InOrderStagesSeeTheOrderItemsWereMade) {
  const auto [policy, workers, tokens] = GetParam();
  locus::runtime rt(options(workers, policy));
  constexpr std::int64_t n = 3000;
  for (int round = 0; round < 3; ++round) {
    run_log log;
    square_pipeline(static_cast<std::size_t>(tokens), n, log);
    ASSERT_EQ(log.taken.size(), static_cast<std::size_t>(n));
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(log.taken[static_cast<std::size_t>(i)], i * i) << "item " << i;
      sum += i * i;
    }
    EXPECT_EQ(log.serial_sum, sum);
    EXPECT_EQ(log.serial_overlaps.load(), 0);
    EXPECT_LE(log.most_in_flight.load(), tokens);
    EXPECT_EQ(log.in_flight.load(), 0);
  }
}

// The pipeline's own task runs inside another computation, whose workers
// also run the items.
TEST_P(PipelineOnWorkers, RunsInsideATask) {
  const auto [policy, workers, tokens] = GetParam();
  locus::runtime rt(options(workers, policy));
  run_log a, b;
  locus::fork_join([&] { square_pipeline(static_cast<std::size_t>(tokens), 500, a); },
                   [&] { square_pipeline(static_cast<std::size_t>(tokens), 700, b); });
  ASSERT_EQ(a.taken.size(), 500u);
  ASSERT_EQ(b.taken.size(), 700u);
  EXPECT_EQ(a.taken.back(), 499 * 499);
  EXPECT_EQ(b.taken.back(), 699 * 699);
}

// An exception in a stage reaches the caller; the items in flight skip the
// rest, the in-order stage still sees what it sees in order, and the
// first stage stops making items.
TEST_P(PipelineOnWorkers, AnExceptionStopsThePipelineAndReachesTheCaller) {
  const auto [policy, workers, tokens] = GetParam();
  locus::runtime rt(options(workers, policy));
  for (int throwing_stage = 0; throwing_stage < 3; ++throwing_stage) {
    std::int64_t next = 0;
    std::vector<std::int64_t> taken;
    std::atomic<std::int64_t> made{0};
    try {
      locus::pipeline(
          static_cast<std::size_t>(tokens),
          locus::make_stage<void, std::int64_t>(locus::stage_mode::serial_in_order,
                                                [&](locus::flow_control&) -> std::int64_t {
                                                  if (throwing_stage == 0 && next == 400)
                                                    throw std::runtime_error("first stage at 400");
                                                  made++;
                                                  return next++;  // never stops by itself
                                                }) &
              locus::make_stage<std::int64_t, std::int64_t>(locus::stage_mode::parallel,
                                                            [&](std::int64_t v) {
                                                              if (throwing_stage == 1 && v == 400)
                                                                throw std::runtime_error("parallel stage at 400");
                                                              return busy(v);
                                                            }) &
              locus::make_stage<std::int64_t, void>(locus::stage_mode::serial_in_order, [&](std::int64_t v) {
                if (throwing_stage == 2 && v == 400) throw std::runtime_error("last stage at 400");
                taken.push_back(v);
              }));
      FAIL() << "no exception from stage " << throwing_stage;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("at 400"), std::string::npos) << e.what();
    }
    for (std::size_t i = 1; i < taken.size(); ++i) EXPECT_LT(taken[i - 1], taken[i]);
    // Items before the failing one may all pass; after it, at most the
    // ones already in flight were made.
    EXPECT_LE(made.load(), 400 + tokens) << "stage " << throwing_stage;
  }
}

INSTANTIATE_TEST_SUITE_P(PoliciesWorkersTokens, PipelineOnWorkers,
                         ::testing::Combine(::testing::Values("ws", "numa-ws", "adws", "tbb-numa"), ::testing::Values(1, 2, 4),
                                            ::testing::Values(1, 3, 16)));

TEST(Pipeline, StoppingAtOnceRunsNoOtherStage) {
  locus::runtime rt(options(2));
  int later = 0;
  locus::pipeline(4, locus::make_stage<void, int>(locus::stage_mode::serial_out_of_order,
                                                  [](locus::flow_control& fc) {
                                                    fc.stop();
                                                    return 0;
                                                  }) &
                         locus::make_stage<int, void>(locus::stage_mode::parallel, [&](int) { ++later; }));
  EXPECT_EQ(later, 0);
}

TEST(Pipeline, OneStagePipelineRunsUntilStopped) {
  locus::runtime rt(options(2));
  int calls = 0;
  locus::pipeline(2, locus::make_stage<void, void>(locus::stage_mode::serial_in_order, [&](locus::flow_control& fc) {
                    if (++calls == 10) fc.stop();
                  }));
  EXPECT_EQ(calls, 10);
}

// Items run work-first under every policy (issue 44: a parent-first
// policy's spawn would queue each item and sync on the slow path): on one
// worker, each item leaves the last stage before the first stage makes the
// next, whatever max_in_flight allows.
TEST(Pipeline, ItemsRunWorkFirstUnderEveryPolicy) {
  for (const auto& policy : locus::available_policies()) {
    SCOPED_TRACE(policy);
    locus::runtime rt(options(1, policy.c_str()));
    std::vector<std::string> events;
    int next = 0;
    locus::pipeline(4, locus::make_stage<void, int>(locus::stage_mode::serial_in_order,
                                                    [&](locus::flow_control& fc) {
                                                      if (next == 5) fc.stop();
                                                      events.push_back("make " + std::to_string(next));
                                                      return next++;
                                                    }) &
                           locus::make_stage<int, int>(locus::stage_mode::parallel, [](int v) { return v; }) &
                           locus::make_stage<int, void>(locus::stage_mode::serial_in_order, [&](int v) {
                             events.push_back("take " + std::to_string(v));
                           }));
    EXPECT_EQ(events, (std::vector<std::string>{"make 0", "take 0", "make 1", "take 1", "make 2", "take 2", "make 3",
                                                "take 3", "make 4", "take 4", "make 5"}));
  }
}

// Stages with places: every item passes them (where it runs is the
// policy's choice, as for any hinted task).
TEST(Pipeline, PlacedStagesRunEveryItem) {
  for (const char* policy : {"ws", "numa-ws"}) {
    locus::runtime_options o = options(4, policy);
    o.topology = "2x2";
    o.places = "socket";
    locus::runtime rt(o);
    ASSERT_EQ(locus::num_places(), 2);
    std::int64_t next = 0;
    std::vector<std::int64_t> taken;
    locus::pipeline(3, locus::make_stage<void, std::int64_t>(locus::stage_mode::serial_in_order,
                                                             [&](locus::flow_control& fc) -> std::int64_t {
                                                               if (next == 500) fc.stop();
                                                               return next++;
                                                             },
                                                             locus::at(1)) &
                           locus::make_stage<std::int64_t, std::int64_t>(
                               locus::stage_mode::parallel, [](std::int64_t v) { return busy(v) + 1; }, locus::at(0)) &
                           locus::make_stage<std::int64_t, void>(
                               locus::stage_mode::serial_in_order, [&](std::int64_t v) { taken.push_back(v); },
                               locus::at(1)));
    ASSERT_EQ(taken.size(), 500u) << policy;
    for (std::int64_t i = 0; i < 500; ++i) ASSERT_EQ(taken[static_cast<std::size_t>(i)], i + 1) << policy;
  }
}

TEST(Pipeline, BadInputIsRejectedBeforeAnyStageRuns) {
  locus::runtime rt(options(2));
  int calls = 0;
  auto source = [&](locus::flow_control& fc) {
    ++calls;
    fc.stop();
    return 0;
  };
  auto sink = [](int) {};
  try {
    locus::pipeline(0, locus::make_stage<void, int>(locus::stage_mode::serial_in_order, source) &
                           locus::make_stage<int, void>(locus::stage_mode::parallel, sink));
    FAIL() << "max_in_flight 0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max_in_flight is 0"), std::string::npos) << e.what();
  }
  try {
    locus::pipeline(2, locus::make_stage<void, int>(locus::stage_mode::parallel, source) &
                           locus::make_stage<int, void>(locus::stage_mode::parallel, sink));
    FAIL() << "a parallel first stage was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("first stage is parallel"), std::string::npos) << e.what();
  }
  try {
    locus::pipeline(2, locus::make_stage<void, int>(locus::stage_mode::serial_in_order, source) &
                           locus::make_stage<int, void>(locus::stage_mode::parallel, sink, locus::at(7)));
    FAIL() << "a place outside the machine was accepted";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("7"), std::string::npos) << e.what();
  }
  EXPECT_EQ(calls, 0);
}

TEST(Pipeline, SerialElisionIsThePlainLoop) {
  const std::vector<std::string> expected = {"make 0", "double 0", "take 0", "make 1", "double 1", "take 2",
                                             "make 2", "double 2", "take 4", "make 3"};
  EXPECT_EQ(serial_elision_pipeline_log(), expected);
}
