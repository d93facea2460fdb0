// `ws`: classic randomized work stealing (Blumofe and Leiserson; the Cilk
// Plus scheduler of NUMA-WS figure 2). A thief picks a victim uniformly at
// random among the other workers and takes the oldest frame of its deque;
// suspended parents resume wherever they become ready.
#pragma once

#include "policy/registry.hpp"

namespace locus::detail {

class ws_policy : public policy_defaults {
 public:
  using policy_defaults::policy_defaults;
  worker_view* choose_victim(worker_view& thief);
};

static_assert(scheduling_policy<ws_policy>);

// Its registry entry: no options, no counters, no operations of its own.
policy_entry ws_entry();

}  // namespace locus::detail
