// Counter snapshots, reset (by a baseline kept in the pool, so that only
// workers write counters), and their readable and JSON forms.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sstream>

#include "core/runtime_state.hpp"
#include "locus/stats.hpp"
#include "util/json_string.hpp"

namespace locus {
namespace {

// The fixed counters of worker_stats, by name, for arithmetic on every one
// of them and for their JSON form.
constexpr std::pair<const char*, std::uint64_t worker_stats::*> counters[] = {
    {"spawns", &worker_stats::spawns},
    {"steal_attempts", &worker_stats::steal_attempts},
    {"steals", &worker_stats::steals},
    {"suspends", &worker_stats::suspends},
    {"resumes", &worker_stats::resumes},
    {"sleeps", &worker_stats::sleeps},
    {"at_hinted_place", &worker_stats::at_hinted_place},
    {"off_hinted_place", &worker_stats::off_hinted_place},
    {"arena_moves", &worker_stats::arena_moves},
    {"arena_forwards", &worker_stats::arena_forwards}};

// a += b (sign +1) or a -= b (sign -1), by name.
void combine(std::vector<named_count>& a, const std::vector<named_count>& b, int sign) {
  for (const auto& c : b) {
    auto it = std::find_if(a.begin(), a.end(), [&](const named_count& x) { return x.name == c.name; });
    if (it == a.end()) it = a.insert(a.end(), named_count{c.name, 0});
    it->value = sign > 0 ? it->value + c.value : it->value - c.value;
  }
}
constexpr double worker_stats::* times[] = {&worker_stats::work_s, &worker_stats::sched_s, &worker_stats::idle_s};

std::vector<worker_stats> snapshot_now(detail::runtime_state& rt) {
  std::vector<worker_stats> out;
  const auto& policy_counter_names = detail::find_policy(rt.cfg.policy)->counters;
  const std::vector<std::string> engine_counter_names = rt.eng->counter_names();
  std::vector<std::uint64_t> engine_values;
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
    s.at_hinted_place = w.counters.at_hinted_place.read();
    s.off_hinted_place = w.counters.off_hinted_place.read();
    s.arena_moves = w.counters.arena_moves.read();
    s.arena_forwards = w.counters.arena_forwards.read();
    for (std::size_t i = 0; i < policy_counter_names.size(); ++i)
      s.policy_counters.push_back({policy_counter_names[i], w.counters.policy[i].read()});
    engine_values.assign(engine_counter_names.size(), 0);
    rt.eng->read_counters(w.id, engine_values.data());
    for (std::size_t i = 0; i < engine_counter_names.size(); ++i)
      s.engine_counters.push_back({engine_counter_names[i], engine_values[i]});
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
  for (auto [name, field] : counters) d.*field -= b.*field;
  combine(d.policy_counters, b.policy_counters, -1);
  combine(d.engine_counters, b.engine_counters, -1);
  return d;
}


// One flat object: the fixed fields, then the policy's and the engine's
// counters under their own names.
void json_fields(std::ostringstream& o, const worker_stats& s) {
  o << "\"worker\":" << s.worker << ",\"place\":" << s.place << ",\"work_s\":" << s.work_s
    << ",\"sched_s\":" << s.sched_s << ",\"idle_s\":" << s.idle_s;
  for (auto [name, field] : counters) o << ",\"" << name << "\":" << s.*field;
  for (const auto& c : s.policy_counters) o << "," << detail::json_string(c.name) << ":" << c.value;
  for (const auto& c : s.engine_counters) o << "," << detail::json_string(c.name) << ":" << c.value;
}

// Under the simulator: line accesses served beyond the accessing core's
// private caches (own L3, remote L3, DRAM) as rows by the worker's place
// and columns by the home node of the line's page, from the engine's
// beyond_private_home_<node> counters; empty without them.
std::vector<std::vector<std::uint64_t>> access_matrix(const std::vector<worker_stats>& workers) {
  static constexpr std::string_view prefix = "beyond_private_home_";
  const auto home_of = [](const named_count& c) -> long {
    return c.name.compare(0, prefix.size(), prefix) == 0 ? std::stol(c.name.substr(prefix.size())) : -1;
  };
  long places = 0, nodes = 0;
  for (const auto& w : workers)
    for (const auto& c : w.engine_counters)
      if (const long node = home_of(c); node >= 0 && w.place >= 0) {
        places = std::max<long>(places, w.place + 1);
        nodes = std::max(nodes, node + 1);
      }
  std::vector<std::vector<std::uint64_t>> m(static_cast<std::size_t>(places),
                                            std::vector<std::uint64_t>(static_cast<std::size_t>(nodes), 0));
  for (const auto& w : workers)
    for (const auto& c : w.engine_counters)
      if (const long node = home_of(c); node >= 0 && w.place >= 0)
        m[static_cast<std::size_t>(w.place)][static_cast<std::size_t>(node)] += c.value;
  return m;
}

}  // namespace

worker_stats& worker_stats::operator+=(const worker_stats& other) {
  for (auto field : times) this->*field += other.*field;
  for (auto [name, field] : counters) this->*field += other.*field;
  combine(policy_counters, other.policy_counters, +1);
  combine(engine_counters, other.engine_counters, +1);
  return *this;
}

std::uint64_t worker_stats::counter(std::string_view name) const {
  for (auto [n, field] : counters)
    if (name == n) return this->*field;
  for (const auto* list : {&policy_counters, &engine_counters})
    for (const auto& c : *list)
      if (c.name == name) return c.value;
  std::string known;
  for (auto [n, field] : counters) known += std::string(known.empty() ? "" : ", ") + n;
  for (const auto* list : {&policy_counters, &engine_counters})
    for (const auto& c : *list) known += ", " + c.name;
  throw std::out_of_range("locus::worker_stats::counter(\"" + std::string(name) +
                          "\"): no such counter for this policy and engine; counters: " + known);
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
  // What the table covers: the elapsed time the counters were taken over
  // (simulated time under the simulator), then one row per worker and the
  // totals over them.
  std::snprintf(line, sizeof line, "locus stats: %zu workers, %.4f s %s (work, scheduling and idle time per worker)\n",
                workers.size(), elapsed_s, simulated ? "simulated" : "elapsed");
  o << line;
  std::snprintf(line, sizeof line, "%6s %5s %9s %9s %9s %12s %10s %8s %8s %8s %7s\n", "worker", "place",
                "work_s", "sched_s", "idle_s", "spawns", "attempts", "steals", "suspends", "resumes",
                "sleeps");
  // The policy's counters, one column each, after the fixed ones.
  std::string header(line);
  header.pop_back();
  if (!workers.empty())
    for (const auto& c : workers.front().policy_counters)
      header += " " + std::string(c.name.size() < 10 ? 10 - c.name.size() : 0, ' ') + c.name;
  o << header << '\n';
  auto row = [&](const worker_stats& s, const char* label) {
    char id[16], place[16];
    if (label != nullptr) std::snprintf(id, sizeof id, "%s", label);
    else std::snprintf(id, sizeof id, "%d", s.worker);
    // The totals row spans every place.
    if (label != nullptr) std::snprintf(place, sizeof place, "all");
    else std::snprintf(place, sizeof place, "%d", s.place);
    std::snprintf(line, sizeof line, "%6s %5s %9.4f %9.4f %9.4f %12llu %10llu %8llu %8llu %8llu %7llu\n", id,
                  place, s.work_s, s.sched_s, s.idle_s, static_cast<unsigned long long>(s.spawns),
                  static_cast<unsigned long long>(s.steal_attempts), static_cast<unsigned long long>(s.steals),
                  static_cast<unsigned long long>(s.suspends), static_cast<unsigned long long>(s.resumes),
                  static_cast<unsigned long long>(s.sleeps));
    std::string text(line);
    text.pop_back();
    for (const auto& c : s.policy_counters) {
      std::snprintf(line, sizeof line, " %*llu", static_cast<int>(std::max<std::size_t>(10, c.name.size())),
                    static_cast<unsigned long long>(c.value));
      text += line;
    }
    o << text << '\n';
  };
  for (const auto& s : workers) row(s, nullptr);
  row(total(), "total");
  if (span_measured) {
    std::snprintf(line, sizeof line,
                  "work and span (LOCUS_SPAN, %llu roots): work %.6f s, span %.6f s, parallelism %.2f; "
                  "burdened span %.6f s, burdened parallelism %.2f\n",
                  static_cast<unsigned long long>(span_roots), work_s, span_s, parallelism(), burdened_span_s,
                  burdened_parallelism());
    o << line;
  }
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
  o << '}';
  if (const auto matrix = access_matrix(workers); !matrix.empty()) {
    o << ",\"access_matrix\":[";
    for (std::size_t place = 0; place < matrix.size(); ++place) {
      o << (place ? ",[" : "[");
      for (std::size_t node = 0; node < matrix[place].size(); ++node) o << (node ? "," : "") << matrix[place][node];
      o << ']';
    }
    o << ']';
  }
  if (span_measured)
    o << ",\"span\":{\"work_s\":" << work_s << ",\"span_s\":" << span_s << ",\"burdened_span_s\":" << burdened_span_s
      << ",\"parallelism\":" << parallelism() << ",\"burdened_parallelism\":" << burdened_parallelism()
      << ",\"roots\":" << span_roots << '}';
  o << '}';
  return o.str();
}

stats get_stats() {
  detail::runtime_state& rt = detail::pool();
  stats out;
  std::uint64_t busy = 0;
  out.workers = raw_snapshot(rt, busy);
  out.simulated = rt.cfg.simulate;
  out.block_bytes = rt.eng->access_unit_bytes();
  std::lock_guard lock(rt.baseline.mutex);
  const bool since_reset = rt.baseline.workers.size() == out.workers.size();
  if (since_reset)
    for (std::size_t i = 0; i < out.workers.size(); ++i)
      out.workers[i] = minus(out.workers[i], rt.baseline.workers[i]);
  out.elapsed_s = static_cast<double>(busy - (since_reset ? rt.baseline.busy_ns : 0)) * 1e-9;
  out.span_measured = rt.cfg.span;
  const auto& totals = rt.span;
  out.work_s = static_cast<double>(totals.work_ns.load() - rt.baseline.span_work_ns) * 1e-9;
  out.span_s = static_cast<double>(totals.span_ns.load() - rt.baseline.span_ns) * 1e-9;
  out.burdened_span_s = static_cast<double>(totals.burdened_ns.load() - rt.baseline.span_burdened_ns) * 1e-9;
  out.span_roots = totals.roots.load() - rt.baseline.span_roots;
  return out;
}

void reset_stats() {
  detail::runtime_state& rt = detail::pool();
  std::lock_guard lock(rt.baseline.mutex);
  rt.baseline.workers = raw_snapshot(rt, rt.baseline.busy_ns);
  rt.baseline.span_work_ns = rt.span.work_ns.load();
  rt.baseline.span_ns = rt.span.span_ns.load();
  rt.baseline.span_burdened_ns = rt.span.burdened_ns.load();
  rt.baseline.span_roots = rt.span.roots.load();
}

}  // namespace locus
