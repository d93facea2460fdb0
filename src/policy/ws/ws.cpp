#include "policy/ws/ws.hpp"

namespace locus::detail {

policy_entry ws_entry() { return {.name = "ws", .make = &make_policy_of<ws_policy>}; }

}  // namespace locus::detail
