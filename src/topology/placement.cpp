// Places (the cores of one NUMA node, socket, L3, L2 or core) and the
// placement of workers on them; the rules are in README.md next to this file.
#include "topology/topology.hpp"

#include "topology/setting_text.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace locus::detail {

namespace {

using namespace setting_text;

// Groups cores by a key (NUMA node, package, ...) in key order, dropping keys
// with no core.
template <typename KeyOf>
std::vector<std::vector<int>> group_cores(const topology& topo, KeyOf key_of) {
  std::map<int, std::vector<int>> groups;
  for (const auto& core : topo.cores) groups[key_of(core)].push_back(core.id);
  std::vector<std::vector<int>> places;
  for (auto& [key, cores] : groups) places.push_back(std::move(cores));
  return places;
}

std::vector<std::vector<int>> cache_places(const topology& topo, place_kind kind, int level) {
  std::vector<std::vector<int>> places;
  for (const auto& cache : topo.caches)
    if (cache.level == level && !cache.cores.empty()) {
      auto cores = cache.cores;
      std::sort(cores.begin(), cores.end());
      places.push_back(std::move(cores));
    }
  if (places.empty())
    reject("LOCUS_PLACES", to_string(kind),
         "the topology \"" + topo.description + "\" has no L" + std::to_string(level) +
             " cache; use numa, socket or core");
  std::sort(places.begin(), places.end());
  return places;
}

std::vector<std::vector<int>> places_of(const topology& topo, place_kind kind) {
  switch (kind) {
    case place_kind::numa:
      return group_cores(topo, [](const core_info& c) { return c.numa_node; });
    case place_kind::socket:
      return group_cores(topo, [](const core_info& c) { return c.package; });
    case place_kind::l3: return cache_places(topo, kind, 3);
    case place_kind::l2: return cache_places(topo, kind, 2);
    case place_kind::core:
      return group_cores(topo, [](const core_info& c) { return c.id; });
  }
  return {};
}

// distance[a][b] is the largest NUMA distance between a node of place a's
// cores and a node of place b's cores: a steal between the two places may
// have to cross that far.
std::vector<std::vector<int>> place_distances(const topology& topo,
                                              const std::vector<std::vector<int>>& places) {
  std::vector<std::set<int>> nodes(places.size());
  for (std::size_t p = 0; p < places.size(); ++p)
    for (const int core : places[p]) nodes[p].insert(topo.cores.at(core).numa_node);

  std::vector<std::vector<int>> distance(places.size(), std::vector<int>(places.size(), 0));
  for (std::size_t a = 0; a < places.size(); ++a)
    for (std::size_t b = 0; b < places.size(); ++b)
      for (const int x : nodes[a])
        for (const int y : nodes[b])
          distance[a][b] = std::max(distance[a][b], topo.numa_distance.at(x).at(y));
  return distance;
}

}  // namespace

place_kind parse_place_kind(std::string_view text, std::string_view setting) {
  static constexpr std::pair<std::string_view, place_kind> kinds[] = {
      {"numa", place_kind::numa}, {"socket", place_kind::socket}, {"l3", place_kind::l3},
      {"l2", place_kind::l2},     {"core", place_kind::core}};
  const auto name = lowercase(trim(text));
  for (const auto& [kind_name, kind] : kinds)
    if (name == kind_name) return kind;
  reject(setting, text, "expected one of numa (default), socket, l3, l2, core");
}

const char* to_string(place_kind k) {
  switch (k) {
    case place_kind::numa: return "numa";
    case place_kind::socket: return "socket";
    case place_kind::l3: return "l3";
    case place_kind::l2: return "l2";
    case place_kind::core: return "core";
  }
  return "?";
}

placement make_placement(const topology& topo, place_kind kind, int num_workers, int host_cpus, bool packed) {
  std::vector<int> cpus(static_cast<std::size_t>(std::max(host_cpus, 1)));
  std::iota(cpus.begin(), cpus.end(), 0);
  return make_placement(topo, kind, num_workers, cpus, packed);
}

placement make_placement(const topology& topo, place_kind kind, int num_workers, const std::vector<int>& host_cpus,
                         bool packed) {
  if (num_workers < 1)
    reject("LOCUS_WORKERS", std::to_string(num_workers),
           "expected the number of workers, an integer of at least 1");
  if (host_cpus.empty()) throw std::invalid_argument("make_placement: no host cpu to pin to");

  auto places = places_of(topo, kind);
  // A place without a worker could never run a task, so it is not a place.
  auto used = static_cast<int>(std::min<std::size_t>(places.size(), static_cast<std::size_t>(num_workers)));
  if (packed) {
    // The fewest places, in order, whose cores hold every worker (NUMA-WS
    // figure 9: "packed tightly using the smallest number of sockets"); then
    // the workers are spread evenly over those.
    std::size_t cores = 0;
    used = 0;
    while (used < static_cast<int>(places.size()) && cores < static_cast<std::size_t>(num_workers))
      cores += places[static_cast<std::size_t>(used++)].size();
  }
  places.resize(static_cast<std::size_t>(used));

  placement pl;
  pl.kind = kind;
  pl.num_places = used;
  pl.place_cores = std::move(places);
  pl.place_workers.resize(static_cast<std::size_t>(used));
  for (int p = 0; p < used; ++p) {
    const auto first = static_cast<int>(static_cast<long long>(p) * num_workers / used);
    const auto last = static_cast<int>(static_cast<long long>(p + 1) * num_workers / used);
    const auto& cores = pl.place_cores[p];
    for (int w = first; w < last; ++w) {
      const int core = cores[static_cast<std::size_t>(w - first) % cores.size()];
      const int os_cpu = topo.cores.at(core).os_cpu;
      pl.worker_core.push_back(core);
      pl.worker_place.push_back(p);
      pl.worker_os_cpu.push_back(os_cpu >= 0 ? os_cpu : host_cpus[static_cast<std::size_t>(core) % host_cpus.size()]);
      pl.place_workers[p].push_back(w);
    }
  }

  std::set<int> distinct_cpus(pl.worker_os_cpu.begin(), pl.worker_os_cpu.end());
  pl.pinning_wrapped = distinct_cpus.size() < pl.worker_os_cpu.size();

  pl.place_distance = place_distances(topo, pl.place_cores);
  return pl;
}

}  // namespace locus::detail
