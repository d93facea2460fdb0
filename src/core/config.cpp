#include "core/config.hpp"

#include <charconv>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "locus/errors.hpp"
#include "policy/policy.hpp"

namespace locus::detail {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

[[noreturn]] void reject(std::string_view setting, std::string_view value, std::string_view accepted) {
  std::ostringstream msg;
  msg << setting << "=\"" << value << "\": " << accepted;
  throw config_error(msg.str());
}

// A setting with two values: the option wins over the environment; unset
// means the first value. Returns whether the first value was chosen.
bool choose_flag(const std::string& option, const char* option_name, const char* env_name, const char* yes,
                 const char* no, const char* accepted) {
  const std::string value = !option.empty() ? option : env(env_name);
  if (value.empty() || value == yes) return true;
  if (value == no) return false;
  reject(option.empty() ? std::string(env_name) : std::string("runtime_options::") + option_name, value,
         std::string("expected ") + accepted);
}

}  // namespace

long long parse_integer(std::string_view setting, std::string_view text, long long min, long long max,
                        std::string_view meaning) {
  long long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  std::ostringstream accepted;
  accepted << "expected " << meaning << ", an integer from " << min << " to " << max;
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max)
    reject(setting, text, accepted.str());
  return v;
}

std::size_t parse_byte_size(std::string_view setting, std::string_view text, std::size_t min,
                            std::size_t max) {
  std::ostringstream accepted;
  accepted << "expected a size in bytes with an optional K, M or G suffix (binary), from " << min << " to "
           << max << ", e.g. 512K";
  if (text.empty()) reject(setting, text, accepted.str());
  std::size_t scale = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 'k': case 'K': scale = std::size_t{1} << 10; digits.remove_suffix(1); break;
    case 'm': case 'M': scale = std::size_t{1} << 20; digits.remove_suffix(1); break;
    case 'g': case 'G': scale = std::size_t{1} << 30; digits.remove_suffix(1); break;
    default: break;
  }
  unsigned long long v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
      v > max / scale || v * scale < min || v * scale > max)
    reject(setting, text, accepted.str());
  return static_cast<std::size_t>(v * scale);
}

std::vector<double> parse_steal_weights(std::string_view setting, std::string_view text) {
  std::vector<double> weights;
  std::stringstream in{std::string(text)};
  bool ok = !text.empty();
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const double w = std::strtod(item.c_str(), &end);
    ok = ok && !item.empty() && end == item.c_str() + item.size() && w > 0 && w < 1e9;
    weights.push_back(w);
  }
  if (!ok || weights.empty() || text.back() == ',')
    reject(setting, text,
           "expected positive per-victim weights by distance, own place first, separated by commas, "
           "e.g. 8,2,1 (every victim must keep a chance: section IV of NUMA-WS)");
  return weights;
}

