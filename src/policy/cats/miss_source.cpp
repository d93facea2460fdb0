#include "policy/cats/miss_source.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "locus/errors.hpp"
#include "policy/spi/measures.hpp"
#include "util/parse_setting.hpp"

namespace locus::detail::cats {

const char* to_string(source_kind k) {
  switch (k) {
    case source_kind::simulator: return "simulator";
    case source_kind::perf: return "perf";
    case source_kind::declared: return "declared";
    case source_kind::none: return "none";
  }
  return "?";
}

namespace {
// The simulator's first six counters (sim_engine::counter_names), by the
// cache level that served the access: 1 to 3 for L1, L2 and the own L3,
// 4 beyond them (another L3, DRAM). An access served at level h missed
// levels 1 to h-1.
int served_level(const std::string& name) {
  if (name == "l1_hits") return 1;
  if (name == "l2_hits") return 2;
  if (name == "l3_hits") return 3;
  if (name == "remote_l3_hits" || name == "local_dram" || name == "remote_dram") return 4;
  return 0;  // not an access count
}
}  // namespace

std::optional<raw_event> l2_miss_event(std::string_view vendor, int family) {
  // Raw config: event select in bits 0-7 (AMD: 32-35 for its high bits),
  // unit mask in bits 8-15.
  if (vendor == "AuthenticAMD") {
    // Family 10h BKDG (31116), PMC 7Eh "L2 Cache Misses", mask 02h: data
    // cache fills: the paper's event (section 3.2.1).
    if (family == 0x10) return raw_event{0x027E, "AMD 10h L2 cache misses, data cache fills (07Eh/02h)"};
    // Family 17h-1Ah PPRs, PMCx064 "Core to L2 Cacheable Request Access
    // Status", mask 08h LsRdBlkC: data-cache requests that missed in L2
    // (Linux perf: l2_cache_misses_from_dc_misses).
    if (family >= 0x17 && family <= 0x1A) return raw_event{0x0864, "AMD Zen L2 misses from data cache (PMCx064/08h)"};
    return std::nullopt;
  }
  // Intel SDM vol. 3B / perfmon tables, Haswell and later cores (family
  // 6): L2_RQSTS.MISS, event 24h, mask 3Fh: requests that missed the L2.
  if (vendor == "GenuineIntel" && family == 6) return raw_event{0x3F24, "Intel L2_RQSTS.MISS (24h/3Fh)"};
  return std::nullopt;
}

double normalized_misses(std::span<const std::uint64_t> misses, std::span<const std::uint64_t> penalties) {
  const std::size_t k = std::min(misses.size(), penalties.size());
  if (k == 0 || penalties[0] == 0) return 0;
  double m = 0;
  for (std::size_t i = 0; i < k; ++i)
    m += static_cast<double>(misses[i]) * static_cast<double>(penalties[i]) / static_cast<double>(penalties[0]);
  return m;
}

std::vector<std::uint64_t> parse_penalties(std::string_view setting, std::string_view text) {
  if (text == "off") return {};
  std::vector<std::uint64_t> p;
  for (std::string_view rest = text;;) {
    const auto comma = rest.find(',');
    p.push_back(static_cast<std::uint64_t>(
        parse_integer(setting, rest.substr(0, comma), 1, 999'999'999, "a miss penalty in cycles (off, or p1,p2,p3)")));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (p.size() != 3) reject_setting(setting, text, penalties_accepted);
  return p;
}

bool parse_group_read(const std::uint64_t* buffer, std::size_t bytes, std::span<std::uint64_t> values) {
  if (bytes != (1 + values.size()) * sizeof(std::uint64_t) || buffer[0] != values.size()) return false;
  std::copy(buffer + 1, buffer + 1 + values.size(), values.begin());
  return true;
}

namespace {
// This CPU's vendor and family from /proc/cpuinfo (x86 Linux); empty elsewhere.
std::pair<std::string, int> this_cpu() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return {"", 0};
  std::string vendor;
  int family = 0;
  char line[512];
  while (std::fgets(line, sizeof line, f) != nullptr && (vendor.empty() || family == 0)) {
    const std::string_view l(line);
    const auto colon = l.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = l.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
    if (l.rfind("vendor_id", 0) == 0) vendor = std::string(value);
    else if (l.rfind("cpu family", 0) == 0) family = std::atoi(std::string(value).c_str());
  }
  std::fclose(f);
  return {vendor, family};
}

struct perf_event_spec {
  std::uint32_t type;
  std::uint64_t config;
  const char* name;
};
// PERF_TYPE_HW_CACHE's config: cache, operation, result (perf_event_open(2)).
constexpr std::uint64_t read_misses_of(std::uint64_t cache) {
  return cache | (std::uint64_t{PERF_COUNT_HW_CACHE_OP_READ} << 8) | (std::uint64_t{PERF_COUNT_HW_CACHE_RESULT_MISS} << 16);
}

void close_all(const std::vector<int>& fds) {
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
}
}  // namespace

miss_source::miss_source(engine& eng, int workers, const std::string& wanted, int private_level,
                         const std::string& penalties)
    : eng_(&eng) {
  check_source_name("LOCUS_CATS_MISS_SOURCE", wanted);
  std::vector<std::uint64_t> given = parse_penalties("LOCUS_CATS_PENALTIES", penalties);
  if (wanted == "none") return;
  const auto names = eng.counter_names();
  if (eng.access_unit_bytes() > 0 && !names.empty()) {  // the simulator
    if (wanted == "perf")
      throw config_error("LOCUS_CATS_MISS_SOURCE=perf: under LOCUS_ENGINE=sim the hardware counters would count "
                         "the simulator itself; accepted there are auto, simulator, declared and none");
    // simulator: the accesses that missed the last private level;
    // declared: every access, each taken as missed (as on threads).
    kind_ = wanted == "declared" ? source_kind::declared : source_kind::simulator;
    penalties_ = eng.miss_penalty_cycles();
    if (penalties_.empty() || penalties_.front() == 0) penalties_.clear();
    level_weight_.assign(names.size(), 0.0);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const int h = served_level(names[i]);
      if (h == 0) continue;
      access_counts_.push_back(static_cast<int>(i));
      if (kind_ == source_kind::declared || h > private_level) counted_.push_back(static_cast<int>(i));
      // Section 3.5: an access served at level h is a miss of levels 1 to h-1.
      for (int level = 1; level < h && level <= static_cast<int>(penalties_.size()); ++level)
        level_weight_[i] += static_cast<double>(penalties_[static_cast<std::size_t>(level - 1)]) /
                            static_cast<double>(penalties_.front());
    }
    unit_ = eng.access_unit_bytes();
    buffers_.assign(static_cast<std::size_t>(workers), std::vector<std::uint64_t>(names.size()));
    return;
  }
  if (wanted == "simulator")
    throw config_error("LOCUS_CATS_MISS_SOURCE=simulator: the simulator's counts exist only under LOCUS_ENGINE=sim");
  if (wanted == "auto" || wanted == "perf") {
    const auto [vendor, family] = this_cpu();
    event_ = l2_miss_event(vendor, family);
    if (!event_) {
      perf_error_ = "no private-L2 miss event known for this CPU (vendor '" + vendor + "', family " +
                    std::to_string(family) + ")";
    } else if (const auto probe = open_perf(false, perf_error_); !probe.empty()) {
      // Probed once here; each worker opens its own on its thread (read).
      close_all(probe);
      kind_ = source_kind::perf;
      fds_.assign(static_cast<std::size_t>(workers), {});
      // Section 3.5's CMPI needs the penalties and the whole group.
      if (given.empty()) {
        cmpi_error_ = "LOCUS_CATS_PENALTIES is off";
      } else if (const auto group = open_perf(true, cmpi_error_); !group.empty()) {
        close_all(group);
        group_ = true;
        penalties_ = std::move(given);
      }
      return;
    }
    event_.reset();
    if (wanted == "perf")
      throw config_error("LOCUS_CATS_MISS_SOURCE=perf: " + perf_error_ + "; auto falls back to declared");
  }
  kind_ = source_kind::declared;
  count_declared_bytes(true);
}

