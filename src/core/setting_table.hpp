// The runtime's settings as one table: each row says where a setting comes
// from (its runtime_options field, its environment variable, its default,
// tried in that order) and what it becomes in `settings`. A row's metadata
// is an option_descriptor, as a policy declares its own options
// (policy/registry.hpp): name, variable, accepted values, default, help.
// resolve_settings (config.cpp) walks the table top to bottom, so a row may
// read what the rows above it resolved (the topology reads the engine and
// the machine; the default worker count reads the topology).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

// Where a setting's value came from.
struct setting_source {
  enum class from { option, environment, fallback };
  from kind = from::fallback;
  // The setting as errors name it: "runtime_options::<field>" for the
  // option, else the variable.
  std::string name;
  std::string value;  // the default's text under fallback
  const option_descriptor* about = nullptr;
  bool given() const { return kind != from::fallback; }
};

struct setting_descriptor {
  // name: the runtime_options field ("" when there is none), env, accepted,
  // default_value, help (check is unused: store checks).
  option_descriptor about;
  // The runtime_options field as text when the program set it, else
  // nothing; nullptr when the setting has no field.
  std::optional<std::string> (*given)(const runtime_options& o) = nullptr;
  // Checks the value and stores it in s; throws config_error naming
  // src.name, src.value and what is accepted.
  void (*store)(settings& s, const runtime_options& o, const setting_source& src) = nullptr;
};

// Every setting of the runtime, in the order they are resolved.
const std::vector<setting_descriptor>& setting_table();

}  // namespace locus::detail
