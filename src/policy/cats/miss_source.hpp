// Where CATS's private-cache misses come from (section 3.2.1), in order of
// preference:
//   simulator  the simulator's per-worker counts (LOCUS_ENGINE=sim): every
//              access served beyond the private caches (L3, a remote L3,
//              DRAM), in the simulator's unit of access;
//   perf       the kernel's hardware counters through perf_event_open: the
//              generic PERF_COUNT_HW_CACHE_MISSES event of each worker's
//              thread (the last-level cache on most CPUs: the paper's
//              private L2 event, 07Eh/02h on the Opteron 8380, has no
//              generic name), counted in cache lines;
//   declared   neither works (no PMU, as in most VMs, or perf_event_paranoid
//              forbids it): the bytes the tasks declare with locus::touch
//              and touch_indexed (engine/declared_bytes.hpp), each byte
//              taken as missed (the paper's own approximation: leaf tasks
//              share little data), counted in 64-byte lines. A program
//              that declares nothing looks CPU-bound and runs as plain
//              work stealing. Under the simulator (asked for by name):
//              every line the tasks touch, wherever it was served.
//   perf is refused under the simulator (it would count the simulator).
//   none       only when asked: CATS schedules as plain work stealing.
// The counters profiled_simulator, profiled_perf and profiled_declared say
// which source a run used; nothing is made up.
// A worker reads only its own count, on its own thread.
#pragma once

#include <atomic>
#include <cstdint>
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

class miss_source {
 public:
  // `wanted`: "auto" (the first that works), "simulator", "perf",
  // "declared" or "none".
  // Throws config_error when a named source cannot be used here.
  miss_source(engine& eng, int workers, const std::string& wanted);
  ~miss_source();
  miss_source(const miss_source&) = delete;
  miss_source& operator=(const miss_source&) = delete;

  source_kind kind() const { return kind_; }
  // Why perf could not be used (empty if it was not tried or works).
  const std::string& perf_error() const { return perf_error_; }
  std::uint64_t bytes_per_miss() const { return unit_; }
  // Worker w's misses so far (any fixed origin); on w's thread only.
  std::uint64_t read(int w);
  // Whether misses are wanted now (only while profiling). Declared bytes
  // are counted only then, so touch() costs one load the rest of the run.
  void measuring(bool on);

 private:
  // declared on threads: the per-thread byte counts of engine/declared_bytes.hpp.
  bool counts_declared_bytes() const;
  // Opens a counter for the calling thread; -1 and perf_error_ if it cannot.
  int open_perf();

  engine* eng_;
  source_kind kind_ = source_kind::none;
  std::uint64_t unit_ = 64;
  std::vector<int> counted_;                  // simulator: the counters read (empty on threads)
  std::vector<std::vector<std::uint64_t>> buffers_;  // simulator: per worker
  std::vector<int> fds_;                      // perf: per worker, -2 until opened
  std::string perf_error_;
  std::atomic<bool> measuring_{true};
};

}  // namespace locus::detail::cats
