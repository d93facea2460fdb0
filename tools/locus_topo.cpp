// locus-topo: prints the topology locus would run on (the host, or a virtual
// topology) and where each worker would be placed and pinned, as text or
// JSON. It reads the same settings as the runtime, so it answers "what will
// LOCUS_TOPOLOGY / LOCUS_PLACES / LOCUS_WORKERS do?" without running anything.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <locus/errors.hpp>

#include "core/config.hpp"
#include "policy/numa_ws/numa_ws.hpp"
#include "topology/topology.hpp"

namespace {

namespace topo = locus::detail;

constexpr std::string_view usage =
    "usage: locus-topo [--topology STR] [--places KIND] [--workers N] [--json] [--help]\n"
    "\n"
    "  --topology STR  virtual topology, e.g. 4x8:L3=16M,L2=256K,dist=10/20/30\n"
    "                  or \"host\" (default: $LOCUS_TOPOLOGY, else the host as hwloc\n"
    "                  sees it)\n"
    "  --places KIND   numa, socket, l3, l2 or core (default: $LOCUS_PLACES, else numa)\n"
    "  --workers N     number of workers (default: $LOCUS_WORKERS, else the cores of a\n"
    "                  virtual topology, or the host's hardware threads)\n"
    "  --steal-weights W  numa-ws per-victim weights by distance rank, own place\n"
    "                  first (default: $LOCUS_STEAL_WEIGHTS, else 8,2,1); the\n"
    "                  resulting steal probabilities between places are printed\n"
    "  --json          print one JSON object instead of text\n"
    "  --help          print this help\n"
    "\n"
    "Exit status: 0 on success, 2 for a bad option or setting.\n";

struct options {
  std::optional<std::string> topology;
  std::optional<std::string> places;
  std::optional<std::string> workers;
  std::optional<std::string> steal_weights;
  // Which setting a value came from, so errors name what the user wrote.
  std::string topology_setting = "LOCUS_TOPOLOGY";
  std::string places_setting = "LOCUS_PLACES";
  std::string workers_setting = "LOCUS_WORKERS";
  std::string steal_weights_setting = "LOCUS_STEAL_WEIGHTS";
  bool json = false;
  bool help = false;
};

// An empty variable counts as unset, as `LOCUS_PLACES= prog` usually means.
std::optional<std::string> from_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "locus-topo: " << message << "\n" << usage;
  std::exit(2);
}

options parse_args(int argc, char** argv) {
  options opts;
  // Accepts both "--name value" and "--name=value".
  const auto take_value = [&](int& i, std::string_view arg, std::string_view name,
                              std::optional<std::string>& slot, std::string& setting) {
    if (arg.substr(0, name.size()) != name) return false;
    const auto rest = arg.substr(name.size());
    if (rest.empty()) {
      if (i + 1 >= argc) usage_error(std::string(name) + " needs a value");
      slot = argv[++i];
    } else if (rest.front() == '=') {
      slot = std::string(rest.substr(1));
    } else {
      return false;
    }
    setting = std::string(name);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--json") {
      opts.json = true;
    } else if (arg == "--help" || arg == "-h") {
      opts.help = true;
    } else if (!take_value(i, arg, "--topology", opts.topology, opts.topology_setting) &&
               !take_value(i, arg, "--places", opts.places, opts.places_setting) &&
               !take_value(i, arg, "--workers", opts.workers, opts.workers_setting) &&
               !take_value(i, arg, "--steal-weights", opts.steal_weights, opts.steal_weights_setting)) {
      usage_error("unknown option \"" + std::string(arg) + "\"");
    }
  }
  if (!opts.topology) opts.topology = from_env("LOCUS_TOPOLOGY");
  if (!opts.places) opts.places = from_env("LOCUS_PLACES");
  if (!opts.workers) opts.workers = from_env("LOCUS_WORKERS");
  if (!opts.steal_weights) opts.steal_weights = from_env("LOCUS_STEAL_WEIGHTS");
  return opts;
}

// Same range as the runtime accepts for LOCUS_WORKERS.
constexpr int max_workers = 4096;

int parse_workers(const std::string& text, const std::string& setting) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 1 || value > max_workers)
    throw locus::config_error(setting + "=\"" + text +
                              "\": expected the number of workers, an integer from 1 to " +
                              std::to_string(max_workers));
  return value;
}

int run(const options& opts) {
  const int host_cpus = static_cast<int>(std::thread::hardware_concurrency());
  // "host" names the discovered machine, as it does for the runtime.
  const bool virtual_machine = opts.topology && *opts.topology != "host";
  const topo::topology machine = virtual_machine
                                     ? topo::parse_topology(*opts.topology, opts.topology_setting)
                                     : topo::discover_host();
  const topo::place_kind kind = opts.places
                                    ? topo::parse_place_kind(*opts.places, opts.places_setting)
                                    : topo::place_kind::numa;
  int workers = machine.is_virtual ? machine.num_cores() : std::max(host_cpus, 1);
  if (opts.workers) workers = parse_workers(*opts.workers, opts.workers_setting);

  const topo::placement placement = topo::make_placement(machine, kind, workers, host_cpus);
  const std::vector<double> weights =
      opts.steal_weights ? topo::parse_steal_weights(opts.steal_weights_setting, *opts.steal_weights)
                         : topo::parse_steal_weights("steal_weights", topo::default_steal_weights);
  // numa-ws (section III-B): where a thief at each place looks for work.
  std::vector<std::vector<double>> steal(static_cast<std::size_t>(placement.num_places));
  for (int p = 0; p < placement.num_places; ++p)
    steal[static_cast<std::size_t>(p)] = topo::place_steal_probabilities(placement, weights, p);
  if (opts.json) {
    std::string json = topo::to_json(machine, placement);
    json.pop_back();  // the closing brace
    json += ",\"numa_ws_steal\":{\"weights\":[";
    for (std::size_t i = 0; i < weights.size(); ++i) json += (i ? "," : "") + std::to_string(weights[i]);
    json += "],\"probabilities\":[";
    for (std::size_t a = 0; a < steal.size(); ++a) {
      json += a ? ",[" : "[";
      for (std::size_t b = 0; b < steal[a].size(); ++b) json += (b ? "," : "") + std::to_string(steal[a][b]);
      json += "]";
    }
    std::cout << json << "]}}\n";
  } else {
    std::cout << topo::describe(machine, placement);
    std::cout << "numa-ws steals: per-victim weights by distance rank (own place first)";
    for (double w : weights) std::cout << " " << w;
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

int main(int argc, char** argv) {
  const options opts = parse_args(argc, argv);
  if (opts.help) {
    std::cout << usage;
    return 0;
  }
  try {
    return run(opts);
  } catch (const locus::config_error& e) {
    std::cerr << "locus-topo: " << e.what() << "\n";
    return 2;
  }
}
