#include "policy/ws.hpp"

#include "core/runtime_state.hpp"

namespace locus::detail {

worker* ws_policy::choose_victim(worker& thief) {
  const auto n = static_cast<std::uint32_t>(rt->workers.size());
  if (n < 2) return nullptr;
  // Uniform over the n - 1 other workers.
  std::uint32_t v = thief.rng.below(n - 1);
  if (v >= static_cast<std::uint32_t>(thief.id)) ++v;
  return rt->workers[v].get();
}

}  // namespace locus::detail
