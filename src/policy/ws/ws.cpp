#include "policy/ws/ws.hpp"

namespace locus::detail {

worker_view* ws_policy::choose_victim(worker_view& thief) {
  const auto n = static_cast<std::uint32_t>(ctx->num_workers());
  if (n < 2) return nullptr;
  // Uniform over the n - 1 other workers.
  std::uint32_t v = ctx->rng(thief).below(n - 1);
  if (v >= static_cast<std::uint32_t>(thief.id)) ++v;
  return &ctx->worker_at(static_cast<int>(v));
}

policy_entry ws_entry() { return {.name = "ws", .make = &make_policy_of<ws_policy>}; }

}  // namespace locus::detail
