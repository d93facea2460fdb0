#include "policy/cats/miss_source.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
// The simulator's counters that count accesses served beyond a core's
// private caches (sim_engine::counter_names).
bool beyond_private(const std::string& name) {
  return name == "l3_hits" || name == "remote_l3_hits" || name == "local_dram" || name == "remote_dram";
}
// ...and those that count every access, wherever it was served: the
// declared lines under the simulator.
bool any_access(const std::string& name) {
  return name == "l1_hits" || name == "l2_hits" || beyond_private(name);
}
}  // namespace

miss_source::miss_source(engine& eng, int workers, const std::string& wanted) : eng_(&eng) {
  check_source_name("LOCUS_CATS_MISS_SOURCE", wanted);
  if (wanted == "none") return;
  const auto names = eng.counter_names();
  if (eng.access_unit_bytes() > 0 && !names.empty()) {  // the simulator
    if (wanted == "perf")
      throw config_error("LOCUS_CATS_MISS_SOURCE=perf: under LOCUS_ENGINE=sim the hardware counters would count "
                         "the simulator itself; accepted there are auto, simulator, declared and none");
    // simulator: the lines served beyond the private caches; declared: every
    // line the tasks touch, each taken as missed (as on threads).
    kind_ = wanted == "declared" ? source_kind::declared : source_kind::simulator;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (kind_ == source_kind::declared ? any_access(names[i]) : beyond_private(names[i]))
        counted_.push_back(static_cast<int>(i));
    unit_ = eng.access_unit_bytes();
    buffers_.assign(static_cast<std::size_t>(workers), std::vector<std::uint64_t>(names.size()));
    return;
  }
  if (wanted == "simulator")
    throw config_error("LOCUS_CATS_MISS_SOURCE=simulator: the simulator's counts exist only under LOCUS_ENGINE=sim");
  if (wanted == "auto" || wanted == "perf") {
    // perf: probe once on this thread; each worker opens its own later.
    const int probe = open_perf();
    if (probe >= 0) {
      ::close(probe);
      kind_ = source_kind::perf;
      fds_.assign(static_cast<std::size_t>(workers), -2);
      return;
    }
    if (wanted == "perf")
      throw config_error("LOCUS_CATS_MISS_SOURCE=perf: perf_event_open fails here (" + perf_error_ +
                         "); auto falls back to declared");
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
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CACHE_MISSES;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0 /*this thread*/, -1 /*any cpu*/, -1, 0);
  if (fd < 0) {
    perf_error_ = std::string("perf_event_open(PERF_COUNT_HW_CACHE_MISSES): ") + std::strerror(errno);
    return -1;
  }
  return static_cast<int>(fd);
}

std::uint64_t miss_source::read(int w) {
  const auto i = static_cast<std::size_t>(w);
  if (!counted_.empty()) {  // the simulator's counts (either kind)
    auto& buf = buffers_[i];
    eng_->read_counters(w, buf.data());
    std::uint64_t n = 0;
    for (int c : counted_) n += buf[static_cast<std::size_t>(c)];
    return n;
  }
  switch (kind_) {
    case source_kind::simulator: break;  // read above
    case source_kind::perf: {
      if (fds_[i] == -2) fds_[i] = open_perf();  // on the worker's own thread
      std::uint64_t n = 0;
      if (fds_[i] < 0 || ::read(fds_[i], &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return 0;
      return n;
    }
    case source_kind::declared: return declared_bytes_on_this_thread() / unit_;
    case source_kind::none: break;
  }
  return 0;
}

}  // namespace locus::detail::cats
