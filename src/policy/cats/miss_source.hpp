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
//              last-level cache on most CPUs, not the private L2.
//              With the penalties given (option penalties,
//              LOCUS_CATS_PENALTIES=p1,p2,p3 in cycles) also section 3.5's
//              CMPI: one perf event group per worker thread, read at once
//              (PERF_FORMAT_GROUP): instructions, L1D read misses, the L2
//              event, LLC read misses. Without the penalties, or where the
//              group cannot be opened (cmpi_error says which event), the
//              L2 event alone, as before, and no CMPI;
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
#include <span>
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

// Section 3.5's normalized misses of one task, M = sum over levels i of
// n_i * p_i / p_1: misses[i] and penalties[i] of levels 1 to k (the same
// k, p_1 > 0).
double normalized_misses(std::span<const std::uint64_t> misses, std::span<const std::uint64_t> penalties);

// Option penalties (LOCUS_CATS_PENALTIES): "off" gives none; "p1,p2,p3"
// the miss penalties of L1, L2 and L3 in cycles, integers from 1. Throws
// config_error naming `setting` otherwise.
inline constexpr const char* penalties_accepted =
    "off, or p1,p2,p3: the miss penalties of L1, L2 and L3 in cycles, integers >= 1";
std::vector<std::uint64_t> parse_penalties(std::string_view setting, std::string_view text);

// The perf event group of section 3.5's inputs, in the order its events
// join the group (the leader first) and a group read returns them.
enum perf_slot : std::size_t { instructions_slot, l1d_slot, l2_slot, llc_slot, perf_slots };

// A read of a group opened with read_format PERF_FORMAT_GROUP alone:
// { u64 nr; u64 value[nr]; }, `bytes` of it. Fills `values` and returns
// true only if the buffer holds exactly values.size() values.
bool parse_group_read(const std::uint64_t* buffer, std::size_t bytes, std::span<std::uint64_t> values);

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
  // `penalties`: option penalties (parse_penalties), used by perf only.
  miss_source(engine& eng, int workers, const std::string& wanted, int private_level,
              const std::string& penalties = "off");
  ~miss_source();
  miss_source(const miss_source&) = delete;
  miss_source& operator=(const miss_source&) = delete;

  source_kind kind() const { return kind_; }
  // Why perf could not be used (empty if it was not tried or works).
  const std::string& perf_error() const { return perf_error_; }
  // Why perf gives no CMPI (empty unless kind() is perf and gives_cmpi()
  // is false): the penalties unset, or the group event that failed.
  const std::string& cmpi_error() const { return cmpi_error_; }
  // The perf event used (nullptr unless kind() is perf).
  const char* perf_event_name() const { return event_ ? event_->name : nullptr; }
  std::uint64_t bytes_per_miss() const { return unit_; }
  // Whether read() gives section 3.5's weighted misses and instructions
  // (the simulator's source: its levels, penalties and compute model;
  // perf: its event group and the penalties given).
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
  // Opens the calling thread's counters: the L2-miss event alone, or with
  // `group` section 3.5's group (perf_slot order, the leader first).
  // Empty, and `error` naming the event that failed, if it cannot.
  std::vector<int> open_perf(bool group, std::string& error) const;
  miss_sample read_perf(std::size_t w);

  engine* eng_;
  source_kind kind_ = source_kind::none;
  std::uint64_t unit_ = 64;
  std::optional<raw_event> event_;                   // perf: the L2-miss event
  std::vector<int> counted_;                         // simulator: the counters read (empty on threads)
  std::vector<int> access_counts_;                   // simulator: the six counts of accesses by level
  std::vector<double> level_weight_;                 // simulator: p_i / p_1 of each served_by beyond L1
  std::vector<std::uint64_t> penalties_;             // simulator, perf: p_1..p_k (empty: no CMPI)
  std::vector<std::vector<std::uint64_t>> buffers_;  // simulator: per worker
  std::vector<std::vector<int>> fds_;                // perf: per worker, the first read; empty until tried, {-1} failed
  bool group_ = false;                               // perf: section 3.5's group, not the L2 event alone
  std::string perf_error_;
  std::string cmpi_error_;
  std::atomic<bool> measuring_{true};
};

}  // namespace locus::detail::cats
