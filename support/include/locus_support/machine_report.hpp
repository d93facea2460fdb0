// What locus-topo prints: the machine a pool would run on under the given
// settings, where each worker would be placed, and how numa-ws's thieves
// would choose their victims there. Part of locus::support.
#pragma once

#include <string>
#include <vector>

#include <locus/runtime.hpp>

namespace locus_support {

struct machine_report {
  std::string text;  // the machine and the placement, as lines of text
  std::string json;  // the same as one JSON object
  // numa-ws (section III-B): the probability that a thief at place a picks
  // a victim at place b, [a][b].
  std::vector<std::vector<double>> numa_ws_steal;
};

// Resolves the settings as the runtime does (throws locus::config_error);
// numa_ws_weights as numa_ws_steal_weights returns them.
machine_report describe_machine(const locus::runtime_options& options, const std::vector<double>& numa_ws_weights);

// numa-ws's steal weights (its option steal_weights, LOCUS_STEAL_WEIGHTS),
// checked as the policy checks them, the error naming `setting`: empty
// when they are derived from the distance matrix ("distance"), else the
// per-victim weights by distance rank, own place first.
std::vector<double> numa_ws_steal_weights(const std::string& setting, const std::string& value);
// The option's default.
std::string numa_ws_default_steal_weights();

}  // namespace locus_support
