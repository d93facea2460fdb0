// The runtime's settings, one row each (setting_table.hpp), in the order
// resolve_settings resolves them. Every error names the setting, the value
// and what is accepted.
#include "core/setting_table.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "locus/errors.hpp"
#include "util/rank_path.hpp"

namespace locus::detail {
namespace {

using from = setting_source::from;
using given_fn = std::optional<std::string> (*)(const runtime_options&);

std::optional<std::string> text(const std::string& field) {
  if (field.empty()) return std::nullopt;
  return field;
}
template <class T>
std::optional<std::string> number_unless(T field, T unset) {
  if (field == unset) return std::nullopt;
  return std::to_string(field);
}
template <class T>
std::optional<std::string> number_if_set(T field) {  // unset: negative
  if (field < 0) return std::nullopt;
  return std::to_string(field);
}

std::string env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v != nullptr ? std::string(v) : std::string();
}

// A setting with two values, `yes` (also when unset) and `no`.
bool is_yes(const setting_source& src, const char* yes, const char* no) {
  if (src.value.empty() || src.value == yes) return true;
  if (src.value == no) return false;
  reject_setting(src.name, src.value, "expected " + src.about->accepted);
}

// ------------------------------------------------------------ the engine and the machine

void store_engine(settings& s, const runtime_options&, const setting_source& src) {
  s.simulate = !is_yes(src, "threaded", "sim");
}

void store_machine(settings& s, const runtime_options&, const setting_source& src) {
  if (s.simulate) s.machine = sim::find_machine(src.value.empty() ? "host" : src.value);
  else if (src.given())
    reject_setting(src.name, src.value,
                   "a machine only with the simulator: set LOCUS_ENGINE=sim (runtime_options::engine = \"sim\") too");
}

void store_topology(settings& s, const runtime_options&, const setting_source& src) {
  if (s.simulate) {
    if (src.given())
      reject_setting(src.name, src.value,
                     "no topology with the simulator: it simulates the machine LOCUS_MACHINE names (" +
                         s.machine->name + ", " + s.machine->topo.description + ")");
    s.topo = s.machine->topo;
    return;
  }
  // parse_topology names LOCUS_TOPOLOGY whichever way the text came.
  s.topo = src.value == "host" ? discover_host() : parse_topology(src.value);
}

void store_sim_bandwidth(settings& s, const runtime_options&, const setting_source& src) {
  if (!s.simulate || !src.given()) return;
  char* end = nullptr;
  const double gbps = std::strtod(src.value.c_str(), &end);
  if (end != src.value.c_str() + src.value.size() || !(gbps >= 0) || gbps > 1e6)
    reject_setting(src.name, src.value, "expected " + src.about->accepted);
  s.machine->memory_controller_gbps = gbps;
}

void store_sim_block(settings& s, const runtime_options&, const setting_source& src) {
  if (!s.simulate || !src.given()) return;
  s.sim_block_bytes = parse_byte_size(src.name, src.value, 1, 4096);
  if ((s.sim_block_bytes & (s.sim_block_bytes - 1)) != 0)
    reject_setting(src.name, src.value, "expected a power of two from the cache line to 4K (bytes)");
}

void store_sim_idle(settings& s, const runtime_options&, const setting_source& src) {
  if (!s.simulate || !src.given()) return;
  if (src.value != "events" && src.value != "attempts")
    reject_setting(src.name, src.value, "expected " + src.about->accepted);
  s.sim_idle_attempts = src.value == "attempts";
}

// ------------------------------------------------------------ the pool

void store_places(settings& s, const runtime_options&, const setting_source& src) {
  // parse_place_kind names LOCUS_PLACES whichever way the text came.
  if (src.given()) s.places = parse_place_kind(src.value);
}

void store_workers(settings& s, const runtime_options&, const setting_source& src) {
  if (src.given()) {
    s.workers = static_cast<int>(parse_integer(src.name, src.value, 1, 4096, "the number of workers"));
    return;
  }
  // One per core: of the virtual or simulated machine, or of the host as far
  // as the process may use it (discover_host keeps only the allowed cores).
  s.workers = s.topo.num_cores();
}

void store_policy(settings& s, const runtime_options&, const setting_source& src) {
  s.policy = src.value;
  if (find_policy(s.policy) != nullptr) return;
  std::string accepted = "unknown scheduling policy; accepted:";
  for (const auto& n : policy_names()) accepted += " " + n;
  reject_setting(src.name, s.policy, accepted);
}

void store_stack_size(settings& s, const runtime_options&, const setting_source& src) {
  if (src.given())
    s.stack_bytes = parse_byte_size(src.name, src.value, tunables::min_stack_bytes, tunables::max_stack_bytes);
}

// A 0/1 setting whose option the program sets as an int: the option is
// taken as given (any non-zero is 1), the variable must say 0 or 1.
bool on_off(const setting_source& src, int option, const char* meaning) {
  if (src.kind == from::option) return option != 0;
  return parse_integer(src.name, src.value, 0, 1, meaning) != 0;
}

void store_pin(settings& s, const runtime_options& o, const setting_source& src) {
  if (src.given()) s.pin = on_off(src, o.pin, "1 to pin workers to cores or 0 not to");
}

void store_pack(settings& s, const runtime_options& o, const setting_source& src) {
  if (src.given())
    s.pack = on_off(src, o.pack,
                    "1 to put the workers on the fewest places that hold them, or 0 to spread them over every place");
}

// The options spin_us and seed are taken as the program gives them; the
// variables are checked.
void store_spin(settings& s, const runtime_options& o, const setting_source& src) {
  if (src.kind == from::option) s.spin_us = o.spin_us;
  else if (src.given())
    s.spin_us = static_cast<long>(
        parse_integer(src.name, src.value, 0, 10'000'000, "microseconds an idle worker spins before sleeping"));
}

void store_seed(settings& s, const runtime_options& o, const setting_source& src) {
  if (src.kind == from::option) s.seed = o.seed;
  else if (src.given()) s.seed = parse_integer(src.name, src.value, 0, (1ll << 62), "the seed of the victim choice");
}

void store_fence(settings& s, const runtime_options&, const setting_source& src) {
  s.asymmetric_fence = is_yes(src, "asymmetric", "symmetric");
}

void store_spawn_switch(settings& s, const runtime_options&, const setting_source& src) {
  s.spawn_on_stack = is_yes(src, "stack", "fiber");
}

// ------------------------------------------------------------ the policy's options

// Every registered policy's environment variables are checked, whichever
// policy runs, so that a typo never goes unnoticed; options passed in
// runtime_options must belong to the chosen policy.
void resolve_policy_options(const runtime_options& o, settings& s) {
  for (const policy_entry* p : all_policies())
    for (const auto& opt : p->options)
      if (const std::string v = env(opt.env); !v.empty()) opt.check(opt.env, v);
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
    if (const std::string v = env(d.env); !v.empty()) value = v;
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
                     "keys " + name + "_local / " + name +
                         "_remote price an operation no policy declares; operations: " +
                         (known.empty() ? std::string("none") : known));
  }
}

