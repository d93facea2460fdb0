// What locus-topo prints: the machine, places, caches and distances as text
// (describe) and as JSON (to_json).
#include "topology/topology.hpp"

#include "util/json_string.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace locus::detail {

std::string range_list(const std::vector<int>& values) {
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

namespace {

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
    out << "  place " << p << ": cores " << range_list(pl.place_cores[p]) << "; workers "
        << range_list(workers) << " on cores " << range_list(worker_cores) << ", os cpus "
        << range_list(os_cpus) << "\n";
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
      out << (i == 0 ? " " : " | ") << range_list(caches[i]->cores);
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

std::string describe(const topology& topo, const placement& pl) {
  std::ostringstream out;
  const std::string name =
      topo.is_virtual ? "virtual \"" + topo.description + "\"" : topo.description;
  out << "machine: " << name << ": " << counted(topo.num_packages, "socket") << ", "
      << counted(topo.num_numa_nodes, "NUMA node") << ", " << counted(topo.num_cores(), "core")
      << "\n";
  if (!topo.allowed_cpus.empty())
    out << "allowed cpus: " << topo.allowed_cpus
        << (topo.left_out.empty() ? " (the whole machine)" : "; left out: " + topo.left_out) << "\n";
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
  if (!topo.allowed_cpus.empty())
    out += ",\"allowed_cpus\":" + json_string(topo.allowed_cpus) + ",\"left_out\":" + json_string(topo.left_out);

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
