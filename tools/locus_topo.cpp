// locus-topo: prints the topology locus would run on (the host, a virtual
// topology, or under LOCUS_ENGINE=sim the simulated machine) and where each
// worker would be placed and pinned, as text or JSON. It reads and checks the
// same settings as the runtime, so it answers "what will LOCUS_TOPOLOGY /
// LOCUS_PLACES / LOCUS_WORKERS / LOCUS_PACK do?" without running anything.
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <locus/runtime.hpp>
#include <locus_support/machine_report.hpp>
#include <locus_support/program.hpp>
#include <locus_support/settings.hpp>

namespace {

constexpr std::string_view usage =
    "usage: locus-topo [--topology STR] [--places KIND] [--workers N] [--json] [--help]\n"
    "\n"
    "  --topology STR  virtual topology, e.g. 4x8:L3=16M,L2=256K,dist=10/20/30\n"
    "                  or \"host\" (default: $LOCUS_TOPOLOGY, else the host as hwloc\n"
    "                  sees it)\n"
    "  --places KIND   numa, socket, l3, l2 or core (default: $LOCUS_PLACES, else numa)\n"
    "  --workers N     number of workers (default: $LOCUS_WORKERS, else the cores of a\n"
    "                  virtual topology, or the host cores this process may use)\n"
    "  --steal-weights W  numa-ws steal weights: distance (derived from the distance\n"
    "                  matrix), or per-victim weights by distance rank, own place\n"
    "                  first (default: $LOCUS_STEAL_WEIGHTS, else distance); the\n"
    "                  resulting steal probabilities between places are printed\n"
    "  --json          print one JSON object instead of text\n"
    "  --help          print this help\n"
    "\n"
    "Every other LOCUS_* setting is checked as the runtime checks it; with\n"
    "LOCUS_ENGINE=sim the topology is that of the simulated machine (LOCUS_MACHINE).\n"
    "Exit status: 0 on success, 2 for a bad option or setting.\n";

struct options {
  std::optional<std::string> topology;
  std::optional<std::string> places;
  std::optional<std::string> workers;
  std::optional<std::string> steal_weights;
  bool json = false;
  bool help = false;
};

options parse_args(int argc, char** argv) {
  options opts;
  // Accepts both "--name value" and "--name=value".
  const auto take_value = [&](int& i, std::string_view arg, std::string_view name,
                              std::optional<std::string>& slot) {
    if (arg.substr(0, name.size()) != name) return false;
    const auto rest = arg.substr(name.size());
    if (rest.empty()) {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(name) + " needs a value (see --help)");
      slot = argv[++i];
    } else if (rest.front() == '=') {
      slot = std::string(rest.substr(1));
    } else {
      return false;
    }
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--json") {
      opts.json = true;
    } else if (arg == "--help" || arg == "-h") {
      opts.help = true;
    } else if (!take_value(i, arg, "--topology", opts.topology) && !take_value(i, arg, "--places", opts.places) &&
               !take_value(i, arg, "--workers", opts.workers) &&
               !take_value(i, arg, "--steal-weights", opts.steal_weights)) {
      throw std::invalid_argument("unknown option \"" + std::string(arg) + "\" (see --help)");
    }
  }
  return opts;
}

// The runtime's options with the flags in place of their variables: the
// flags are checked here, so that an error names the flag; every LOCUS_*
// setting is then checked as the runtime checks it, and under
// LOCUS_ENGINE=sim the topology is the simulated machine's.
locus::runtime_options resolve(const options& opts) {
  locus::runtime_options o;
  if (opts.topology) {
    if (const auto engine = locus_program::from_env("LOCUS_ENGINE"); engine && engine->value == "sim")
      throw std::invalid_argument("--topology " + *opts.topology + ": not with " + engine->quoted() +
                                  ", which simulates the machine LOCUS_MACHINE names");
    if (*opts.topology != "host") locus_support::check_topology(*opts.topology, "--topology");
    o.topology = *opts.topology;
  }
  if (opts.places) {
    locus_support::check_place_kind(*opts.places, "--places");
    o.places = *opts.places;
  }
  if (opts.workers)
    o.workers = static_cast<int>(locus_program::parse_integer({"--workers", *opts.workers}, 1,
                                                              locus_program::max_workers, "the number of workers"));
  if (opts.steal_weights) locus_support::numa_ws_steal_weights("--steal-weights", *opts.steal_weights);
  if (const auto m = locus_program::from_env("LOCUS_MACHINE")) locus_program::check_machine(*m);
  locus_support::resolve_settings(o);
  return o;
}

int run(int argc, char** argv) {
  const options opts = parse_args(argc, argv);
  if (opts.help) {
    std::cout << usage;
    return 0;
  }
  const locus::runtime_options o = resolve(opts);
  // numa-ws's option, whichever policy runs: the flag, else LOCUS_STEAL_WEIGHTS
  // (checked with the settings above), else its default.
  const auto env_weights = locus_program::from_env("LOCUS_STEAL_WEIGHTS");
  const std::vector<double> weights =
      opts.steal_weights ? locus_support::numa_ws_steal_weights("--steal-weights", *opts.steal_weights)
      : env_weights      ? locus_support::numa_ws_steal_weights("LOCUS_STEAL_WEIGHTS", env_weights->value)
                         : locus_support::numa_ws_steal_weights("steal_weights",
                                                                locus_support::numa_ws_default_steal_weights());
  // The machine, where the workers go, and (numa-ws, section III-B) where a
  // thief at each place looks for work.
  const locus_support::machine_report report = locus_support::describe_machine(o, weights);
  const auto& steal = report.numa_ws_steal;
  if (opts.json) {
    std::string json = report.json;
    json.pop_back();  // the closing brace
    // "derived": weights from the distance matrix (an empty list), else the given ones.
    json += std::string(",\"numa_ws_steal\":{\"derived\":") + (weights.empty() ? "true" : "false") + ",\"weights\":[";
    for (std::size_t i = 0; i < weights.size(); ++i) json += (i ? "," : "") + std::to_string(weights[i]);
    json += "],\"probabilities\":[";
    for (std::size_t a = 0; a < steal.size(); ++a) {
      json += a ? ",[" : "[";
      for (std::size_t b = 0; b < steal[a].size(); ++b) json += (b ? "," : "") + std::to_string(steal[a][b]);
      json += "]";
    }
    std::cout << json << "]}}\n";
  } else {
    std::cout << report.text;
    if (weights.empty()) {
      std::cout << "numa-ws steals: weights derived from the distances (rank r: 1/(r+1)^2 of the steals)";
    } else {
      std::cout << "numa-ws steals: per-victim weights by distance rank (own place first)";
      for (double w : weights) std::cout << " " << w;
    }
    std::cout << "\n  probability that a thief at place (row) picks a victim at place (column):\n";
    for (std::size_t a = 0; a < steal.size(); ++a) {
      std::cout << "  " << a << ":";
      for (double p : steal[a]) {
        char cell[16];
        std::snprintf(cell, sizeof cell, " %5.3f", p);
        std::cout << cell;
      }
      std::cout << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return locus_program::run("locus-topo", [&] { return run(argc, argv); }); }
