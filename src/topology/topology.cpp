// Topology discovery (hwloc), the virtual topology grammar, places and the
// placement of workers, and the renderings locus-topo prints. The grammar
// and placement rules are summarized in README.md next to this file.
#include "topology/topology.hpp"

#include "util/json_string.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

namespace locus::detail {

namespace {

// ---------------------------------------------------------------------------
// Small helpers shared by the parsers.

// Every config_error reads `SETTING="value": what is wrong / accepted`, so a
// user can find the variable to fix and see what to put there instead.
[[noreturn]] void reject(std::string_view setting, std::string_view value,
                         std::string_view message) {
  std::string text;
  text.append(setting).append("=\"").append(value).append("\": ").append(message);
  throw config_error(text);
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = s.find(separator);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// The whole of `s` must be digits: from_chars stops quietly at the first
// non-digit, and "16x" or "4abc" must be reported, not read as 16 and 4.
bool parse_unsigned(std::string_view s, std::uint64_t& value) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
}

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// ---------------------------------------------------------------------------
// Virtual topology grammar:
//   <sockets>x<cores-per-socket>[x<numa-per-socket>][:key=value,...]

constexpr int max_virtual_cores = 4096;
constexpr int max_cache_level = 3;

constexpr std::string_view shape_grammar =
    "expected <sockets>x<cores>[x<numa-per-socket>][:key=value,...], "
    "e.g. 4x8:L3=16M,L2=256K,dist=10/20/30";
constexpr std::string_view known_keys =
    "known keys: L1, L2, L3, line, assoc, L1assoc, L2assoc, L3assoc, dist";

// Everything a virtual topology string says, before it is expanded into cores
// and caches. Index 0 of the per-level arrays is unused so that [1] is L1.
struct virtual_spec {
  int sockets = 1;
  int cores_per_socket = 1;
  int numa_per_socket = 1;
  std::uint64_t cache_size[max_cache_level + 1] = {0, 32 << 10, 256 << 10, 8 << 20};
  int cache_assoc[max_cache_level + 1] = {0, 8, 16, 16};
  int line = 64;
  std::vector<int> dist = {10, 20};
};

// Parser state: the setting and full text, so every error can quote them.
class spec_parser {
 public:
  spec_parser(std::string_view setting, std::string_view text)
      : setting_(setting), text_(text) {}

  virtual_spec parse() {
    const auto colon = text_.find(':');
    parse_shape(text_.substr(0, colon));
    if (colon != std::string_view::npos) parse_options(text_.substr(colon + 1));
    check_cache_geometry();
    return spec_;
  }

 private:
  [[noreturn]] void fail(std::string_view message) const {
    reject(setting_, text_, message);
  }

  int parse_count(std::string_view part, std::string_view what, std::uint64_t max) {
    std::uint64_t value = 0;
    if (!parse_unsigned(part, value)) fail(shape_grammar);
    if (value == 0 || value > max)
      fail(std::string(what) + " must be between 1 and " + std::to_string(max) + ", got " +
           std::string(part));
    return static_cast<int>(value);
  }

  void parse_shape(std::string_view shape) {
    const auto parts = split(shape, 'x');
    if (parts.size() < 2 || parts.size() > 3) fail(shape_grammar);
    spec_.sockets = parse_count(parts[0], "sockets", max_virtual_cores);
    spec_.cores_per_socket = parse_count(parts[1], "cores per socket", max_virtual_cores);
    if (parts.size() == 3)
      spec_.numa_per_socket = parse_count(parts[2], "NUMA nodes per socket", max_virtual_cores);

    const auto total = static_cast<std::uint64_t>(spec_.sockets) *
                       static_cast<std::uint64_t>(spec_.cores_per_socket);
    if (total > max_virtual_cores)
      fail("at most " + std::to_string(max_virtual_cores) + " cores in total, got " +
           std::to_string(total));
    if (spec_.cores_per_socket % spec_.numa_per_socket != 0)
      fail("cores per socket (" + std::to_string(spec_.cores_per_socket) +
           ") must be a multiple of NUMA nodes per socket (" +
           std::to_string(spec_.numa_per_socket) + ")");
  }