bool miss_source::counts_declared_bytes() const { return kind_ == source_kind::declared && counted_.empty(); }

miss_source::~miss_source() {
  for (const auto& fds : fds_) close_all(fds);
  if (counts_declared_bytes() && measuring_.load()) count_declared_bytes(false);
}

void miss_source::measuring(bool on) {
  if (counts_declared_bytes() && measuring_.exchange(on) != on) count_declared_bytes(on);
}

void check_source_name(std::string_view setting, std::string_view value) {
  if (value != "auto" && value != "simulator" && value != "perf" && value != "declared" && value != "none")
    throw config_error(std::string(setting) + "=" + std::string(value) +
                       ": accepted are auto, simulator, perf, declared and none");
}

std::vector<int> miss_source::open_perf(bool group, std::string& error) const {
  const perf_event_spec l2{PERF_TYPE_RAW, event_->config, event_->name};
  std::array<perf_event_spec, perf_slots> specs{};  // in perf_slot order
  specs[instructions_slot] = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions (PERF_COUNT_HW_INSTRUCTIONS)"};
  specs[l1d_slot] = {PERF_TYPE_HW_CACHE, read_misses_of(PERF_COUNT_HW_CACHE_L1D), "L1D read misses (PERF_COUNT_HW_CACHE_L1D)"};
  specs[l2_slot] = l2;
  specs[llc_slot] = {PERF_TYPE_HW_CACHE, read_misses_of(PERF_COUNT_HW_CACHE_LL), "LLC read misses (PERF_COUNT_HW_CACHE_LL)"};
  const std::span<const perf_event_spec> wanted = group ? std::span<const perf_event_spec>(specs)
                                                        : std::span<const perf_event_spec>(&l2, 1);
  std::vector<int> fds;
  for (const perf_event_spec& e : wanted) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = e.type;
    attr.config = e.config;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    if (group) attr.read_format = PERF_FORMAT_GROUP;
    const int leader = fds.empty() ? -1 : fds.front();
    const long fd = ::syscall(SYS_perf_event_open, &attr, 0 /*this thread*/, -1 /*any cpu*/, leader, 0);
    if (fd < 0) {
      error = std::string("perf_event_open(") + e.name + "): " + std::strerror(errno);
      close_all(fds);
      return {};
    }
    fds.push_back(static_cast<int>(fd));
  }
  return fds;
}

