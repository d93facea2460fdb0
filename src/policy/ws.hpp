// `ws`: classic randomized work stealing (Blumofe and Leiserson; the Cilk
// Plus scheduler of NUMA-WS figure 2). A thief picks a victim uniformly at
// random among the other workers and takes the oldest frame of its deque;
// suspended parents resume wherever they become ready.
#pragma once

#include "policy/policy.hpp"

namespace locus::detail {

class ws_policy : public policy_defaults {
 public:
  static constexpr const char* policy_name = "ws";
  using policy_defaults::policy_defaults;
  worker* choose_victim(worker& thief);
};

static_assert(scheduling_policy<ws_policy>);

}  // namespace locus::detail
