// What each traced moment of the scheduler becomes in the worker's log
// (recorder.hpp). All of it runs on the worker the log belongs to.
#include "trace/events.hpp"

#include "locus/detail/frame.hpp"
#include "trace/recorder.hpp"

#include <initializer_list>
#include <utility>

namespace locus::detail {

bool g_tracing = false;

namespace trace {
namespace {

worker_log& log_of(traced_worker& w) { return *w.trace_log; }

void put_counter(worker_log& L, const char* name, std::uint64_t ts, const std::int64_t (&v)[4]) {
  if (record* r = L.next()) {
    *r = {};
    r->type = record_type::counter;
    r->ts = ts;
    r->name = name;
    for (int i = 0; i < 4; ++i) r->v[i] = v[i];
    r->worker = L.worker;
    r->other = -1;
  }
}

// Failed steal attempts since the last flush, drawn as a step over the
// interval they happened in (one event per interval, not one per attempt).
void flush_failed(traced_worker& w, worker_log& L, std::uint64_t now) {
  const std::uint64_t attempts = w.steal_attempts->read();
  const std::uint64_t steals = w.steals->read();
  const auto failed = static_cast<std::int64_t>(attempts - L.attempts_base) -
                      static_cast<std::int64_t>(steals - L.steals_base);
  if (failed > 0) {
    put_counter(L, "failed steals", L.search_ts, {failed, 0, 0, 0});
    put_counter(L, "failed steals", now, {0, 0, 0, 0});
  }
  L.attempts_base = attempts;
  L.steals_base = steals;
  L.search_ts = now;
}

// Memory accesses by level during the run of work that ends now (engines
// that count them), as a step over that run.
void flush_accesses(worker_log& L, std::uint64_t now) {
  if (!L.run_open) return;
  L.run_open = false;
  std::uint64_t served[4];
  if (!L.rec->read_accesses(L.worker, served)) return;
  std::int64_t delta[4];
  bool any = false;
  for (int i = 0; i < 4; ++i) {
    delta[i] = static_cast<std::int64_t>(served[i] - L.served_base[i]);
    any = any || delta[i] != 0;
  }
  if (!any) return;
  put_counter(L, "accesses", L.run_ts, {delta[0], delta[1], delta[2], delta[3]});
  put_counter(L, "accesses", now, {0, 0, 0, 0});
}

void close_to(worker_log& L, int depth, std::uint64_t now) {
  while (L.depth > depth) {
    --L.depth;
    if (L.depth >= max_open_slices) continue;
    const open_slice& s = L.open[L.depth];
    if (record* r = L.next()) {
      r->type = record_type::slice;
      r->kind = s.kind;
      r->ts = s.ts;
      r->dur = now > s.ts ? now - s.ts : 0;
      r->name = s.name;
      r->v[0] = s.lo;
      r->v[1] = s.hi;
      r->v[2] = s.hint;
      r->v[3] = s.seq;
      r->worker = L.worker;
      r->other = s.from;
    }
  }
}

int open(worker_log& L, std::uint64_t now, slice_kind kind, const char* name, std::int64_t lo, std::int64_t hi,
         std::int64_t hint, std::int32_t from) {
  const int depth = L.depth++;
  if (depth < max_open_slices) L.open[depth] = {now, name, lo, hi, hint, L.seq, from, kind};
  ++L.seq;
  return depth;
}

void start_run(worker_log& L, std::uint64_t now) {
  if (L.run_open) return;
  L.run_open = true;
  L.run_ts = now;
  L.rec->read_accesses(L.worker, L.served_base);
}

// An arrow from worker `from_worker` at from_ts to this worker now.
void arrow(worker_log& L, int from_worker, std::uint64_t from_ts, std::uint64_t now, const char* name) {
  const std::uint64_t id = (static_cast<std::uint64_t>(L.worker) << 40) | ++L.flows;
  // The arrow's two ends, one record each, tied by the flow id.
  for (const auto& [type, ts] : {std::pair{record_type::flow_out, from_ts}, std::pair{record_type::flow_in, now}}) {
    if (record* r = L.next()) {
      *r = {};
      r->type = type;
      r->ts = ts;
      r->dur = id;
      r->name = name;
      r->worker = L.worker;
      r->other = from_worker;
    }
  }
}

}  // namespace

std::uint64_t now(traced_worker& w) { return log_of(w).rec->now(); }

void enter_scheduler(traced_worker& w) {
  worker_log& L = log_of(w);
  const std::uint64_t t = L.rec->now();
  close_to(L, 0, t);
  flush_accesses(L, t);
  ++L.run;
}

void search_begin(traced_worker& w) {
  worker_log& L = log_of(w);
  L.search_ts = L.rec->now();
  L.attempts_base = w.steal_attempts->read();
  L.steals_base = w.steals->read();
  L.victim = -1;
}

void steal_attempt(traced_worker& w, int victim) {
  worker_log& L = log_of(w);
  L.victim = victim;
  L.victim_ts = w.attempt_start_ns - L.rec->origin();
}

void search_end(traced_worker& w, found_by where) {
  worker_log& L = log_of(w);
  flush_failed(w, L, L.rec->now());
  L.found = static_cast<std::uint8_t>(where);
}

void frame_begin(traced_worker& w, const frame& f) {
  worker_log& L = log_of(w);
  const std::uint64_t t = L.rec->now();
  const auto where = static_cast<found_by>(L.found);
  L.found = static_cast<std::uint8_t>(found_by::here);
  const bool job = f.kind == frame_kind::job;
  slice_kind kind = job ? slice_kind::queued : slice_kind::resumed;
  switch (where) {
    case found_by::steal: kind = slice_kind::stolen; break;
    case found_by::roots: kind = slice_kind::root; break;
    case found_by::posted: kind = slice_kind::posted; break;
    default: break;
  }
  std::int32_t from = -1;
  if (kind == slice_kind::stolen && L.victim >= 0) {
    from = L.victim;
    arrow(L, L.victim, L.victim_ts, t, "steal");
  }
  start_run(L, t);
  open(L, t, kind, nullptr, 0, 0, f.ctx.place, from);
}

void slept(traced_worker& w, std::uint64_t since) {
  worker_log& L = log_of(w);
  const std::uint64_t t = L.rec->now();
  if (record* r = L.next()) {
    *r = {};
    r->type = record_type::slice;
    r->kind = slice_kind::sleep;
    r->ts = since;
    r->dur = t > since ? t - since : 0;
    r->v[2] = any_place;
    r->v[3] = -1;
    r->worker = L.worker;
    r->other = -1;
  }
  L.search_ts = t;  // failed attempts before the sleep were flushed by it
}

void named(traced_worker& w, const char* name, int other) {
  worker_log& L = log_of(w);
  if (record* r = L.next()) {
    *r = {};
    r->type = record_type::instant;
    r->ts = L.rec->now();
    r->name = name;
    r->worker = L.worker;
    r->other = other;
  }
}

void woke(int sleeper) {
  worker_view* v = current_worker();
  if (v == nullptr || !(v->hooks & hook_trace)) return;
  named(traced(*v), "wake", sleeper);
}

void before_sleep(traced_worker& w) { flush_failed(w, log_of(w), log_of(w).rec->now()); }

}  // namespace trace

// ------------------------------------------------ the inline constructs' calls

trace_token trace_begin(slice_kind kind, const char* name, std::int64_t lo, std::int64_t hi,
                        const spawn_origin& from) noexcept {
  worker_view* v = current_worker();
  if (v == nullptr || !(v->hooks & hook_trace)) return {};
  trace::worker_log& L = *trace::traced(*v).trace_log;
  const std::uint64_t t = L.rec->now();
  std::int32_t origin = -1;
  // Started away from where it was created: the arrow from the spawn.
  if (from.worker >= 0 && from.worker != v->id) {
    origin = from.worker;
    trace::arrow(L, from.worker, from.ts, t, "spawn");
  }
  trace::start_run(L, t);
  const int depth = trace::open(L, t, kind, name, lo, hi, v->ctx.place, origin);
  return {v, L.run, depth};
}

void trace_end(const trace_token& t) noexcept {
  if (t.w == nullptr || current_worker() != t.w) return;
  trace::worker_log& L = *trace::traced(*t.w).trace_log;
  if (L.run != t.run || L.depth <= t.depth) return;
  trace::close_to(L, t.depth, L.rec->now());
}

spawn_origin trace_spawn_point() noexcept {
  worker_view* v = current_worker();
  if (v == nullptr || !(v->hooks & hook_trace)) return {};
  return {v->id, trace::traced(*v).trace_log->rec->now()};
}

}  // namespace locus::detail