miss_sample miss_source::read_perf(std::size_t w) {
  auto& fds = fds_[w];
  if (fds.empty()) {  // on the worker's own thread
    std::string ignored;
    fds = open_perf(group_, ignored);
    if (fds.empty()) fds.push_back(-1);
  }
  miss_sample out;
  if (fds.front() < 0) return out;
  if (!group_) {
    std::uint64_t n = 0;
    if (::read(fds.front(), &n, sizeof n) == static_cast<ssize_t>(sizeof n)) out.misses = n;
    return out;
  }
  std::uint64_t buffer[1 + perf_slots];
  std::array<std::uint64_t, perf_slots> v{};
  const ssize_t got = ::read(fds.front(), buffer, sizeof buffer);
  if (got < 0 || !parse_group_read(buffer, static_cast<std::size_t>(got), v)) return out;
  out.misses = v[l2_slot];
  out.instructions = v[instructions_slot];
  const std::uint64_t by_level[] = {v[l1d_slot], v[l2_slot], v[llc_slot]};
  out.weighted = normalized_misses(by_level, penalties_);
  return out;
}

miss_sample miss_source::read(int w) {
  const auto i = static_cast<std::size_t>(w);
  miss_sample out;
  if (!counted_.empty()) {  // the simulator's counts (either kind)
    auto& buf = buffers_[i];
    eng_->read_counters(w, buf.data());
    for (int c : counted_) out.misses += buf[static_cast<std::size_t>(c)];
    if (gives_cmpi()) {
      // N: the compute model's cycles at one instruction each, plus one
      // memory instruction per access (a lower bound: one per block).
      out.instructions = eng_->compute_cycles(w);
      for (std::size_t k = 0; k < buf.size(); ++k) out.weighted += level_weight_[k] * static_cast<double>(buf[k]);
      for (int c : access_counts_) out.instructions += buf[static_cast<std::size_t>(c)];
    }
    return out;
  }
  switch (kind_) {
    case source_kind::simulator: break;  // read above
    case source_kind::perf: return read_perf(i);
    case source_kind::declared: out.misses = declared_bytes_on_this_thread() / unit_; return out;
    case source_kind::none: break;
  }
  return out;
}

}  // namespace locus::detail::cats
