// Machine files: a machine model written as key=value lines (the format is
// in src/sim/README.md). Every error names the file, the line and the key.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "sim/machine_model.hpp"

namespace locus::detail::sim {

namespace {

constexpr std::pair<std::string_view, cycles latency_table::*> latency_keys[] = {
    {"l1_hit", &latency_table::l1_hit},         {"l2_hit", &latency_table::l2_hit},
    {"l3_hit", &latency_table::l3_hit},         {"remote_l3_hit", &latency_table::remote_l3_hit},
    {"local_dram", &latency_table::local_dram}, {"remote_dram", &latency_table::remote_dram},
};

constexpr std::pair<std::string_view, cycles scheduling_costs::*> cost_keys[] = {
    {"deque_push", &scheduling_costs::deque_push},
    {"deque_pop", &scheduling_costs::deque_pop},
    {"steal_local", &scheduling_costs::steal_local},
    {"steal_remote", &scheduling_costs::steal_remote},
    {"fiber_switch", &scheduling_costs::fiber_switch},
    {"sleep", &scheduling_costs::sleep},
    {"wake", &scheduling_costs::wake},
    {"spin", &scheduling_costs::spin},
};

constexpr std::string_view other_keys[] = {"base",      "name",
                                           "source",    "topology",
                                           "clock_ghz", "reference_distance",
                                           "memory_controller_gbps", "link_gbps",
                                           "links_per_hop",   "link_data_header_bytes",
                                           "link_request_bytes", "snoop_bytes",
                                           "snoop_response_bytes", "outstanding_misses",
                                           "prefetch_outstanding", "prefetch_trigger"};

// What a file must give when it has no base preset to inherit from.
constexpr std::string_view required_without_base[] = {
    "topology",      "clock_ghz",  "l1_hit",     "l2_hit",
    "l3_hit",        "remote_l3_hit", "local_dram", "remote_dram"};

template <typename Table>
auto find_key(const Table& table, std::string_view key) {
  return std::find_if(std::begin(table), std::end(table),
                      [&](const auto& entry) { return entry.first == key; });
}

std::string known_keys() {
  std::string out;
  const auto add = [&](std::string_view key) { out.append(out.empty() ? "" : ", ").append(key); };
  for (const auto key : other_keys) add(key);
  for (const auto& [key, member] : latency_keys) add(key);
  for (const auto& [key, member] : cost_keys) add(key);
  add("<operation>_local, <operation>_remote (an operation a policy declares, e.g. mailbox)");
  return out;
}

// A policy's operation (<name>_local / <name>_remote): its name, or empty.
// Which names exist depends on the registered policies; the runtime checks
// them when it starts (core/config.cpp), the file reader only the form.
std::string_view operation_of(std::string_view key, bool& remote) {
  for (const std::string_view suffix : {std::string_view("_local"), std::string_view("_remote")}) {
    if (key.size() > suffix.size() && key.ends_with(suffix)) {
      remote = suffix == "_remote";
      return key.substr(0, key.size() - suffix.size());
    }
  }
  return {};
}

bool is_known_key(std::string_view key) {
  bool remote = false;
  return !operation_of(key, remote).empty() || find_key(latency_keys, key) != std::end(latency_keys) ||
         find_key(cost_keys, key) != std::end(cost_keys) ||
         std::find(std::begin(other_keys), std::end(other_keys), key) != std::end(other_keys);
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

struct entry {
  std::string value;
  int line = 0;
};

class machine_file_reader {
 public:
  explicit machine_file_reader(std::string path) : path_(std::move(path)) {}

  machine_model read() {
    read_entries();
    machine_model m = start_from_base();
    // In file order, so the problem reported is the first one in the file.
    std::vector<const std::pair<const std::string, entry>*> in_order;
    for (const auto& keyed : entries_) in_order.push_back(&keyed);
    std::sort(in_order.begin(), in_order.end(),
              [](const auto* a, const auto* b) { return a->second.line < b->second.line; });
    for (const auto* keyed : in_order) apply(m, keyed->first, keyed->second);
    check_complete(m);
    derive_missing_costs(m);
    return m;
  }

 private:
  [[noreturn]] void fail_at(int line, std::string_view key, std::string_view problem) const {
    throw config_error("machine file \"" + path_ + "\", line " + std::to_string(line) + ", key " +
                       std::string(key) + ": " + std::string(problem));
  }

  [[noreturn]] void fail(std::string_view problem) const {
    throw config_error("machine file \"" + path_ + "\": " + std::string(problem));
  }

  void read_entries() {
    std::ifstream in(path_);
    if (!in) fail("cannot be opened for reading");
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
      const auto content = trim(text);
      if (content.empty() || content.front() == '#') continue;
      const auto eq = content.find('=');
      if (eq == std::string_view::npos)
        fail_at(line, trim(content.substr(0, content.find_first_of(" \t"))),
                "expected key = value; known keys: " + known_keys());
      const auto key = trim(content.substr(0, eq));
      const auto value = trim(content.substr(eq + 1));
      if (!is_known_key(key)) fail_at(line, key, "unknown key; known keys: " + known_keys());
      if (value.empty()) fail_at(line, key, "no value after '='");
      const auto [it, inserted] =
          entries_.emplace(std::string(key), entry{std::string(value), line});
      if (!inserted)
        fail_at(line, key, "given twice (first on line " + std::to_string(it->second.line) + ")");
    }
  }

  machine_model start_from_base() {
    const auto base = entries_.find("base");
    if (base == entries_.end()) {
      machine_model m;
      m.name = path_;
      m.source = "machine file " + path_;
      return m;
    }
    auto preset = find_preset(base->second.value);
    if (!preset)
      fail_at(base->second.line, "base",
              "\"" + base->second.value + "\" is not a preset; presets: " + preset_name_list());
    preset->source =
        "machine file " + path_ + " over preset " + preset->name + ": " + preset->source;
    preset->name = path_;
    return std::move(*preset);
  }

  void apply(machine_model& m, const std::string& key, const entry& e) {
    if (const auto it = find_key(latency_keys, key); it != std::end(latency_keys)) {
      m.latency.*(it->second) = whole_number(key, e, 1);
    } else if (const auto cost = find_key(cost_keys, key); cost != std::end(cost_keys)) {
      m.costs.*(cost->second) = whole_number(key, e, 0);
    } else if (key == "name") {
      m.name = e.value;
    } else if (key == "source") {
      m.source = e.value;
    } else if (key == "topology") {
      try {
        m.topo = parse_topology(e.value, "topology");
      } catch (const config_error& error) {
        fail_at(e.line, key, error.what());
      }
    } else if (key == "clock_ghz") {
      m.clock_ghz = decimal(key, e, /*zero_allowed=*/false);
    } else if (key == "memory_controller_gbps") {
      m.memory_controller_gbps = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "link_gbps") {
      m.link_gbps = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "links_per_hop") {
      m.links_per_hop = static_cast<int>(bounded(key, e, 1, 64));
    } else if (key == "link_data_header_bytes") {
      m.protocol.data_header_bytes = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "link_request_bytes") {
      m.protocol.request_bytes = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "snoop_bytes") {
      m.protocol.snoop_bytes = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "snoop_response_bytes") {
      m.protocol.snoop_response_bytes = decimal(key, e, /*zero_allowed=*/true);
    } else if (key == "outstanding_misses") {
      m.outstanding_misses = static_cast<unsigned>(bounded(key, e, 1, 1024));
    } else if (key == "prefetch_outstanding") {
      m.prefetch_outstanding = static_cast<unsigned>(bounded(key, e, 0, 1024));
    } else if (key == "prefetch_trigger") {
      m.prefetch_trigger = static_cast<unsigned>(bounded(key, e, 1, 4096));
    } else if (bool remote = false; !operation_of(key, remote).empty()) {
      auto& given = m.operation_costs[std::string(operation_of(key, remote))];
      (remote ? given.remote : given.local) = whole_number(key, e, 0);
    } else if (key == "reference_distance") {
      const auto distance = whole_number(key, e, local_distance + 1);
      if (distance > 1'000'000) fail_at(e.line, key, "expected a NUMA distance from 11 to 1000000");
      m.latency.reference_distance = static_cast<int>(distance);
    }
    // "base" was applied first, by start_from_base.
  }

  std::uint64_t whole_number(std::string_view key, const entry& e, std::uint64_t minimum) const {
    std::uint64_t value = 0;
    const char* end = e.value.data() + e.value.size();
    const auto [stop, ec] = std::from_chars(e.value.data(), end, value);
    if (ec != std::errc{} || stop != end || value < minimum)
      fail_at(e.line, key,
              "expected a whole number of at least " + std::to_string(minimum) + ", got \"" +
                  e.value + "\"");
    return value;
  }

  std::uint64_t bounded(std::string_view key, const entry& e, std::uint64_t minimum, std::uint64_t maximum) const {
    const std::uint64_t value = whole_number(key, e, 0);
    if (value < minimum || value > maximum)
      fail_at(e.line, key,
              "expected a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum) +
                  ", got \"" + e.value + "\"");
    return value;
  }

  double decimal(std::string_view key, const entry& e, bool zero_allowed) const {
    double value = 0;
    const char* end = e.value.data() + e.value.size();
    const auto [stop, ec] = std::from_chars(e.value.data(), end, value);
    if (ec != std::errc{} || stop != end || !std::isfinite(value) || value < 0 ||
        (value == 0 && !zero_allowed))
      fail_at(e.line, key,
              std::string("expected a ") + (zero_allowed ? "non-negative" : "positive") +
                  " decimal number, got \"" + e.value + "\"");
    return value;
  }

  void check_complete(const machine_model& m) const {
    if (!entries_.contains("base"))
      for (const auto key : required_without_base)
        if (!entries_.contains(std::string(key)))
          fail("missing key " + std::string(key) +
               " (every key but name, source, reference_distance, the bandwidth and memory-level "
               "parallelism keys and the scheduling costs is required unless base = <preset> is given)");
    // The remote rule scales from local to remote; a remote access cheaper
    // than a local one is a typo.
    const auto check_order = [&](std::string_view local_key, cycles local,
                                 std::string_view remote_key, cycles remote) {
      if (remote >= local) return;
      const auto it = entries_.find(std::string(remote_key));
      const auto& at = it != entries_.end() ? it->second : entries_.at(std::string(local_key));
      fail_at(at.line, it != entries_.end() ? remote_key : local_key,
              std::string(remote_key) + " (" + std::to_string(remote) + ") must not be below " +
                  std::string(local_key) + " (" + std::to_string(local) + ")");
    };
    check_order("l3_hit", m.latency.l3_hit, "remote_l3_hit", m.latency.remote_l3_hit);
    check_order("local_dram", m.latency.local_dram, "remote_dram", m.latency.remote_dram);
  }

  // Costs the file does not give follow its latencies, as presets' do.
  void derive_missing_costs(machine_model& m) const {
    const scheduling_costs derived = derive_scheduling_costs(m.latency);
    for (const auto& [key, member] : cost_keys)
      if (!entries_.contains(std::string(key))) m.costs.*member = derived.*member;
  }

  std::string path_;
  std::map<std::string, entry> entries_;
};

}  // namespace

machine_model load_machine_file(const std::string& path) {
  return machine_file_reader(path).read();
}

}  // namespace locus::detail::sim
