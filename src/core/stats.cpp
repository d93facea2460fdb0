// Counter snapshots, reset (by baseline, so only workers write counters),
// and their readable and JSON forms.
#include <cstdio>
#include <mutex>
#include <sstream>

#include "core/runtime_state.hpp"
#include "engine/sim_engine.hpp"
#include "locus/stats.hpp"

namespace locus {
namespace {

std::mutex g_baseline_mutex;
std::vector<worker_stats> g_baseline;
const void* g_baseline_pool = nullptr;

// The counters of worker_stats, for arithmetic on every one of them.
constexpr std::uint64_t worker_stats::* counters[] = {
    &worker_stats::spawns,        &worker_stats::steal_attempts, &worker_stats::steals,
    &worker_stats::suspends,      &worker_stats::resumes,        &worker_stats::sleeps,
    &worker_stats::mailbox_hits,  &worker_stats::pushes,         &worker_stats::push_attempts,
    &worker_stats::at_hinted_place, &worker_stats::off_hinted_place, &worker_stats::l1_hits,
    &worker_stats::l2_hits,       &worker_stats::l3_hits,        &worker_stats::remote_l3_hits,
    &worker_stats::local_dram,    &worker_stats::remote_dram};
constexpr double worker_stats::* times[] = {&worker_stats::work_s, &worker_stats::sched_s, &worker_stats::idle_s};

std::uint64_t g_baseline_busy_ns = 0;

std::vector<worker_stats> snapshot_now(detail::runtime_state& rt) {
  std::vector<worker_stats> out;
  const std::uint64_t now = rt.eng->now_ns();
  for (auto& wp : rt.workers) {
    const detail::worker& w = *wp;
    worker_stats s;
    s.worker = w.id;
    s.place = w.place;
    double t[3];
    for (int a = 0; a < 3; ++a) t[a] = static_cast<double>(w.counters.time_ns[a].load(std::memory_order_relaxed));
    // Add the interval the worker is in now.
    const auto act = w.published_activity.load(std::memory_order_relaxed);
    const std::uint64_t since = w.published_since_ns.load(std::memory_order_relaxed);
    if (since != 0 && now > since && act < 3) t[act] += static_cast<double>(now - since);
    s.work_s = t[0] * 1e-9;
    s.sched_s = t[1] * 1e-9;
    s.idle_s = t[2] * 1e-9;
    s.spawns = w.spawns.read();
    s.steal_attempts = w.counters.steal_attempts.read();
    s.steals = w.counters.steals.read();
    s.suspends = w.counters.suspends.read();
    s.resumes = w.counters.resumes.read();
    s.sleeps = w.counters.sleeps.read();
    s.mailbox_hits = w.counters.mailbox_hits.read();
    s.pushes = w.counters.pushes.read();
    s.push_attempts = w.counters.push_attempts.read();
    s.at_hinted_place = w.counters.at_hinted_place.read();
    s.off_hinted_place = w.counters.off_hinted_place.read();
    std::uint64_t served[6];
    if (rt.eng->memory_accesses(w.id, served)) {
      s.l1_hits = served[0];
      s.l2_hits = served[1];
      s.l3_hits = served[2];
      s.remote_l3_hits = served[3];
      s.local_dram = served[4];
      s.remote_dram = served[5];
    }
    out.push_back(s);
  }
  return out;
}

// The simulator takes the snapshot when every worker sleeps, so that it is
// the same every run; the threaded engine takes it at once.
std::vector<worker_stats> raw_snapshot(detail::runtime_state& rt, std::uint64_t& busy) {
  std::vector<worker_stats> out;
  rt.eng->run_from_outside([&] {
    out = snapshot_now(rt);
    busy = detail::busy_ns(rt);
  });
  return out;
}

worker_stats minus(const worker_stats& a, const worker_stats& b) {
  worker_stats d = a;
  for (auto field : times) d.*field -= b.*field;
  for (auto field : counters) d.*field -= b.*field;
  return d;
}


void json_fields(std::ostringstream& o, const worker_stats& s) {
  o << "\"worker\":" << s.worker << ",\"place\":" << s.place << ",\"work_s\":" << s.work_s
    << ",\"sched_s\":" << s.sched_s << ",\"idle_s\":" << s.idle_s << ",\"spawns\":" << s.spawns
    << ",\"steal_attempts\":" << s.steal_attempts << ",\"steals\":" << s.steals << ",\"suspends\":" << s.suspends
    << ",\"resumes\":" << s.resumes << ",\"sleeps\":" << s.sleeps << ",\"mailbox_hits\":" << s.mailbox_hits
    << ",\"pushes\":" << s.pushes << ",\"push_attempts\":" << s.push_attempts
    << ",\"at_hinted_place\":" << s.at_hinted_place << ",\"off_hinted_place\":" << s.off_hinted_place
    << ",\"l1_hits\":" << s.l1_hits << ",\"l2_hits\":" << s.l2_hits
    << ",\"l3_hits\":" << s.l3_hits << ",\"remote_l3_hits\":" << s.remote_l3_hits
    << ",\"local_dram\":" << s.local_dram << ",\"remote_dram\":" << s.remote_dram;
}

}  // namespace

worker_stats& worker_stats::operator+=(const worker_stats& other) {
  for (auto field : times) this->*field += other.*field;
  for (auto field : counters) this->*field += other.*field;
  return *this;
}

worker_stats stats::total() const {
  worker_stats t;
  t.worker = -1;
  t.place = -1;
  for (const auto& s : workers) t += s;
  return t;
}

std::string stats::summary() const {
  std::ostringstream o;
  char line[256];
  std::snprintf(line, sizeof line, "%6s %5s %9s %9s %9s %12s %10s %8s %8s %8s %7s\n", "worker", "place",
                "work_s", "sched_s", "idle_s", "spawns", "attempts", "steals", "suspends", "resumes",
                "sleeps");
  o << line;
  auto row = [&](const worker_stats& s, const char* label) {
    char id[16];
    if (label != nullptr) std::snprintf(id, sizeof id, "%s", label);
    else std::snprintf(id, sizeof id, "%d", s.worker);
    std::snprintf(line, sizeof line, "%6s %5d %9.4f %9.4f %9.4f %12llu %10llu %8llu %8llu %8llu %7llu\n", id,
                  s.place, s.work_s, s.sched_s, s.idle_s, static_cast<unsigned long long>(s.spawns),
                  static_cast<unsigned long long>(s.steal_attempts), static_cast<unsigned long long>(s.steals),
                  static_cast<unsigned long long>(s.suspends), static_cast<unsigned long long>(s.resumes),
                  static_cast<unsigned long long>(s.sleeps));
    o << line;
  };
  for (const auto& s : workers) row(s, nullptr);
  row(total(), "total");
  return o.str();
}

std::string stats::to_json() const {
  std::ostringstream o;
  o << "{\"elapsed_s\":" << elapsed_s << ",\"simulated\":" << (simulated ? "true" : "false") << ",\"block_bytes\":" << block_bytes << ",\"workers\":[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    o << (i ? ",{" : "{");
    json_fields(o, workers[i]);
    o << '}';
  }
  o << "],\"total\":{";
  json_fields(o, total());
  o << "}}";
  return o.str();
}

stats get_stats() {
  detail::runtime_state& rt = detail::pool();
  stats out;
  std::uint64_t busy = 0;
  out.workers = raw_snapshot(rt, busy);
  out.simulated = rt.cfg.simulate;
  if (out.simulated) out.block_bytes = static_cast<detail::sim_engine&>(*rt.eng).block_bytes();
  std::lock_guard lock(g_baseline_mutex);
  const bool since_reset = g_baseline_pool == &rt && g_baseline.size() == out.workers.size();
  if (since_reset)
    for (std::size_t i = 0; i < out.workers.size(); ++i) out.workers[i] = minus(out.workers[i], g_baseline[i]);
  out.elapsed_s = static_cast<double>(busy - (since_reset ? g_baseline_busy_ns : 0)) * 1e-9;
  return out;
}

void reset_stats() {
  detail::runtime_state& rt = detail::pool();
  std::lock_guard lock(g_baseline_mutex);
  g_baseline = raw_snapshot(rt, g_baseline_busy_ns);
  g_baseline_pool = &rt;
}

}  // namespace locus