  // Keys are case-insensitive and may come in any order; `assoc` is applied
  // before L<n>assoc so that the per-level key wins wherever it is written.
  void parse_options(std::string_view options) {
    std::map<std::string, std::pair<std::string_view, std::string_view>> given;
    for (const auto option : split(options, ',')) {
      const auto eq = option.find('=');
      if (eq == std::string_view::npos || eq == 0)
        fail("expected key=value after ':', got \"" + std::string(option) + "\"; " +
             std::string(known_keys));
      const auto raw_key = option.substr(0, eq);
      const auto key = lowercase(raw_key);
      if (!is_known_key(key))
        fail("unknown key \"" + std::string(raw_key) + "\"; " + std::string(known_keys));
      if (!given.emplace(key, std::pair{raw_key, option.substr(eq + 1)}).second)
        fail("key " + std::string(raw_key) + " given twice");
    }
    if (const auto it = given.find("assoc"); it != given.end()) {
      const int assoc = parse_assoc(it->second.first, it->second.second);
      std::fill(std::begin(spec_.cache_assoc) + 1, std::end(spec_.cache_assoc), assoc);
    }
    for (const auto& [key, option] : given) apply_option(key, option.first, option.second);
  }

  static bool is_known_key(const std::string& key) {
    static const std::set<std::string> keys = {"l1",      "l2",      "l3",      "line", "assoc",
                                               "l1assoc", "l2assoc", "l3assoc", "dist"};
    return keys.contains(key);
  }

  // `key` is known and lowercase; `assoc` was applied by parse_options.
  void apply_option(const std::string& key, std::string_view raw_key, std::string_view value) {
    if (key == "line") {
      spec_.line = parse_line(value);
    } else if (key == "dist") {
      spec_.dist = parse_dist(value);
    } else if (key != "assoc") {
      // "l1".."l3" and "l1assoc".."l3assoc": the digit picks the level.
      const int level = key[1] - '0';
      if (key.size() == 2)
        spec_.cache_size[level] = parse_size(raw_key, value);
      else
        spec_.cache_assoc[level] = parse_assoc(raw_key, value);
    }
  }

  std::uint64_t parse_size(std::string_view key, std::string_view value) {
    const auto bad = [&] {
      fail("bad size \"" + std::string(value) + "\" for " + std::string(key) +
           ": expected a byte count with an optional K, M or G suffix "
           "(binary units), or 0 for no cache at this level, e.g. 16M");
    };
    std::string_view digits = value;
    std::uint64_t multiplier = 1;
    if (!digits.empty()) {
      switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
        case 'K': multiplier = std::uint64_t{1} << 10; break;
        case 'M': multiplier = std::uint64_t{1} << 20; break;
        case 'G': multiplier = std::uint64_t{1} << 30; break;
        default: break;
      }
      if (multiplier != 1) digits.remove_suffix(1);
    }
    std::uint64_t count = 0;
    if (!parse_unsigned(digits, count)) bad();
    // Cap at 1 TiB: no cache is that large, and it keeps the product exact.
    constexpr std::uint64_t max_size = std::uint64_t{1} << 40;
    if (count > max_size / multiplier) bad();
    return count * multiplier;
  }

  int parse_assoc(std::string_view key, std::string_view value) {
    std::uint64_t assoc = 0;
    if (!parse_unsigned(value, assoc) || assoc > 1024)
      fail("bad associativity \"" + std::string(value) + "\" for " + std::string(key) +
           ": expected a number of ways from 0 (fully associative) to 1024");
    return static_cast<int>(assoc);
  }

  int parse_line(std::string_view value) {
    std::uint64_t line = 0;
    if (!parse_unsigned(value, line) || !is_power_of_two(line) || line > 4096)
      fail("bad cache line size \"" + std::string(value) +
           "\": expected a power of two from 1 to 4096 bytes, e.g. line=64");
    return static_cast<int>(line);
  }

  std::vector<int> parse_dist(std::string_view value) {
    constexpr std::string_view accepted =
        ": expected distances by hop count local/1-hop/2-hops/..., starting at 10 "
        "(local) and never decreasing, e.g. dist=10/20/30";
    std::vector<int> dist;
    for (const auto part : split(value, '/')) {
      std::uint64_t d = 0;
      if (!parse_unsigned(part, d) || d > 1'000'000)
        fail("bad dist \"" + std::string(value) + "\"" + std::string(accepted));
      dist.push_back(static_cast<int>(d));
    }
    if (dist.front() != 10 || !std::is_sorted(dist.begin(), dist.end()))
      fail("bad dist \"" + std::string(value) + "\"" + std::string(accepted));
    return dist;
  }

