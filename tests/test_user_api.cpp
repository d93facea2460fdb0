// What a user of oneTBB or rayon reaches for first (issue 45): each
// construct under every policy on 1, 2 and 4 workers, and as its serial
// elision. The programs are in user_api_kernels.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "user_api_kernels.hpp"
#include "user_api_serial.hpp"

namespace {

std::vector<int> one_to(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i + 1;
  return v;
}

// "ml_adws_2": a test name for (policy, workers).
std::string policy_and_workers(const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace

class UserApi : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  void SetUp() override {
    locus::runtime_options o;
    o.policy = std::get<0>(GetParam());
    o.workers = std::get<1>(GetParam());
    rt_.emplace(o);
  }
  void TearDown() override { rt_.reset(); }

 private:
  std::optional<locus::runtime> rt_;
};

TEST_P(UserApi, JoinReturnsBothResults) {
  EXPECT_EQ(user_api::fib_by_join(22), 17711);
  const auto [text, value] = user_api::join_kinds();
  EXPECT_EQ(text, std::string(100, 'x'));
  EXPECT_EQ(value, 7);
}

TEST_P(UserApi, ParallelInvokeRunsEveryCallableOnce) { EXPECT_EQ(user_api::invoke_slots(), one_to(28)); }

TEST_P(UserApi, TheLeftmostExceptionReachesTheCaller) {
  EXPECT_EQ(user_api::invoke_error(), "second");
  EXPECT_EQ(user_api::join_error(), "left");
}

// 0..999 summed, doubled; 777 x 3; 0..499 summed.
const std::vector<long> containers_expected{499500, 999000, 2331, 124750};

TEST_P(UserApi, LoopsOverContainersAndMixedIntegerTypes) {
  EXPECT_EQ(user_api::loops_over_containers(), containers_expected);
}

TEST_P(UserApi, TwoDimensionalLoopsVisitEveryCellOnceWithinTheGrains) {
  EXPECT_EQ(user_api::loop_2d(37, 1000, 8, 100), (std::vector<long>{0, 5, 63}));  // 37 rows halve to 18, 9, 5; 1000 columns to 500, 250, 125, 63
  EXPECT_EQ(user_api::loop_2d(1, 5000, 1, 64)[0], 0);
  EXPECT_EQ(user_api::loop_2d(300, 2, 16, 1)[0], 0);
}

TEST_P(UserApi, AnUnsignedEndBeyondInt64IsRefused) {
  try {
    locus::parallel_for(std::uint64_t{0}, ~std::uint64_t{0}, [](std::int64_t) {});
    FAIL() << "no error";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("end (18446744073709551615) does not fit a 64-bit signed index"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(UserApi, CombinableSlotsSurviveMigrationAndServeThreads) {
  const auto r = user_api::combinable_counts();
  EXPECT_EQ(r[0], 50000);
  EXPECT_EQ(r[1], 64 * 6);
  EXPECT_GE(r[2], 1);
  EXPECT_LE(r[2], std::get<1>(GetParam()));  // one slot per worker at most
  EXPECT_EQ(r[3], 303);                       // 100 + 1, 100 + 2, 100
  EXPECT_EQ(r[4], 0);
  EXPECT_EQ(r[5], 0);
}

TEST_P(UserApi, DeterministicReduceIsBitwiseTheSerialElisions) {
  const double serial = user_api::serial::deterministic_sum();
  for (int run = 0; run < 5; ++run) {
    const double parallel = user_api::deterministic_sum();
    EXPECT_EQ(std::memcmp(&parallel, &serial, sizeof serial), 0) << parallel << " != " << serial;
  }
}

TEST_P(UserApi, ParallelSortAgreesWithStdSort) { EXPECT_EQ(user_api::sort_problems(), ""); }

TEST_P(UserApi, ScansAgreeWithStdScansForNonCommutativeOps) { EXPECT_EQ(user_api::scan_problems(), ""); }

TEST_P(UserApi, CancellationSkipsWhatHasNotStarted) {
  const int workers = std::get<1>(GetParam());
  // On the pool (a root task), so that with one worker nothing runs beside it.
  user_api::cancel_counts r;
  locus::task_group root;
  root.spawn([&] { r = user_api::cancellation_counts(); });
  root.sync();
  // On one worker the children before the canceling one ran. With ws each
  // child runs at its spawn, so exactly those and no later child; policies
  // that queue children (adws, ml-adws, sb, tbb-numa) skip those still
  // queued. With more workers a thief may run the canceling child while an
  // earlier one still waits in a deque, and that one is skipped too (sb on
  // 4 workers: 10 ran), so only the canceling child is sure to have run.
  EXPECT_GE(r.from_child, workers == 1 ? 11 : 1);
  EXPECT_LE(r.from_child, 100);
  if (workers == 1 && std::get<0>(GetParam()) == "ws") EXPECT_EQ(r.from_child, 11);
  // Parent-first children wait in the deque until sync on one worker, so
  // none runs; with more workers a thief may have started some.
  EXPECT_LE(r.queued, 100);
  if (workers == 1) EXPECT_EQ(r.queued, 0);
  EXPECT_EQ(r.after_cancel, 0);
  EXPECT_EQ(r.canceling_after_sync, 0);
  EXPECT_EQ(r.reused, 7);
  // Index 1000 ran, and everything before it in its worker's chunk; on one
  // worker nothing after it. With more, how much the others did before
  // they saw the cancel depends on when each ran, so nothing is asserted.
  EXPECT_GE(r.loop_indices, 1001);
  EXPECT_LE(r.loop_indices, 1'000'000);
  if (workers == 1) EXPECT_EQ(r.loop_indices, 1001);
  EXPECT_EQ(r.error, "child 3");
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, UserApi,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()), ::testing::Values(1, 2, 4)),
                         policy_and_workers);

// Arenas limited to places: with a place per core, each arena's tasks run
// only on its place's worker, whatever the policy (or the policy says it
// cannot, clearly).
class PlaceArenas : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

std::vector<std::vector<int>> places_seen_by_place_arenas() {
  auto arenas = locus::place_arenas();
  std::vector<std::vector<int>> seen(arenas.size());
  for (std::size_t p = 0; p < arenas.size(); ++p) {
    std::mutex m;
    std::set<int> places;
    arenas[p].execute([&] {
      locus::parallel_for(0, 20000, [&](std::int64_t) {
        const int here = locus::current_place();
        const std::lock_guard lock(m);
        places.insert(here);
      });
      locus::task_group g;
      for (int k = 0; k < 50; ++k)
        g.spawn([&] {
          const std::lock_guard lock(m);
          places.insert(locus::current_place());
        }, locus::parent_first);
      g.sync();
    });
    seen[p].assign(places.begin(), places.end());
  }
  return seen;
}

TEST_P(PlaceArenas, TasksRunOnlyAtTheirPlace) {
  locus::runtime_options o;
  o.policy = std::get<0>(GetParam());
  o.workers = std::get<1>(GetParam());
  o.places = "core";
  locus::runtime rt(o);
  if (o.policy == "ml-ws" || o.policy == "ml-adws") {
    try {
      locus::arena a(locus::at(0));
      FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be limited to a place"), std::string::npos) << e.what();
    }
    return;
  }
  const auto seen = places_seen_by_place_arenas();
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(locus::num_places()));
  for (std::size_t p = 0; p < seen.size(); ++p) EXPECT_EQ(seen[p], (std::vector<int>{static_cast<int>(p)})) << p;
  EXPECT_THROW(locus::arena(locus::at(locus::num_places())), std::out_of_range);
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, PlaceArenas,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()), ::testing::Values(1, 2, 4)),
                         policy_and_workers);

