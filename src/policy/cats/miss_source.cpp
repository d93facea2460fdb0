#include "policy/cats/miss_source.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "locus/errors.hpp"
#include "policy/spi/measures.hpp"

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
}  // namespace

miss_source::miss_source(engine& eng, int workers, const std::string& wanted, int private_level) : eng_(&eng) {
  check_source_name("LOCUS_CATS_MISS_SOURCE", wanted);
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
    } else if (const int probe = open_perf(); probe >= 0) {  // probe once here; each worker opens its own later
      ::close(probe);
      kind_ = source_kind::perf;
      fds_.assign(static_cast<std::size_t>(workers), -2);
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
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
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

int miss_source::open_perf() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_RAW;
  attr.config = event_->config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0 /*this thread*/, -1 /*any cpu*/, -1, 0);
  if (fd < 0) {
    perf_error_ = std::string("perf_event_open(") + event_->name + "): " + std::strerror(errno);
    return -1;
  }
  return static_cast<int>(fd);
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
    case source_kind::perf: {
      if (fds_[i] == -2) fds_[i] = open_perf();  // on the worker's own thread
      std::uint64_t n = 0;
      if (fds_[i] < 0 || ::read(fds_[i], &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return out;
      out.misses = n;
      return out;
    }
    case source_kind::declared: out.misses = declared_bytes_on_this_thread() / unit_; return out;
    case source_kind::none: break;
  }
  return out;
}

}  // namespace locus::detail::cats