void store_policy_options(settings& s, const runtime_options& o, const setting_source&) {
  resolve_policy_options(o, s);
  if (s.machine) check_machine_operations(o, *s.machine);
}

// ------------------------------------------------------------ hints, observation, arenas

void store_hint_range(settings& s, const runtime_options&, const setting_source& src) {
  s.wrap_hints = !is_yes(src, "error", "wrap");
}

void store_stats(settings& s, const runtime_options&, const setting_source& src) {
  const std::string& stats = src.value;
  if (stats == "1" || stats == "summary") s.stats_at_exit = "summary";
  else if (stats == "json") s.stats_at_exit = stats;
  else if (stats.rfind("json:", 0) == 0 && stats.size() > 5) s.stats_at_exit = "json:" + with_rank(stats.substr(5));
  else if (!stats.empty() && stats != "0") reject_setting(src.name, stats, "expected " + src.about->accepted);
}

void store_trace_max(settings& s, const runtime_options&, const setting_source& src) {
  if (src.given())
    s.trace_max = parse_byte_size(src.name, src.value, tunables::min_trace_max, tunables::max_trace_max);
}

void store_span(settings& s, const runtime_options& o, const setting_source& src) {
  if (src.given()) s.span = on_off(src, o.span, "1 to measure work and span (constructs run serially) or 0 not to");
}

