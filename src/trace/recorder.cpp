// The recorder's buffers and its size limit (recorder.hpp).
#include "trace/recorder.hpp"

#include <cstdio>

#include "engine/engine.hpp"
#include "topology/topology.hpp"

namespace locus::detail::trace {

namespace {
// The header, metadata and footer of the file, reserved up front so that
// the whole file stays within the limit.
std::size_t fixed_bytes(int workers, int places) {
  return 4096 + static_cast<std::size_t>(workers) * 256 + static_cast<std::size_t>(places) * (256 + 8 * places);
}
}  // namespace

record* worker_log::next() {
  if (rec->stopped()) [[unlikely]] return nullptr;
  if (used == chunk_records) [[unlikely]] {
    if (!rec->reserve_chunk(worker)) return nullptr;
    chunks.emplace_back(new record[chunk_records]);
    used = 0;
  }
  return &chunks.back()[used++];
}

recorder::recorder(std::string path, std::size_t max_bytes, int workers, engine& eng, const placement& places,
                   std::string policy)
    : path_(std::move(path)),
      max_bytes_(max_bytes),
      eng_(&eng),
      places_(&places),
      policy_(std::move(policy)),
      origin_ns_(eng.now_ns()),
      logs_(static_cast<std::size_t>(workers)) {
  for (int i = 0; i < workers; ++i) {
    logs_[static_cast<std::size_t>(i)].rec = this;
    logs_[static_cast<std::size_t>(i)].worker = i;
  }
  reserved_.store(fixed_bytes(workers, places.num_places), std::memory_order_relaxed);
  // The simulator's levels (engine.hpp, counter_names): hits in this
  // worker's caches or its socket's L3 are local, another socket's L3
  // remote; DRAM by the home of the page.
  for (const std::string& name : eng.counter_names()) {
    const bool remote = name.rfind("remote", 0) == 0;
    const bool dram = name.find("dram") != std::string::npos;
    const bool cache = name.find("hits") != std::string::npos;
    level_of_counter_.push_back(dram ? (remote ? 3 : 2) : cache ? (remote ? 1 : 0) : -1);
  }
}

recorder::~recorder() = default;

std::uint64_t recorder::now() const {
  const std::uint64_t t = eng_->now_ns();
  return t > origin_ns_ ? t - origin_ns_ : 0;
}

int recorder::place_of(int worker) const {
  return places_->worker_place[static_cast<std::size_t>(worker)];
}

int recorder::distance(int a, int b) const {
  const auto pa = static_cast<std::size_t>(place_of(a));
  const auto pb = static_cast<std::size_t>(place_of(b));
  if (pa >= places_->place_distance.size() || pb >= places_->place_distance[pa].size()) return pa == pb ? 10 : 20;
  return places_->place_distance[pa][pb];
}

bool recorder::read_accesses(int worker, std::uint64_t (&out)[4]) const {
  if (level_of_counter_.empty()) return false;
  std::uint64_t values[32] = {};
  if (level_of_counter_.size() > 32) return false;
  eng_->read_counters(worker, values);
  for (auto& o : out) o = 0;
  for (std::size_t i = 0; i < level_of_counter_.size(); ++i)
    if (level_of_counter_[i] >= 0) out[level_of_counter_[i]] += values[i];
  return true;
}

bool recorder::reserve_chunk(int worker) {
  const std::uint64_t chunk = chunk_records * record_json_bound;
  const std::uint64_t before = reserved_.fetch_add(chunk, std::memory_order_relaxed);
  if (before + chunk <= max_bytes_) return true;
  if (!stopped_.exchange(true, std::memory_order_relaxed)) {
    // The first worker to hit the limit says so; the others just stop.
    stopped_at_ = now();
    stopped_by_ = worker;
    std::fprintf(stderr,
                 "locus: trace size limit reached (LOCUS_TRACE_MAX=%zu bytes) at %.3f ms: recording stops "
                 "here and %s says so; raise LOCUS_TRACE_MAX (or runtime_options::trace_max) for more\n",
                 max_bytes_, static_cast<double>(stopped_at_) * 1e-6, path_.c_str());
  }
  return false;
}

void recorder::finish() {
  if (finished_) return;
  finished_ = true;
  std::FILE* out = std::fopen(path_.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "locus: LOCUS_TRACE=\"%s\": cannot write this file; no trace written\n", path_.c_str());
    return;
  }
  write(out);
  if (std::fclose(out) != 0)
    std::fprintf(stderr, "locus: LOCUS_TRACE=\"%s\": writing the trace failed (disk full?)\n", path_.c_str());
}

}  // namespace locus::detail::trace
