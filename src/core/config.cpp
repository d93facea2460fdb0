// Settings from runtime_options, the environment and defaults: the ladder
// over the table of setting_table.hpp, one row per setting, each checked
// (an error names the setting, the value and what is accepted).
#include "core/config.hpp"

#include <cstdlib>
#include <numeric>
#include <string>

#include "core/setting_table.hpp"
#include "locus/errors.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {
namespace {

// Where the row's value comes from: its runtime_options field when the
// program set it, else its variable when set and not empty, else its default.
setting_source source_of(const setting_descriptor& d, const runtime_options& o) {
  if (d.given != nullptr)
    if (std::optional<std::string> v = d.given(o))
      return {setting_source::from::option, "runtime_options::" + d.about.name, *v, &d.about};
  if (!d.about.env.empty())
    if (const char* v = std::getenv(d.about.env.c_str()); v != nullptr && *v != '\0')
      return {setting_source::from::environment, d.about.env, v, &d.about};
  return {setting_source::from::fallback, d.about.env, d.about.default_value, &d.about};
}

}  // namespace

std::vector<int> placement_cpus(const settings& cfg) {
  if (!cfg.simulate) return allowed_os_cpus();
  std::vector<int> cores(static_cast<std::size_t>(cfg.topo.num_cores()));
  std::iota(cores.begin(), cores.end(), 0);
  return cores;
}

settings resolve_settings(const runtime_options& o) {
  settings s;
  for (const setting_descriptor& d : setting_table()) d.store(s, o, source_of(d, o));
  s.on_worker_start = o.on_worker_start;  // code, not settings: no variable, nothing to check
  s.on_worker_stop = o.on_worker_stop;
  return s;
}

}  // namespace locus::detail
