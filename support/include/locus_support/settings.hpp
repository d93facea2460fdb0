// The runtime's settings as the programs (locus-bench, locus-topo) read
// them before they start a pool: resolved from runtime_options and the
// LOCUS_* environment and checked exactly as the runtime checks them, so
// that a bad setting is reported, with the runtime's message, before any
// work is done. Part of locus::support.
#pragma once

#include <string>

#include <locus/runtime.hpp>

namespace locus_support {

// What the programs need of the resolved settings.
struct resolved_settings {
  bool simulate = false;  // LOCUS_ENGINE=sim
  int workers = 1;
  int cores = 1;          // of the machine the pool would run on (the simulated one under the simulator)
};

// Throws locus::config_error as the runtime would when the pool starts.
resolved_settings resolve_settings(const locus::runtime_options& options);

// One setting checked as the runtime checks it, the error naming `setting`
// (a flag such as "--places", or the variable): a place kind (LOCUS_PLACES)
// and a virtual topology (LOCUS_TOPOLOGY).
void check_place_kind(const std::string& value, const std::string& setting);
void check_topology(const std::string& value, const std::string& setting);

// An output path with "%r" replaced by the MPI rank the launcher gave this
// process (0 outside a launcher), as LOCUS_TRACE and LOCUS_STATS=json:FILE
// do, so the ranks of one job write separate files.
std::string with_rank(const std::string& path);
int launcher_rank();

}  // namespace locus_support