  // A cache model needs a whole number of sets: size = sets x ways x line.
  void check_cache_geometry() {
    for (int level = 1; level <= max_cache_level; ++level) {
      const std::uint64_t size = spec_.cache_size[level];
      const std::uint64_t set_bytes =
          static_cast<std::uint64_t>(spec_.line) *
          static_cast<std::uint64_t>(std::max(spec_.cache_assoc[level], 1));
      if (size % set_bytes != 0)
        fail("L" + std::to_string(level) + " size " + std::to_string(size) +
             " is not a whole number of sets of line x assoc = " + std::to_string(set_bytes) +
             " bytes; use a multiple of " + std::to_string(set_bytes));
    }
  }

  std::string_view setting_;
  std::string_view text_;
  virtual_spec spec_;
};

// Socket-ring hop model: nodes of one socket are one hop apart, nodes of
// sockets i and j are min(|i-j|, n-|i-j|) hops apart; hop counts beyond the
// given distances use the last one.
int virtual_distance(const virtual_spec& spec, int node_a, int node_b) {
  if (node_a == node_b) return spec.dist.front();
  const int socket_a = node_a / spec.numa_per_socket;
  const int socket_b = node_b / spec.numa_per_socket;
  const int apart = std::abs(socket_a - socket_b);
  const int hops = socket_a == socket_b ? 1 : std::min(apart, spec.sockets - apart);
  return spec.dist[std::min<std::size_t>(static_cast<std::size_t>(hops), spec.dist.size() - 1)];
}

// Caches are listed by level, then by first core, so host and virtual
// topologies read the same way.
void sort_caches(std::vector<cache_info>& caches) {
  std::sort(caches.begin(), caches.end(), [](const cache_info& a, const cache_info& b) {
    const int first_a = a.cores.empty() ? -1 : a.cores.front();
    const int first_b = b.cores.empty() ? -1 : b.cores.front();
    return std::tie(a.level, first_a) < std::tie(b.level, first_b);
  });
}

void add_virtual_caches(const virtual_spec& spec, topology& topo) {
  const auto add = [&](int level, std::vector<int> cores) {
    if (spec.cache_size[level] == 0) return;
    topo.caches.push_back({level, static_cast<std::size_t>(spec.cache_size[level]), spec.line,
                           spec.cache_assoc[level], std::move(cores)});
  };
  for (const auto& core : topo.cores) {
    add(1, {core.id});
    add(2, {core.id});
  }
  // L3 is shared by a socket, or by a NUMA node when a socket has several.
  const bool l3_per_node = spec.numa_per_socket > 1;
  std::vector<std::vector<int>> l3_cores(
      static_cast<std::size_t>(l3_per_node ? topo.num_numa_nodes : topo.num_packages));
  for (const auto& core : topo.cores)
    l3_cores[l3_per_node ? core.numa_node : core.package].push_back(core.id);
  for (auto& cores : l3_cores) add(3, std::move(cores));
  sort_caches(topo.caches);
}

topology build_virtual(const virtual_spec& spec, std::string description) {
  topology topo;
  topo.is_virtual = true;
  topo.description = std::move(description);
  topo.num_packages = spec.sockets;
  topo.num_numa_nodes = spec.sockets * spec.numa_per_socket;

  const int cores_per_node = spec.cores_per_socket / spec.numa_per_socket;
  for (int socket = 0; socket < spec.sockets; ++socket)
    for (int c = 0; c < spec.cores_per_socket; ++c) {
      const int id = socket * spec.cores_per_socket + c;
      topo.cores.push_back({id, -1, socket, socket * spec.numa_per_socket + c / cores_per_node});
    }

  add_virtual_caches(spec, topo);

  topo.numa_distance.assign(static_cast<std::size_t>(topo.num_numa_nodes),
                            std::vector<int>(static_cast<std::size_t>(topo.num_numa_nodes)));
  for (int a = 0; a < topo.num_numa_nodes; ++a)
    for (int b = 0; b < topo.num_numa_nodes; ++b)
      topo.numa_distance[a][b] = virtual_distance(spec, a, b);
  return topo;
}

// ---------------------------------------------------------------------------
// Host discovery with hwloc 2.x.

using hwloc_owner = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

std::vector<std::vector<int>> default_numa_distance(int num_nodes) {
  std::vector<std::vector<int>> matrix(static_cast<std::size_t>(num_nodes),
                                       std::vector<int>(static_cast<std::size_t>(num_nodes), 20));
  for (int n = 0; n < num_nodes; ++n) matrix[n][n] = 10;
  return matrix;
}

// What we report when hwloc cannot read the machine: one socket, one NUMA
// node, hardware_concurrency cores pinned to cpus 0..n-1, no caches.
topology flat_host(std::string_view why) {
  const int cpus = std::max(1u, std::thread::hardware_concurrency());
  topology topo;
  topo.description = "host (" + std::string(why) + "; assuming 1 socket of " +
                     std::to_string(cpus) + " cores)";
  topo.num_packages = 1;
  topo.num_numa_nodes = 1;
  for (int id = 0; id < cpus; ++id) topo.cores.push_back({id, id, 0, 0});
  topo.numa_distance = default_numa_distance(1);
  return topo;
}

int count_of(hwloc_topology_t hw, hwloc_obj_type_t type) {
  return std::max(0, hwloc_get_nbobjs_by_type(hw, type));
}

// In hwloc 2 NUMA nodes are memory children, not ancestors of cores, so a
// core's node is the first node whose cpuset covers it (DRAM comes before
// CPU-less or high-bandwidth nodes in logical order).
int numa_node_of(hwloc_topology_t hw, hwloc_const_cpuset_t cpuset) {
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node)) != nullptr)
    if (hwloc_bitmap_intersects(node->cpuset, cpuset)) return static_cast<int>(node->logical_index);
  return 0;
}

