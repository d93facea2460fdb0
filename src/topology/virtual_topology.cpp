// The virtual topology grammar (LOCUS_TOPOLOGY, README.md next to this
// file): <sockets>x<cores-per-socket>[x<numa-per-socket>][:key=value,...],
// parsed into the same plain topology that host discovery gives.
#include "topology/topology.hpp"

#include "topology/setting_text.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <string_view>
#include <utility>
#include <vector>

namespace locus::detail {

namespace {

using namespace setting_text;

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

}  // namespace

// Caches are listed by level, then by first core, so host and virtual
// topologies read the same way.
void sort_caches(std::vector<cache_info>& caches) {
  std::sort(caches.begin(), caches.end(), [](const cache_info& a, const cache_info& b) {
    const int first_a = a.cores.empty() ? -1 : a.cores.front();
    const int first_b = b.cores.empty() ? -1 : b.cores.front();
    return std::tie(a.level, first_a) < std::tie(b.level, first_b);
  });
}

topology parse_topology(std::string_view text, std::string_view setting) {
  const auto trimmed = trim(text);
  return build_virtual(spec_parser(setting, trimmed).parse(), std::string(trimmed));
}

}  // namespace locus::detail
