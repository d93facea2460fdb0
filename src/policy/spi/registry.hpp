// The policy registry: everything a policy brings, in one entry per policy.
//
// The core, the settings, the statistics, locus-bench and the simulator
// handle a policy only through its entry: its options are parsed and
// validated by name (runtime_options::policy_options, the environment
// variable, the default), its counters are reported by name (LOCUS_STATS,
// locus::worker_stats::policy_counters), its operations are priced by the
// simulator by name (machine files: <name>_local, <name>_remote). Adding a
// policy is its folder (src/policy/<name>/), one line in registry.cpp, and
// its tests; a test or a program may also register one (register_policy).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "policy/spi/policy.hpp"

namespace locus::detail {

struct option_descriptor {
  std::string name;           // key in runtime_options::policy_options, e.g. "push_threshold"
  std::string env;            // environment variable, e.g. "LOCUS_PUSH_THRESHOLD"
  std::string accepted;       // the values accepted, said in errors and docs
  std::string default_value;  // used when neither the options nor the environment give one
  std::string help;           // one line for docs and --help
  // Throws config_error naming `setting` and `value` unless value is accepted.
  void (*check)(std::string_view setting, std::string_view value) = nullptr;
};

struct policy_entry {
  std::string name;  // what LOCUS_POLICY / runtime_options::policy say
  std::unique_ptr<policy_base> (*make)(policy_context&) = nullptr;
  std::vector<option_descriptor> options;
  std::vector<std::string> counters;  // policy_context::count(w, index of the name)
  std::vector<operation_decl> costs;  // policy_context::charge(w, index, other)
  // Whether locus::arena partitions the workers under this policy
  // (core/arenas.hpp). A policy whose schedule maps work onto the whole
  // machine (the multi-level policies' tree of caches and its leaders) says
  // no: its arenas then share every worker, and only their tasks' arena ids
  // and their shared queues' frames stay apart.
  bool isolates_arenas = true;
};

// The registered policies, built-in ones first, in registration order.
std::vector<std::string> policy_names();
// The entry called `name`, or nullptr. Entries never move once registered.
const policy_entry* find_policy(std::string_view name);
// Every registered entry (the settings check every policy's environment
// variables, and the simulator's machine files every policy's operations).
std::vector<const policy_entry*> all_policies();
// Adds a policy. Throws std::logic_error for a name already taken, a missing
// factory, or more than max_policy_counters counters. Call it before the
// pool starts.
void register_policy(policy_entry entry);

}  // namespace locus::detail