void store_arena_max(settings& s, const runtime_options&, const setting_source& src) {
  if (src.given())
    s.arena_max = static_cast<int>(
        parse_integer(src.name, src.value, 1, 4096, "how many arenas may exist at once, the default arena included"));
}

void store_arena_shares(settings& s, const runtime_options&, const setting_source& src) {
  s.shares = is_yes(src, "places", "pool") ? arena_shares::places : arena_shares::pool;
}

void store_trace(settings& s, const runtime_options&, const setting_source& src) {
  s.trace_path = with_rank(src.value);  // "%r": the MPI rank
  if (s.trace_path.empty()) return;
  // Said now rather than when the pool stops and the run is over.
  std::FILE* probe = std::fopen(s.trace_path.c_str(), "a");
  if (probe == nullptr)
    reject_setting(src.name, s.trace_path,
                   "cannot create this file; expected the path of a file to write the trace to");
  std::fclose(probe);
}

setting_descriptor row(std::string name, std::string variable, std::string accepted, std::string default_value,
                       std::string help, given_fn given, decltype(setting_descriptor::store) store) {
  return {{std::move(name), std::move(variable), std::move(accepted), std::move(default_value), std::move(help)},
          given,
          store};
}

std::vector<setting_descriptor> make_table() {
  using o_t = const runtime_options&;
  std::vector<setting_descriptor> t;
  t.push_back(row("engine", "LOCUS_ENGINE",
                  "threaded (one OS thread per worker) or sim (the simulator: virtual workers on a modeled "
                  "machine, see LOCUS_MACHINE)",
                  "threaded", "the engine that runs the workers (docs/simulator.md)",
                  [](o_t o) { return text(o.engine); }, &store_engine));
  t.push_back(row("machine", "LOCUS_MACHINE", "a machine preset or the path of a machine file (src/sim/README.md)",
                  "host", "the simulated machine, with engine sim", [](o_t o) { return text(o.machine); },
                  &store_machine));
  t.push_back(row("topology", "LOCUS_TOPOLOGY", "host or a virtual topology, e.g. 4x8:L3=16M,dist=10/20",
                  "host", "the machine the workers are placed on (not with the simulator)",
                  [](o_t o) { return text(o.topology); }, &store_topology));
  t.push_back(row("", "LOCUS_SIM_BANDWIDTH",
                  "the bandwidth of each memory controller in GB/s, a number from 0 (no limit) to 1e6", "",
                  "the simulated machine's memory bandwidth instead of its own", nullptr, &store_sim_bandwidth));
  t.push_back(row("", "LOCUS_SIM_BLOCK", "a power of two from the cache line to 4K (bytes)", "",
                  "the simulator's unit of access (default: the cache line)", nullptr, &store_sim_block));
  t.push_back(row("", "LOCUS_SIM_IDLE", "events or attempts", "attempts",
                  "how the simulator runs an idle worker that sees no work it may take: every failed steal "
                  "attempt is simulated (attempts), or it waits for an event that may show some (events, "
                  "faster, not yet within 1% of attempts everywhere; docs/simulator.md)",
                  nullptr, &store_sim_idle));
  t.push_back(row("places", "LOCUS_PLACES", "numa, socket, l3, l2 or core", "numa",
                  "what a place is (workers are spread over places)", [](o_t o) { return text(o.places); },
                  &store_places));
  t.push_back(row("workers", "LOCUS_WORKERS", "the number of workers, an integer from 1 to 4096", "",
                  "the number of workers (default: one per core)",
                  [](o_t o) { return number_unless(o.workers, 0); }, &store_workers));
  t.push_back(row("policy", "LOCUS_POLICY", "a registered policy (locus::available_policies())", "ws",
                  "the scheduling policy", [](o_t o) { return text(o.policy); }, &store_policy));
  t.push_back(row("stack_size", "LOCUS_STACK_SIZE", "a size in bytes with an optional K, M or G suffix", "512K",
                  "the stack of each task's fiber", [](o_t o) { return number_unless(o.stack_size, std::size_t{0}); },
                  &store_stack_size));
  t.push_back(row("pin", "LOCUS_PIN", "1 or 0", "1", "pin each worker to its core",
                  [](o_t o) { return number_if_set(o.pin); }, &store_pin));
  t.push_back(row("pack", "LOCUS_PACK", "1 or 0", "0", "put the workers on the fewest places that hold them",
                  [](o_t o) { return number_if_set(o.pack); }, &store_pack));
  t.push_back(row("spin_us", "LOCUS_SPIN_US", "an integer from 0 to 10000000", "100",
                  "microseconds an idle worker spins before sleeping", [](o_t o) { return number_if_set(o.spin_us); },
                  &store_spin));
  t.push_back(row("seed", "LOCUS_SEED", "an integer from 0 to 2^62", "",
                  "the seed of the victim choice (default: random)",
                  [](o_t o) { return number_if_set(o.seed); }, &store_seed));
  t.push_back(row("fence", "LOCUS_FENCE",
                  "asymmetric (thieves pay with membarrier) or symmetric (a fence on every pop)", "asymmetric",
                  "how the deque's pop is fenced against thieves", [](o_t o) { return text(o.fence); },
                  &store_fence));
  t.push_back(row("spawn_switch", "LOCUS_SPAWN_SWITCH",
                  "stack (call the child on its fiber's stack; x86-64) or fiber (two Boost.Context switches)",
                  "stack", "how a spawn moves to the child's stack", [](o_t o) { return text(o.spawn_switch); },
                  &store_spawn_switch));
  t.push_back(row("policy_options", "", "the chosen policy's options (its registry entry)", "",
                  "the policy's own options, then every policy's variables", nullptr, &store_policy_options));
  t.push_back(row("", "LOCUS_HINT_RANGE",
                  "error (a place hint outside 0..num_places()-1 throws at the spawn) or wrap (it is taken modulo "
                  "num_places())",
                  "error", "what a place hint outside the places does", nullptr, &store_hint_range));
  t.push_back(row("", "LOCUS_STATS",
                  "0 (off), 1 or summary (a table on stderr when the pool stops), json (one JSON object on "
                  "stderr) or json:FILE (the JSON object written to FILE; %r in FILE is the MPI rank)",
                  "0", "statistics when the pool stops", nullptr, &store_stats));
  t.push_back(row("trace_max", "LOCUS_TRACE_MAX", "a size in bytes with an optional K, M or G suffix", "512M",
                  "the size a trace may reach", [](o_t o) { return number_unless(o.trace_max, std::size_t{0}); },
                  &store_trace_max));
  t.push_back(row("span", "LOCUS_SPAN", "1 or 0", "0", "measure work and span (constructs run serially)",
                  [](o_t o) { return number_if_set(o.span); }, &store_span));
  t.push_back(row("arena_max", "LOCUS_ARENA_MAX", "an integer from 1 to 4096", "64",
                  "how many arenas may exist at once, the default arena included",
                  [](o_t o) { return number_unless(o.arena_max, 0); }, &store_arena_max));
  t.push_back(row("arena_shares", "LOCUS_ARENA_SHARES",
                  "places (each arena with work gets an equal share of the workers of every place) or pool "
                  "(shares by count, consecutive workers, as standard TBB)",
                  "places", "how arenas share the workers", [](o_t o) { return text(o.arena_shares); },
                  &store_arena_shares));
  t.push_back(row("trace", "LOCUS_TRACE", "the path of a file to write the trace to (%r: the MPI rank)", "",
                  "write a Chrome trace-event JSON file of the run (docs/observability.md)",
                  [](o_t o) { return text(o.trace); }, &store_trace));
  return t;
}

}  // namespace

const std::vector<setting_descriptor>& setting_table() {
  static const std::vector<setting_descriptor> table = make_table();
  return table;
}

}  // namespace locus::detail