// One core_info per core, pinned to its first PU. Some platforms expose no
// Core objects; then each PU is a core.
std::vector<core_info> host_cores(hwloc_topology_t hw) {
  const hwloc_obj_type_t type = count_of(hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  std::vector<core_info> cores;
  hwloc_obj_t obj = nullptr;
  while ((obj = hwloc_get_next_obj_by_type(hw, type, obj)) != nullptr) {
    const hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(hw, obj->cpuset, HWLOC_OBJ_PU, 0);
    if (pu == nullptr) continue;
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_PACKAGE, obj);
    core_info core;
    core.id = static_cast<int>(cores.size());
    core.os_cpu = static_cast<int>(pu->os_index);
    core.package = package != nullptr ? static_cast<int>(package->logical_index) : 0;
    core.numa_node = numa_node_of(hw, obj->cpuset);
    cores.push_back(core);
  }
  return cores;
}

// Data and unified caches of every level; instruction caches have their own
// hwloc types and are left out (they do not hold the data we place).
std::vector<cache_info> host_caches(hwloc_topology_t hw, const std::vector<core_info>& cores) {
  constexpr hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                              HWLOC_OBJ_L5CACHE};
  std::vector<cache_info> caches;
  for (const auto type : cache_types) {
    hwloc_obj_t obj = nullptr;
    while ((obj = hwloc_get_next_obj_by_type(hw, type, obj)) != nullptr) {
      const auto& attr = obj->attr->cache;
      cache_info cache;
      cache.level = static_cast<int>(attr.depth);
      cache.size_bytes = static_cast<std::size_t>(attr.size);
      cache.line_bytes = static_cast<int>(attr.linesize);
      // hwloc says -1 for fully associative and 0 for unknown; we use 0 for both.
      cache.associativity = std::max(0, attr.associativity);
      for (const auto& core : cores)
        if (hwloc_bitmap_isset(obj->cpuset, static_cast<unsigned>(core.os_cpu)))
          cache.cores.push_back(core.id);
      if (!cache.cores.empty()) caches.push_back(std::move(cache));
    }
  }
  sort_caches(caches);
  return caches;
}

std::vector<std::vector<int>> host_numa_distance(hwloc_topology_t hw, int num_nodes) {
  auto matrix = default_numa_distance(num_nodes);
  hwloc_distances_s* distances = nullptr;
  unsigned count = 1;
  if (hwloc_distances_get_by_type(hw, HWLOC_OBJ_NUMANODE, &count, &distances,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
      count == 0 || distances == nullptr)
    return matrix;
  // The matrix may list the nodes in any order, or only some of them.
  const unsigned n = distances->nbobjs;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      const auto a = distances->objs[i]->logical_index;
      const auto b = distances->objs[j]->logical_index;
      if (a >= static_cast<unsigned>(num_nodes) || b >= static_cast<unsigned>(num_nodes)) continue;
      const auto value = distances->values[i * n + j];
      matrix[a][b] = static_cast<int>(std::min<hwloc_uint64_t>(value, INT_MAX));
    }
  hwloc_distances_release(hw, distances);
  return matrix;
}

// ---------------------------------------------------------------------------
// Places and placement.

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

// ---------------------------------------------------------------------------
// Rendering.

