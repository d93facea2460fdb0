// Policy names and construction. A new policy adds one line to each list.
#include <sstream>

#include "core/runtime_state.hpp"
#include "locus/errors.hpp"
#include "policy/policy.hpp"
#include "policy/numa_ws.hpp"
#include "policy/ws.hpp"

namespace locus::detail {

frame* policy_defaults::steal_from(worker&, worker& victim) { return victim.deque.steal(); }

void policy_defaults::route_spawn(worker& w, frame* f) { w.deque.push(f); }

std::vector<std::string> policy_names() { return {"ws", "numa-ws"}; }

std::unique_ptr<policy_base> make_policy(const std::string& name, runtime_state& rt) {
  if (name == "ws") return std::make_unique<policy_adapter<ws_policy>>(rt);
  if (name == "numa-ws") return std::make_unique<policy_adapter<numa_ws_policy>>(rt);
  std::ostringstream msg;
  msg << "LOCUS_POLICY=\"" << name << "\": unknown scheduling policy; accepted:";
  for (const auto& n : policy_names()) msg << ' ' << n;
  throw config_error(msg.str());
}

}  // namespace locus::detail
