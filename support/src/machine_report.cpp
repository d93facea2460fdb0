// locus_support/machine_report.hpp: the topology, the placement and
// numa-ws's steal odds, as the runtime would compute them.
#include "locus_support/machine_report.hpp"

#include "core/config.hpp"
#include "policy/numa_ws/numa_ws.hpp"
#include "topology/topology.hpp"

namespace locus_support {

machine_report describe_machine(const locus::runtime_options& options, const std::vector<double>& numa_ws_weights) {
  namespace detail = locus::detail;
  const detail::settings cfg = detail::resolve_settings(options);
  const detail::placement placement =
      detail::make_placement(cfg.topo, cfg.places, cfg.workers, detail::placement_cpus(cfg), cfg.pack);
  machine_report r;
  r.text = detail::describe(cfg.topo, placement);
  r.json = detail::to_json(cfg.topo, placement);
  r.numa_ws_steal.resize(static_cast<std::size_t>(placement.num_places));
  for (int p = 0; p < placement.num_places; ++p)
    r.numa_ws_steal[static_cast<std::size_t>(p)] = detail::place_steal_probabilities(placement, numa_ws_weights, p);
  return r;
}

std::vector<double> numa_ws_steal_weights(const std::string& setting, const std::string& value) {
  return locus::detail::parse_steal_weights(setting, value);
}

std::string numa_ws_default_steal_weights() { return locus::detail::default_steal_weights; }

}  // namespace locus_support