TEST(PlaceArenasSimulated, TasksRunOnlyAtTheirNumaNode) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "cats-opteron-4x4";  // 4 NUMA nodes of 4 cores
  o.policy = "tbb-numa";
  locus::runtime rt(o);
  ASSERT_EQ(locus::num_places(), 4);
  const auto seen = places_seen_by_place_arenas();
  for (std::size_t p = 0; p < seen.size(); ++p) EXPECT_EQ(seen[p], (std::vector<int>{static_cast<int>(p)})) << p;
}

TEST(UserApiSerialElision, SameResultsAsPlainCalls) {
  EXPECT_EQ(user_api::serial::fib_by_join(22), 17711);
  EXPECT_EQ(user_api::serial::invoke_slots(), one_to(28));
  EXPECT_EQ(user_api::serial::invoke_error(), "second");
  EXPECT_EQ(user_api::serial::join_error(), "left");
  EXPECT_EQ(user_api::serial::loops_over_containers(), containers_expected);
  EXPECT_EQ(user_api::serial::sort_problems(), "");
  const auto c = user_api::serial::cancellation_counts();
  EXPECT_EQ(c.from_child, 11);
  EXPECT_EQ(c.queued, 100);  // the serial elision runs parent-first children at once, before the cancel
  EXPECT_EQ(c.after_cancel, 0);
  EXPECT_EQ(c.reused, 7);
  EXPECT_EQ(c.loop_indices, 1001);
  EXPECT_EQ(c.error, "child 3");
  EXPECT_EQ(user_api::serial::scan_problems(), "");
  EXPECT_EQ(user_api::serial::combinable_counts(), (std::vector<long>{50000, 384, 1, 303, 0, 0}));
  EXPECT_EQ(user_api::serial::loop_2d(37, 1000, 8, 100), (std::vector<long>{0, 5, 63}));
}