// "0-3,6,8-9": runs of consecutive ascending values collapse to a range.
std::string ranges(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(values[i]);
    if (j > i) out += '-' + std::to_string(values[j]);
    i = j + 1;
  }
  return out;
}

std::string human_size(std::size_t bytes) {
  constexpr std::pair<std::size_t, const char*> units[] = {
      {std::size_t{1} << 30, "GiB"}, {std::size_t{1} << 20, "MiB"}, {std::size_t{1} << 10, "KiB"}};
  for (const auto& [unit, name] : units)
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + " " + name;
  return std::to_string(bytes) + " B";
}

std::string counted(int n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

void describe_places(std::ostringstream& out, const topology& topo, const placement& pl) {
  out << "places: " << counted(pl.num_places, std::string(to_string(pl.kind)) + " place") << ", "
      << counted(static_cast<int>(pl.worker_core.size()), "worker") << "\n";
  for (int p = 0; p < pl.num_places; ++p) {
    const auto& workers = pl.place_workers[p];
    std::vector<int> worker_cores, os_cpus;
    for (const int w : workers) {
      worker_cores.push_back(pl.worker_core[w]);
      os_cpus.push_back(pl.worker_os_cpu[w]);
    }
    out << "  place " << p << ": cores " << ranges(pl.place_cores[p]) << "; workers "
        << ranges(workers) << " on cores " << ranges(worker_cores) << ", os cpus "
        << ranges(os_cpus) << "\n";
  }
  if (pl.pinning_wrapped)
    out << "  pinning wrapped: some workers share an OS cpu"
        << (topo.is_virtual ? " (virtual cores map to host cpus modulo their count)" : "")
        << "\n";
}

void describe_caches(std::ostringstream& out, const topology& topo) {
  out << "caches:" << (topo.caches.empty() ? " none known" : "") << "\n";
  // One line per level and geometry, so 4096 private L1s take one line.
  std::map<std::tuple<int, std::size_t, int, int>, std::vector<const cache_info*>> groups;
  for (const auto& cache : topo.caches) {
    const auto geometry =
        std::tuple{cache.level, cache.size_bytes, cache.line_bytes, cache.associativity};
    groups[geometry].push_back(&cache);
  }
  for (const auto& [geometry, caches] : groups) {
    const auto& [level, size, line, assoc] = geometry;
    out << "  L" << level << ": " << human_size(size) << ", " << line << " B line, "
        << (assoc > 0 ? std::to_string(assoc) + "-way" : std::string("assoc unknown/full"))
        << ", ";
    const bool all_private = std::all_of(caches.begin(), caches.end(),
                                         [](const cache_info* c) { return c->cores.size() == 1; });
    if (all_private) {
      out << "private to each of " << counted(static_cast<int>(caches.size()), "core") << "\n";
      continue;
    }
    out << counted(static_cast<int>(caches.size()), "instance") << ", shared by cores";
    for (std::size_t i = 0; i < caches.size(); ++i)
      out << (i == 0 ? " " : " | ") << ranges(caches[i]->cores);
    out << "\n";
  }
}

std::string right_aligned(const std::string& text, std::size_t width) {
  return std::string(width - std::min(width, text.size()), ' ') + text;
}

void describe_distances(std::ostringstream& out, const placement& pl) {
  // A matrix wider than a screen is not readable; the JSON has it all.
  constexpr int max_printed_places = 32;
  if (pl.num_places > max_printed_places) {
    out << "place distances: " << pl.num_places << " x " << pl.num_places
        << " matrix omitted (see --json)\n";
    return;
  }
  out << "place distances:\n" << right_aligned("", 5);
  for (int b = 0; b < pl.num_places; ++b) out << right_aligned(std::to_string(b), 5);
  out << "\n";
  for (int a = 0; a < pl.num_places; ++a) {
    out << right_aligned(std::to_string(a), 5);
    for (int b = 0; b < pl.num_places; ++b)
      out << right_aligned(std::to_string(pl.place_distance[a][b]), 5);
    out << "\n";
  }
}


std::string json_array(const std::vector<int>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string json_matrix(const std::vector<std::vector<int>>& rows) {
  std::string out = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ',';
    out += json_array(rows[i]);
  }
  return out + "]";
}

}  // namespace

// ---------------------------------------------------------------------------
// Public entry points.

topology parse_topology(std::string_view text, std::string_view setting) {
  const auto trimmed = trim(text);
  return build_virtual(spec_parser(setting, trimmed).parse(), std::string(trimmed));
}

