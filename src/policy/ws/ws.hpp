// `ws`: classic randomized work stealing (Blumofe and Leiserson; the Cilk
// Plus scheduler of NUMA-WS figure 2): policy_base's decisions unchanged. A
// thief picks a victim uniformly at random among the other workers and
// takes the oldest frame of its deque; suspended parents resume wherever
// they become ready.
#pragma once

#include "policy/spi/registry.hpp"

namespace locus::detail {

class ws_policy final : public policy_base {
 public:
  using policy_base::policy_base;
};

// Its registry entry: no options, no counters, no operations of its own.
policy_entry ws_entry();

}  // namespace locus::detail