settings resolve_settings(const runtime_options& o) {
  settings s;

  s.simulate = !choose_flag(o.engine, "engine", "LOCUS_ENGINE", "threaded", "sim",
                            "threaded (one OS thread per worker) or sim (the simulator: virtual workers on a "
                            "modeled machine, see LOCUS_MACHINE)");
  const std::string machine = !o.machine.empty() ? o.machine : env("LOCUS_MACHINE");
  const char* machine_setting = o.machine.empty() ? "LOCUS_MACHINE" : "runtime_options::machine";
  const std::string topo_text = !o.topology.empty() ? o.topology : env("LOCUS_TOPOLOGY");
  if (s.simulate) {
    s.machine = sim::find_machine(machine.empty() ? "host" : machine);
    if (!topo_text.empty())
      reject(o.topology.empty() ? "LOCUS_TOPOLOGY" : "runtime_options::topology", topo_text,
             "no topology with the simulator: it simulates the machine LOCUS_MACHINE names (" +
                 s.machine->name + ", " + s.machine->topo.description + ")");
    s.topo = s.machine->topo;
    if (const std::string v = env("LOCUS_SIM_BANDWIDTH"); !v.empty()) {
      char* end = nullptr;
      const double gbps = std::strtod(v.c_str(), &end);
      if (end != v.c_str() + v.size() || !(gbps >= 0) || gbps > 1e6)
        reject("LOCUS_SIM_BANDWIDTH", v,
               "expected the bandwidth of each memory controller in GB/s, a number from 0 (no limit) to 1e6");
      s.machine->memory_controller_gbps = gbps;
    }
    if (const std::string v = env("LOCUS_SIM_BLOCK"); !v.empty()) {
      s.sim_block_bytes = parse_byte_size("LOCUS_SIM_BLOCK", v, 1, 4096);
      if ((s.sim_block_bytes & (s.sim_block_bytes - 1)) != 0)
        reject("LOCUS_SIM_BLOCK", v, "expected a power of two from the cache line to 4K (bytes)");
    }
  } else {
    if (!machine.empty())
      reject(machine_setting, machine,
             "a machine only with the simulator: set LOCUS_ENGINE=sim (runtime_options::engine = \"sim\") too");
    s.topo = topo_text.empty() || topo_text == "host" ? discover_host() : parse_topology(topo_text);
  }

  const std::string places = !o.places.empty() ? o.places : env("LOCUS_PLACES");
  if (!places.empty()) s.places = parse_place_kind(places);

  if (o.workers != 0) {
    if (o.workers < 0 || o.workers > 4096)
      reject("runtime_options::workers", std::to_string(o.workers),
             "expected the number of workers, an integer from 1 to 4096");
    s.workers = o.workers;
  } else if (const std::string w = env("LOCUS_WORKERS"); !w.empty()) {
    s.workers = static_cast<int>(parse_integer("LOCUS_WORKERS", w, 1, 4096, "the number of workers"));
  } else {
    s.workers = s.topo.is_virtual || s.simulate ? s.topo.num_cores()
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }

  s.policy = !o.policy.empty() ? o.policy : env("LOCUS_POLICY");
  if (s.policy.empty()) s.policy = "ws";
  bool known = false;
  for (const auto& n : policy_names()) known = known || n == s.policy;
  if (!known) {
    std::string accepted = "unknown scheduling policy; accepted:";
    for (const auto& n : policy_names()) accepted += " " + n;
    reject(o.policy.empty() ? "LOCUS_POLICY" : "runtime_options::policy", s.policy, accepted);
  }

  if (o.stack_size != 0) {
    s.stack_bytes = parse_byte_size("runtime_options::stack_size", std::to_string(o.stack_size),
                                    tunables::min_stack_bytes, tunables::max_stack_bytes);
  } else if (const std::string v = env("LOCUS_STACK_SIZE"); !v.empty()) {
    s.stack_bytes = parse_byte_size("LOCUS_STACK_SIZE", v, tunables::min_stack_bytes, tunables::max_stack_bytes);
  }

  if (o.pin >= 0) {
    s.pin = o.pin != 0;
  } else if (const std::string v = env("LOCUS_PIN"); !v.empty()) {
    s.pin = parse_integer("LOCUS_PIN", v, 0, 1, "1 to pin workers to cores or 0 not to") != 0;
  }

  if (o.pack >= 0) {
    s.pack = o.pack != 0;
  } else if (const std::string v = env("LOCUS_PACK"); !v.empty()) {
    s.pack = parse_integer("LOCUS_PACK", v, 0, 1,
                           "1 to put the workers on the fewest places that hold them, or 0 to spread them "
                           "over every place") != 0;
  }

  if (o.spin_us >= 0) {
    s.spin_us = o.spin_us;
  } else if (const std::string v = env("LOCUS_SPIN_US"); !v.empty()) {
    s.spin_us = static_cast<long>(
        parse_integer("LOCUS_SPIN_US", v, 0, 10'000'000, "microseconds an idle worker spins before sleeping"));
  }

  if (o.seed >= 0) {
    s.seed = o.seed;
  } else if (const std::string v = env("LOCUS_SEED"); !v.empty()) {
    s.seed = parse_integer("LOCUS_SEED", v, 0, (1ll << 62), "the seed of the victim choice");
  }

  s.asymmetric_fence = choose_flag(o.fence, "fence", "LOCUS_FENCE", "asymmetric", "symmetric",
                                   "asymmetric (thieves pay with membarrier) or symmetric (a fence on every pop)");
  s.spawn_on_stack = choose_flag(o.spawn_switch, "spawn_switch", "LOCUS_SPAWN_SWITCH", "stack", "fiber",
                                 "stack (call the child on its fiber's stack; x86-64) or fiber (two "
                                 "Boost.Context switches)");

  if (!o.steal_weights.empty()) {
    s.steal_weights = parse_steal_weights("runtime_options::steal_weights", o.steal_weights);
  } else if (const std::string v = env("LOCUS_STEAL_WEIGHTS"); !v.empty()) {
    s.steal_weights = parse_steal_weights("LOCUS_STEAL_WEIGHTS", v);
  }
  if (o.push_threshold >= 0) {
    if (o.push_threshold < 1 || o.push_threshold > 255)
      reject("runtime_options::push_threshold", std::to_string(o.push_threshold),
             "expected failed pushes before a frame runs where it is, an integer from 1 to 255");
    s.push_threshold = o.push_threshold;
  } else if (const std::string v = env("LOCUS_PUSH_THRESHOLD"); !v.empty()) {
    s.push_threshold = static_cast<int>(
        parse_integer("LOCUS_PUSH_THRESHOLD", v, 1, 255, "failed pushes before a frame runs where it is"));
  }

  s.wrap_hints = !choose_flag("", "hint_range", "LOCUS_HINT_RANGE", "error", "wrap",
                              "error (a place hint outside 0..num_places()-1 throws at the spawn) or wrap "
                              "(it is taken modulo num_places())");

  const std::string stats = env("LOCUS_STATS");
  if (stats == "1" || stats == "summary") s.stats_at_exit = "summary";
  else if (stats == "json" || (stats.rfind("json:", 0) == 0 && stats.size() > 5)) s.stats_at_exit = stats;
  else if (!stats.empty() && stats != "0")
    reject("LOCUS_STATS", stats,
           "expected 0 (off), 1 or summary (a table on stderr when the pool stops), json (one JSON object on "
           "stderr) or json:FILE (the JSON object written to FILE)");
  return s;
}

}  // namespace locus::detail
