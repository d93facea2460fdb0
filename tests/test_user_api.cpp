// What a user of oneTBB or rayon reaches for first (issue 45): each
// construct under every policy on 1, 2 and 4 workers, and as its serial
// elision. The programs are in user_api_kernels.hpp.
#include <gtest/gtest.h>

#include <optional>
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

INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, UserApi,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()), ::testing::Values(1, 2, 4)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(UserApiSerialElision, SameResultsAsPlainCalls) {
  EXPECT_EQ(user_api::serial::fib_by_join(22), 17711);
  EXPECT_EQ(user_api::serial::invoke_slots(), one_to(28));
  EXPECT_EQ(user_api::serial::invoke_error(), "second");
  EXPECT_EQ(user_api::serial::join_error(), "left");
}
