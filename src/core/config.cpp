#include "core/config.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "locus/errors.hpp"
#include "policy/registry.hpp"

namespace locus::detail {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// A setting with two values: the option wins over the environment; unset
// means the first value. Returns whether the first value was chosen.
bool choose_flag(const std::string& option, const char* option_name, const char* env_name, const char* yes,
                 const char* no, const char* accepted) {
  const std::string value = !option.empty() ? option : env(env_name);
  if (value.empty() || value == yes) return true;
  if (value == no) return false;
  reject_setting(option.empty() ? std::string(env_name) : std::string("runtime_options::") + option_name, value,
         std::string("expected ") + accepted);
}

// Every registered policy's environment variables are checked, whichever
// policy runs, so that a typo never goes unnoticed; options passed in
// runtime_options must belong to the chosen policy.
void resolve_policy_options(const runtime_options& o, settings& s) {
  for (const policy_entry* p : all_policies())
    for (const auto& opt : p->options)
      if (const std::string v = env(opt.env.c_str()); !v.empty()) opt.check(opt.env, v);
  const policy_entry& chosen = *find_policy(s.policy);
  for (const auto& [name, value] : o.policy_options) {
    const auto it = std::find_if(chosen.options.begin(), chosen.options.end(),
                                 [&](const option_descriptor& d) { return d.name == name; });
    if (it == chosen.options.end()) {
      std::string accepted = "not an option of policy " + chosen.name + "; its options:";
      for (const auto& d : chosen.options) accepted += " " + d.name;
      if (chosen.options.empty()) accepted += " none";
      reject_setting("runtime_options::policy_options", name, accepted);
    }
    it->check("runtime_options::policy_options[" + name + "]", value);
  }
  for (const auto& d : chosen.options) {
    std::string value = d.default_value;
    if (const std::string v = env(d.env.c_str()); !v.empty()) value = v;
    for (const auto& [name, given] : o.policy_options)
      if (name == d.name) value = given;  // the last one given wins
    s.policy_options.emplace_back(d.name, value);
  }
}

// A machine file may price policies' operations (<name>_local, <name>_remote):
// each must be an operation some registered policy declares.
void check_machine_operations(const runtime_options& o, const sim::machine_model& m) {
  std::string known;
  for (const policy_entry* p : all_policies())
    for (const auto& c : p->costs) known += (known.empty() ? "" : ", ") + c.name;
  for (const auto& [name, given] : m.operation_costs) {
    bool declared = false;
    for (const policy_entry* p : all_policies())
      for (const auto& c : p->costs) declared = declared || c.name == name;
    if (!declared)
      reject_setting(o.machine.empty() ? "LOCUS_MACHINE" : "runtime_options::machine", m.name,
             "keys " + name + "_local / " + name + "_remote price an operation no policy declares; operations: " +
                 (known.empty() ? std::string("none") : known));
  }
}

}  // namespace

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
      reject_setting(o.topology.empty() ? "LOCUS_TOPOLOGY" : "runtime_options::topology", topo_text,
             "no topology with the simulator: it simulates the machine LOCUS_MACHINE names (" +
                 s.machine->name + ", " + s.machine->topo.description + ")");
    s.topo = s.machine->topo;
    if (const std::string v = env("LOCUS_SIM_BANDWIDTH"); !v.empty()) {
      char* end = nullptr;
      const double gbps = std::strtod(v.c_str(), &end);
      if (end != v.c_str() + v.size() || !(gbps >= 0) || gbps > 1e6)
        reject_setting("LOCUS_SIM_BANDWIDTH", v,
               "expected the bandwidth of each memory controller in GB/s, a number from 0 (no limit) to 1e6");
      s.machine->memory_controller_gbps = gbps;
    }
    if (const std::string v = env("LOCUS_SIM_BLOCK"); !v.empty()) {
      s.sim_block_bytes = parse_byte_size("LOCUS_SIM_BLOCK", v, 1, 4096);
      if ((s.sim_block_bytes & (s.sim_block_bytes - 1)) != 0)
        reject_setting("LOCUS_SIM_BLOCK", v, "expected a power of two from the cache line to 4K (bytes)");
    }
  } else {
    if (!machine.empty())
      reject_setting(machine_setting, machine,
             "a machine only with the simulator: set LOCUS_ENGINE=sim (runtime_options::engine = \"sim\") too");
    s.topo = topo_text.empty() || topo_text == "host" ? discover_host() : parse_topology(topo_text);
  }

  const std::string places = !o.places.empty() ? o.places : env("LOCUS_PLACES");
  if (!places.empty()) s.places = parse_place_kind(places);

  if (o.workers != 0) {
    if (o.workers < 0 || o.workers > 4096)
      reject_setting("runtime_options::workers", std::to_string(o.workers),
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
  if (find_policy(s.policy) == nullptr) {
    std::string accepted = "unknown scheduling policy; accepted:";
    for (const auto& n : policy_names()) accepted += " " + n;
    reject_setting(o.policy.empty() ? "LOCUS_POLICY" : "runtime_options::policy", s.policy, accepted);
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

  resolve_policy_options(o, s);
  if (s.machine) check_machine_operations(o, *s.machine);

  s.wrap_hints = !choose_flag("", "hint_range", "LOCUS_HINT_RANGE", "error", "wrap",
                              "error (a place hint outside 0..num_places()-1 throws at the spawn) or wrap "
                              "(it is taken modulo num_places())");

  const std::string stats = env("LOCUS_STATS");
  if (stats == "1" || stats == "summary") s.stats_at_exit = "summary";
  else if (stats == "json" || (stats.rfind("json:", 0) == 0 && stats.size() > 5)) s.stats_at_exit = stats;
  else if (!stats.empty() && stats != "0")
    reject_setting("LOCUS_STATS", stats,
           "expected 0 (off), 1 or summary (a table on stderr when the pool stops), json (one JSON object on "
           "stderr) or json:FILE (the JSON object written to FILE)");

  if (o.trace_max != 0) {
    s.trace_max = parse_byte_size("runtime_options::trace_max", std::to_string(o.trace_max), tunables::min_trace_max,
                                  tunables::max_trace_max);
  } else if (const std::string v = env("LOCUS_TRACE_MAX"); !v.empty()) {
    s.trace_max = parse_byte_size("LOCUS_TRACE_MAX", v, tunables::min_trace_max, tunables::max_trace_max);
  }
  if (o.span >= 0) {
    s.span = o.span != 0;
  } else if (const std::string v = env("LOCUS_SPAN"); !v.empty()) {
    s.span = parse_integer("LOCUS_SPAN", v, 0, 1, "1 to measure work and span (constructs run serially) or 0 not to") != 0;
  }
  if (o.arena_max != 0) {
    if (o.arena_max < 1 || o.arena_max > 4096)
      reject_setting("runtime_options::arena_max", std::to_string(o.arena_max),
             "expected how many arenas may exist at once, the default arena included, an integer from 1 to 4096");
    s.arena_max = o.arena_max;
  } else if (const std::string v = env("LOCUS_ARENA_MAX"); !v.empty()) {
    s.arena_max = static_cast<int>(parse_integer("LOCUS_ARENA_MAX", v, 1, 4096,
                                                 "how many arenas may exist at once, the default arena included"));
  }
  s.shares = choose_flag(o.arena_shares, "arena_shares", "LOCUS_ARENA_SHARES", "places", "pool",
                               "places (each arena with work gets an equal share of the workers of every place) "
                               "or pool (shares by count, consecutive workers, as standard TBB)")
                       ? arena_shares::places
                       : arena_shares::pool;
  s.trace_path = !o.trace.empty() ? o.trace : env("LOCUS_TRACE");
  if (!s.trace_path.empty()) {
    // Said now rather than when the pool stops and the run is over.
    std::FILE* probe = std::fopen(s.trace_path.c_str(), "a");
    if (probe == nullptr)
      reject_setting(o.trace.empty() ? "LOCUS_TRACE" : "runtime_options::trace", s.trace_path,
             "cannot create this file; expected the path of a file to write the trace to");
    std::fclose(probe);
  }
  return s;
}

}  // namespace locus::detail
