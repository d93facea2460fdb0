// Where CATS's misses come from (section 3.2.1: "the last level private
// data cache misses", event 07Eh mask 02h on the Opteron 8380), in order of
// preference:
//   simulator  the simulator's per-core counts (LOCUS_ENGINE=sim): the
//              accesses that missed the core's last private cache level
//              (L2 on cats-opteron-4x4: served by its L3, another L3 or
//              DRAM), in the simulator's unit of access. With them, the
//              inputs of section 3.5's CMPI: the misses of every level, the
//              model's miss penalties and the instructions (below);
//   perf       the kernel's hardware counters through perf_event_open: a
//              raw L2-miss event of the CPU's vendor and family
//              (l2_miss_event: AMD family 10h 07Eh/02h as in the paper, AMD
//              Zen PMCx064/08h "LS to L2 cache miss", Intel L2_RQSTS.MISS
//              24h/3Fh), per worker thread, in cache lines. The generic
//              PERF_COUNT_HW_CACHE_MISSES is not used: it counts the
//              last-level cache on most CPUs, not the private L2;
//   declared   neither exists (no PMU, as in most VMs, or a CPU without a
//              known L2 event): the bytes the tasks declare with
//              locus::touch and touch_indexed (engine/declared_bytes.hpp),
//              each byte taken as missed, counted in 64-byte lines. This
//              is user-provided information the paper does not need; the
//              counter profiled_declared says it was used. Under the
//              simulator (asked for by name): every line the tasks touch.
//   perf is refused under the simulator (it would count the simulator).
//   none       only when asked: CATS schedules as plain work stealing.
// The counters profiled_simulator, profiled_perf and profiled_declared say
// which source a run used; nothing is made up.
// A worker reads only its own count, on its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locus::detail {
class engine;
}

namespace locus::detail::cats {

enum class source_kind { simulator, perf, declared, none };
const char* to_string(source_kind k);
// Throws config_error naming `setting` unless value names a source or auto.
void check_source_name(std::string_view setting, std::string_view value);

// The raw perf event counting a core's private L2 data misses on a CPU
// (x86 CPUID vendor string and family), or nothing for a CPU we know no
// such event of. config is perf_event_attr::config for PERF_TYPE_RAW.
struct raw_event {
  std::uint64_t config;
  const char* name;  // the vendor's name of the event
};
std::optional<raw_event> l2_miss_event(std::string_view vendor, int family);

// A worker's counts so far (any fixed origin): what switch_task subtracts.
struct miss_sample {
  std::uint64_t misses = 0;        // misses of the last private level (SOID's M, in units)
  double weighted = 0;             // section 3.5's normalized misses: sum of n_i * p_i / p_1
  std::uint64_t instructions = 0;  // section 3.5's N
};

class miss_source {
 public:
  // `wanted`: "auto" (the first that works), "simulator", "perf",
  // "declared" or "none". `private_level`: the outermost cache level
  // private to a worker's core (2 on the Opteron), whose misses count.
  // Throws config_error when a named source cannot be used here.
  miss_source(engine& eng, int workers, const std::string& wanted, int private_level);
  ~miss_source();
  miss_source(const miss_source&) = delete;
  miss_source& operator=(const miss_source&) = delete;

  source_kind kind() const { return kind_; }
  // Why perf could not be used (empty if it was not tried or works).
  const std::string& perf_error() const { return perf_error_; }
  // The perf event used (nullptr unless kind() is perf).
  const char* perf_event_name() const { return event_ ? event_->name : nullptr; }
  std::uint64_t bytes_per_miss() const { return unit_; }
  // Whether read() gives section 3.5's weighted misses and instructions
  // (the simulator's source: its levels, penalties and compute model).
  bool gives_cmpi() const { return !penalties_.empty(); }
  // p_1, the delay of an L1 miss in cycles (0 unless gives_cmpi()).
  std::uint64_t l1_miss_penalty() const { return penalties_.empty() ? 0 : penalties_.front(); }
  // Worker w's counts so far; on w's thread only.
  miss_sample read(int w);
  // Whether misses are wanted now (only while profiling). Declared bytes
  // are counted only then, so touch() costs one load the rest of the run.
  void measuring(bool on);

 private:
  // declared on threads: the per-thread byte counts of engine/declared_bytes.hpp.
  bool counts_declared_bytes() const;
  // Opens the L2-miss counter for the calling thread; -1 and perf_error_ if it cannot.
  int open_perf();

  engine* eng_;
  source_kind kind_ = source_kind::none;
  std::uint64_t unit_ = 64;
  std::optional<raw_event> event_;                   // perf: the L2-miss event
  std::vector<int> counted_;                         // simulator: the counters read (empty on threads)
  std::vector<int> access_counts_;                   // simulator: the six counts of accesses by level
  std::vector<double> level_weight_;                 // simulator: p_i / p_1 of each served_by beyond L1
  std::vector<std::uint64_t> penalties_;             // simulator: p_1..p_k (empty: no CMPI)
  std::vector<std::vector<std::uint64_t>> buffers_;  // simulator: per worker
  std::vector<int> fds_;                             // perf: per worker, -2 until opened
  std::string perf_error_;
  std::atomic<bool> measuring_{true};
};

}  // namespace locus::detail::cats
