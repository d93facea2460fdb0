// locus_support/settings.hpp over the runtime's own settings (core/config.hpp).
#include "locus_support/settings.hpp"

#include "core/config.hpp"
#include "topology/topology.hpp"
#include "util/rank_path.hpp"

namespace locus_support {

resolved_settings resolve_settings(const locus::runtime_options& options) {
  const locus::detail::settings s = locus::detail::resolve_settings(options);
  return {s.simulate, s.workers, s.topo.num_cores()};
}

void check_place_kind(const std::string& value, const std::string& setting) {
  locus::detail::parse_place_kind(value, setting);
}

void check_topology(const std::string& value, const std::string& setting) {
  locus::detail::parse_topology(value, setting);
}

std::string with_rank(const std::string& path) { return locus::detail::with_rank(path); }

int launcher_rank() { return locus::detail::launcher_rank(); }

}  // namespace locus_support
