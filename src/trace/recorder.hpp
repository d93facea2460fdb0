// The trace recorder (LOCUS_TRACE, docs/observability.md): per-worker
// buffers of fixed-size records, written without locks by the worker that
// owns them, and turned into Chrome trace-event JSON when the pool stops.
//
// Contract. Worker w's log is written only by w's thread (or, under the
// simulator, while w is the virtual worker running). An event about another
// worker (the victim end of a steal's arrow) is written by the worker that
// saw it into its own log, carrying the other worker's id. The logs are
// read once, by the thread that stops the pool, after every worker has
// returned (engine::join_workers orders their writes before the read).
//
// Size. Every record has a bound on the JSON it becomes (record_json_bound).
// A worker reserves that bound for a whole chunk from one shared atomic
// before it fills the chunk; a reservation that would pass LOCUS_TRACE_MAX
// stops recording for everyone. So the file never exceeds the limit (plus a
// fixed header and footer), and the stop is said in the file and on stderr.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "locus/detail/trace_hooks.hpp"

namespace locus::detail {
class engine;
struct placement;
}

namespace locus::detail::trace {

enum class record_type : std::uint8_t {
  slice,     // a complete event: ts, dur
  instant,   // a named event (pushes, deposits, wake-ups, a policy's own)
  flow_out,  // the start of an arrow, on worker `other` at ts
  flow_in,   // its end, on this record's worker at ts
  counter,   // values v[0..3] from ts on
};

struct record {
  std::uint64_t ts;   // ns since the trace began, by the engine's clock
  std::uint64_t dur;  // slice: ns; flow: the arrow's id
  const char* name;   // static storage (a kind, a label, a policy's literal)
  std::int64_t v[4];  // by type: slice lo, hi, hint, seq; instant: other worker; counter: values
  std::int32_t worker;
  std::int32_t other;  // flow_out: whose track the arrow starts on; instant/slice: related worker or -1
  record_type type;
  slice_kind kind;
};

// Upper bound of one record's JSON, names cut to max_name_chars.
inline constexpr std::size_t max_name_chars = 64;
inline constexpr std::size_t record_json_bound = 448;
inline constexpr std::size_t chunk_records = 1024;
inline constexpr int max_open_slices = 128;  // deeper nesting is not drawn, but counted

struct open_slice {
  std::uint64_t ts;
  const char* name;
  std::int64_t lo, hi, hint, seq;
  std::int32_t from;  // spawning worker when it ran elsewhere, or -1
  slice_kind kind;
};

class recorder;

// One worker's log and its tracing state. Owner-only.
struct worker_log {
  recorder* rec = nullptr;
  int worker = 0;
  std::vector<std::unique_ptr<record[]>> chunks;
  std::size_t used = chunk_records;  // in the last chunk; full: the next record takes a new one

  open_slice open[max_open_slices];
  int depth = 0;          // open slices, including those too deep to keep
  std::uint32_t run = 1;  // bumped each time the worker goes back to the scheduler
  std::int64_t seq = 0;   // slices begun, in order: the order tasks started here

  // The search for work in progress (failed steal attempts per interval).
  std::uint64_t search_ts = 0, attempts_base = 0, steals_base = 0;
  int victim = -1;            // of the last steal attempt
  std::uint64_t victim_ts = 0;
  std::uint8_t found = 0;     // found_at of the frame about to run
  // Memory accesses by level at the start of the current run of work
  // (engines that count them: the simulator).
  std::uint64_t run_ts = 0;
  std::uint64_t served_base[4] = {};
  bool run_open = false;
  std::uint64_t flows = 0;

  // A fresh record, or nullptr once recording has stopped.
  record* next();
};

class recorder {
 public:
  recorder(std::string path, std::size_t max_bytes, int workers, engine& eng, const placement& places,
           std::string policy);
  ~recorder();
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  worker_log& log(int worker) { return logs_[static_cast<std::size_t>(worker)]; }
  // ns since the trace began, by the engine's clock (virtual under the simulator).
  std::uint64_t now() const;
  std::uint64_t origin() const { return origin_ns_; }
  // Worker's memory accesses so far by level (local cache, remote cache,
  // local DRAM, remote DRAM); false when the engine counts none.
  bool read_accesses(int worker, std::uint64_t (&out)[4]) const;
  engine& eng() const { return *eng_; }
  int place_of(int worker) const;
  int distance(int worker_a, int worker_b) const;
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

  // Reserves room for one more chunk; false (and recording stops) past the limit.
  bool reserve_chunk(int worker);
  // Closes what is still open and writes the file (after the workers stopped).
  void finish();

 private:
  void write(std::FILE* out);
  std::string path_;
  std::size_t max_bytes_;
  engine* eng_;
  const placement* places_;
  std::string policy_;
  std::uint64_t origin_ns_;
  // Where each engine counter goes among the four levels (-1: nowhere).
  std::vector<int> level_of_counter_;
  std::vector<worker_log> logs_;
  std::atomic<std::uint64_t> reserved_{0};
  std::atomic<bool> stopped_{false};
  std::uint64_t stopped_at_ = 0;
  int stopped_by_ = -1;
  bool finished_ = false;
};

}  // namespace locus::detail::trace