topology discover_host() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return flat_host("hwloc_topology_init failed");
  const hwloc_owner hw(raw, &hwloc_topology_destroy);
  if (hwloc_topology_load(raw) != 0) return flat_host("hwloc_topology_load failed");

  topology topo;
  topo.description = "host";
  topo.cores = host_cores(raw);
  if (topo.cores.empty()) return flat_host("hwloc found no cores");
  topo.num_packages = std::max(1, count_of(raw, HWLOC_OBJ_PACKAGE));
  topo.num_numa_nodes = std::max(1, count_of(raw, HWLOC_OBJ_NUMANODE));
  topo.caches = host_caches(raw, topo.cores);
  topo.numa_distance = host_numa_distance(raw, topo.num_numa_nodes);
  return topo;
}

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
  if (num_workers < 1)
    reject("LOCUS_WORKERS", std::to_string(num_workers),
           "expected the number of workers, an integer of at least 1");
  // hardware_concurrency() may report 0 ("unknown"); pin as if there were one cpu.
  host_cpus = std::max(host_cpus, 1);

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
      pl.worker_os_cpu.push_back(os_cpu >= 0 ? os_cpu : core % host_cpus);
      pl.place_workers[p].push_back(w);
    }
  }

  std::set<int> distinct_cpus(pl.worker_os_cpu.begin(), pl.worker_os_cpu.end());
  pl.pinning_wrapped = distinct_cpus.size() < pl.worker_os_cpu.size();

  pl.place_distance = place_distances(topo, pl.place_cores);
  return pl;
}

std::string describe(const topology& topo, const placement& pl) {
  std::ostringstream out;
  const std::string name =
      topo.is_virtual ? "virtual \"" + topo.description + "\"" : topo.description;
  out << "machine: " << name << ": " << counted(topo.num_packages, "socket") << ", "
      << counted(topo.num_numa_nodes, "NUMA node") << ", " << counted(topo.num_cores(), "core")
      << "\n";
  describe_places(out, topo, pl);
  describe_caches(out, topo);
  describe_distances(out, pl);
  return out.str();
}

std::string to_json(const topology& topo, const placement& pl) {
  std::string out = "{";
  out += "\"virtual\":" + std::string(topo.is_virtual ? "true" : "false");
  out += ",\"description\":" + json_string(topo.description);
  out += ",\"packages\":" + std::to_string(topo.num_packages);
  out += ",\"numa_nodes\":" + std::to_string(topo.num_numa_nodes);

  out += ",\"cores\":[";
  for (std::size_t i = 0; i < topo.cores.size(); ++i) {
    const auto& c = topo.cores[i];
    out += (i > 0 ? "," : "");
    out += "{\"id\":" + std::to_string(c.id) + ",\"os_cpu\":" + std::to_string(c.os_cpu) +
           ",\"package\":" + std::to_string(c.package) +
           ",\"numa_node\":" + std::to_string(c.numa_node) + "}";
  }
  out += "]";

  out += ",\"caches\":[";
  for (std::size_t i = 0; i < topo.caches.size(); ++i) {
    const auto& c = topo.caches[i];
    out += (i > 0 ? "," : "");
    out += "{\"level\":" + std::to_string(c.level) + ",\"size\":" + std::to_string(c.size_bytes) +
           ",\"line\":" + std::to_string(c.line_bytes) +
           ",\"assoc\":" + std::to_string(c.associativity) + ",\"cores\":" + json_array(c.cores) +
           "}";
  }
  out += "]";

  out += ",\"numa_distance\":" + json_matrix(topo.numa_distance);
  out += ",\"places\":{\"kind\":" + json_string(to_string(pl.kind)) +
         ",\"count\":" + std::to_string(pl.num_places) +
         ",\"cores\":" + json_matrix(pl.place_cores) +
         ",\"workers\":" + json_matrix(pl.place_workers) +
         ",\"distance\":" + json_matrix(pl.place_distance) + "}";

  out += ",\"workers\":[";
  for (std::size_t w = 0; w < pl.worker_core.size(); ++w) {
    out += (w > 0 ? "," : "");
    out += "{\"id\":" + std::to_string(w) + ",\"core\":" + std::to_string(pl.worker_core[w]) +
           ",\"place\":" + std::to_string(pl.worker_place[w]) +
           ",\"os_cpu\":" + std::to_string(pl.worker_os_cpu[w]) + "}";
  }
  out += "]";
  out += ",\"pinning_wrapped\":" + std::string(pl.pinning_wrapped ? "true" : "false");
  return out + "}";
}

}  // namespace locus::detail
