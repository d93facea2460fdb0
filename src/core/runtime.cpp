// Starting and stopping the pool, and the public queries.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/fences.hpp"
#include "core/join.hpp"
#include "core/poll_services.hpp"
#include "core/runtime_state.hpp"
#include "fiber/sanitizers.hpp"
#include "locus/hints.hpp"
#include "memory/pool_view.hpp"
#include "locus/place.hpp"
#include "locus/runtime.hpp"
#include "locus/stats.hpp"

namespace locus {
namespace detail {
namespace {

std::mutex g_start_mutex;
std::atomic<runtime_state*> g_pool{nullptr};
thread_local worker* t_worker = nullptr;

void report_stats_at_exit(const settings& cfg) {
  if (cfg.stats_at_exit.empty()) return;
  const stats s = get_stats();
  if (cfg.stats_at_exit == "summary") {
    std::fputs(s.summary().c_str(), stderr);
  } else if (cfg.stats_at_exit == "json") {
    std::fprintf(stderr, "%s\n", s.to_json().c_str());
  } else {  // json:FILE
    std::ofstream out(cfg.stats_at_exit.substr(5));
    if (out) out << s.to_json() << '\n';
    else std::fprintf(stderr, "locus: LOCUS_STATS=\"%s\": cannot write this file\n", cfg.stats_at_exit.c_str());
  }
}

runtime_state& start_pool_locked(const runtime_options& options) {
  auto* rt = new runtime_state(resolve_settings(options));
  g_pool.store(rt, std::memory_order_release);
  return *rt;
}

void stop_pool() {
  std::lock_guard lock(g_start_mutex);
  runtime_state* rt = g_pool.load(std::memory_order_acquire);
  if (rt == nullptr) return;
  // A task waiting on a poll service (an MPI request) is told before the
  // wait for roots below, which it would otherwise hold up for ever if its
  // message never comes (locus::mpi fails such waits with an error).
  poll_services_pool_stopping();
  // Root tasks still running belong to threads that are waiting for them.
  while (rt->roots_in_flight.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  report_stats_at_exit(rt->cfg);
  delete rt;
  g_pool.store(nullptr, std::memory_order_release);
}

// The implicitly started pool stops at program exit.
struct stop_at_exit {
  ~stop_at_exit() { stop_pool(); }
} g_stop_at_exit;

}  // namespace

[[gnu::noinline]] worker_view* current_worker() noexcept { return t_worker; }
trace::traced_worker& trace::traced(worker_view& w) noexcept { return static_cast<worker&>(w); }
pool_view view_of_pool() {
  runtime_state& rt = pool();
  return {rt.cfg.topo, rt.places};
}
void bind_thread_to_worker(worker* w) noexcept { t_worker = w; }

runtime_state* pool_if_started() noexcept { return g_pool.load(std::memory_order_acquire); }

runtime_state& pool() {
  if (runtime_state* rt = g_pool.load(std::memory_order_acquire)) [[likely]]
    return *rt;
  std::lock_guard lock(g_start_mutex);
  if (runtime_state* rt = g_pool.load(std::memory_order_acquire)) return *rt;
  return start_pool_locked(runtime_options{});
}

namespace {
// The core's per-thread identity, for an engine that runs several workers
// on one thread (engine.hpp, thread_identity_ops).
thread_identity save_thread_identity() noexcept { return {t_worker, running_fiber()}; }
void restore_thread_identity(const thread_identity& id) noexcept {
  t_worker = static_cast<worker*>(id.worker);
  set_running_fiber(id.running);
}

engine_config engine_settings(const settings& cfg) {
  engine_config e;
  if (cfg.simulate) e.simulated_machine = cfg.machine;
  e.sim_block_bytes = cfg.sim_block_bytes;
  e.sim_idle_attempts = cfg.sim_idle_attempts;
  e.seed = cfg.seed;
  e.identity = {&save_thread_identity, &restore_thread_identity};
  return e;
}

// More workers than the cpus the process may use (LOCUS_WORKERS above the
// allowed cores, or a virtual topology larger than them) is allowed; it is
// said once per process, not at every pool start.
void warn_if_oversubscribed(const settings& cfg, const placement& places) {
  if (cfg.simulate) return;
  const std::vector<int> cpus = allowed_os_cpus();
  if (cfg.workers <= static_cast<int>(cpus.size()) && !(cfg.pin && places.pinning_wrapped)) return;
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  const std::string on = cfg.topo.is_virtual ? "virtual topology " + cfg.topo.description : "the host";
  std::fprintf(stderr,
               "locus: %d workers on %s, and this process may use %zu cpus (%s): oversubscribed, %s "
               "(see locus-topo)\n",
               cfg.workers, on.c_str(), cpus.size(), range_list(cpus).c_str(),
               cfg.pin ? "pinning wraps around inside them (LOCUS_PIN=0 turns pinning off)" : "unpinned");
}
}  // namespace

runtime_state::runtime_state(settings s)
    : cfg(std::move(s)),
      places(make_placement(cfg.topo, cfg.places, cfg.workers, placement_cpus(cfg), cfg.pack)),
      eng(make_engine(engine_settings(cfg))),
      fibers(fiber_pool::shared(cfg.stack_bytes, &fiber_main)) {
  if (!cfg.asymmetric_fence || !enable_asymmetric_fence()) use_symmetric_fence();
  // ThreadSanitizer keeps a shadow call stack per fiber and cannot follow a
  // function that is entered on one stack and left on another (the stack
  // call's body), so TSan builds always use the two-switch spawn.
  g_spawn_on_stack = cfg.spawn_on_stack && !sanitizers::thread_sanitizer;
  spin_ns = static_cast<std::uint64_t>(cfg.spin_us) * 1000;
  const policy_entry& entry = *find_policy(cfg.policy);  // resolve_settings checked the name
  // Lanes against host contention on the shared queues: up to 4, one per
  // worker; one under the simulator, whose workers never contend.
  const unsigned lanes = eng->concurrent() ? static_cast<unsigned>(std::clamp(cfg.workers, 1, 4)) : 1;
  arenas.init(places, cfg.arena_max, cfg.shares, entry.isolates_arenas, lanes);
  install_stack_guard(cfg.stack_bytes);
  for (int i = 0; i < cfg.workers; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    workers.push_back(std::make_unique<worker>(*this, i, places.worker_place[idx], fibers));
  }
  build_policy_context(entry);
  policy = entry.make(policy_ctx);
  policy_filters_work = policy->filters_work();
  if (!cfg.trace_path.empty()) {
    trace = std::make_unique<trace::recorder>(cfg.trace_path, cfg.trace_max, cfg.workers, *eng, places, cfg.policy);
    for (auto& w : workers) {
      w->trace_log = &trace->log(w->id);
      w->hooks |= hook_trace;
    }
    g_tracing = true;
  }
  if (cfg.span)
    for (auto& w : workers) w->hooks |= hook_span;
  warn_if_oversubscribed(cfg, places);
  eng->start_workers(places, cfg.pin, [this](int i) { worker_main(*this, i); });
}

void runtime_state::build_policy_context(const policy_entry& entry) {
  for (auto& w : workers) policy_ctx.slots_.push_back({w.get(), &w->rng, w->counters.policy});
  policy_ctx.places_ = &places;
  policy_ctx.topo_ = &cfg.topo;
  policy_ctx.eng_ = eng.get();
  for (const auto& op : entry.costs) policy_ctx.costs_.push_back(eng->declare_cost(op));
  policy_ctx.options_ = cfg.policy_options;
  policy_ctx.wake_ = [](void* rt, int id) {
    auto& self = *static_cast<runtime_state*>(rt);
    self.eng->notify_idle();  // the policy made work visible to `id`
    return wake_if_parked(self, *self.workers[static_cast<std::size_t>(id)]);
  };
  policy_ctx.wake_arg_ = this;
  policy_ctx.rt_ = this;
}

runtime_state::~runtime_state() {
  eng->run_from_outside([this] {
    stopping.store(true, std::memory_order_seq_cst);
    for (auto& w : workers) wake_if_parked(*this, *w);
  });
  eng->join_workers();
  if (trace) {
    g_tracing = false;
    trace->finish();
  }
}

void submit_root(runtime_state& rt, frame* f) {
  rt.eng->run_from_outside([&] { publish_root(rt, f, root_started(rt, f->ctx.arena)); });
}

void publish_root(runtime_state& rt, frame* f, bool starts_computation) {
  const int arena = f->ctx.arena;
  rt.arenas.queues_of(arena).push(f);
  rt.eng->notify_idle();
  // The first root of a computation wakes every sleeper: those that fell
  // asleep while the pool was idle have no timer, and would otherwise
  // sleep through the computation unless a wake-up happened to choose
  // them. The seq_cst RMW on roots_in_flight in root_started pairs with a
  // sleeper's seq_cst store of park_word before it reads roots_in_flight
  // (scheduler.cpp, sleep protocol).
  if (starts_computation) return wake_all_sleepers(rt);
  // Pairs with the seq_cst RMW of a worker going to sleep (scheduler.cpp).
  // A searcher takes the root, so a sleeper is woken only if nobody
  // searches; unless the policy forbids roots to some workers (ADWS:
  // worker 0 alone takes them), or arenas are in use (the searchers may
  // serve other arenas), when the searchers may all be forbidden and a
  // sleeper that may take it is woken anyway.
  const std::uint64_t idle = g_idle_state.load(std::memory_order_seq_cst);
  if (rt.policy_filters_work || rt.arenas.engaged() ? (idle >> 32) != 0 : sleeper_should_wake(idle))
    wake_sleeper_for(rt, nullptr, arena);
}

void queue_shared(runtime_state& rt, frame* f) {
  // Read before the push: a taker may run f at once, and a woken waiter's
  // frame lives on its task's stack, which is reused as soon as it resumes.
  const int place = f->ctx.place;
  const int arena = f->ctx.arena;
  rt.arenas.queues_of(arena).push(f);
  rt.eng->notify_idle();
  // Pairs with the seq_cst RMW of a worker going to sleep (scheduler.cpp),
  // as in submit_root: it sees the frame, or we see it sleeping. A frame
  // for a place wakes a sleeper there first (rule 5' takes it there).
  if ((g_idle_state.load(std::memory_order_seq_cst) >> 32) == 0) return;
  if (place >= 0 && place < rt.places.num_places && !rt.policy_filters_work)
    for (int id : rt.places.place_workers[static_cast<std::size_t>(place)]) {
      worker& w = *rt.workers[static_cast<std::size_t>(id)];
      if (serves(rt, w, arena) && wake_if_parked(rt, w)) return;
    }
  const std::uint64_t idle = g_idle_state.load(std::memory_order_seq_cst);
  if (rt.arenas.engaged() ? (idle >> 32) != 0 : sleeper_should_wake(idle)) wake_sleeper_for(rt, nullptr, arena);
}

void forward_to_arena(runtime_state& rt, worker& w, frame* f) {
  w.counters.arena_forwards.bump();
  queue_shared(rt, f);
}

namespace {
// An arena's demand changed: new shares, and the workers that move are
// woken so that they do (out of the manager's lock).
void rebalance(runtime_state& rt) {
  std::vector<int> moved;
  rt.arenas.rebalance(moved);
  for (int id : moved) wake_if_parked(rt, *rt.workers[static_cast<std::size_t>(id)]);
}
}  // namespace

// Busy time: while at least one root task is in flight, by the engine's
// clock (simulated time under the simulator). The count crosses zero
// (0 -> 1, 1 -> 0) only under the lock and together with the account, so
// that a start and an end cannot cross; away from zero (other roots in
// flight: detached tasks, arena entries from tasks) it moves without the
// lock and without a clock read.
namespace {
// Adds delta (+1 or -1) to the count unless that takes it from or to zero.
bool count_away_from_zero(std::atomic<int>& count, int delta) {
  int seen = count.load(std::memory_order_relaxed);
  while (seen + std::min(delta, 0) > 0)
    if (count.compare_exchange_weak(seen, seen + delta, std::memory_order_seq_cst)) return true;
  return false;
}

// now_ns: the caller's clock read, or none (read here if the count crosses zero).
std::uint64_t read_unless_known(runtime_state& rt, std::optional<std::uint64_t> now_ns) {
  return now_ns ? *now_ns : rt.eng->now_ns();
}

bool count_root_in(runtime_state& rt, int arena, std::optional<std::uint64_t> now_ns) {
  if (rt.arenas.started(arena) && rt.arenas.engaged()) rebalance(rt);
  if (count_away_from_zero(rt.roots_in_flight, +1)) return false;
  std::lock_guard lock(rt.busy_mutex);
  if (rt.roots_in_flight.fetch_add(1, std::memory_order_seq_cst) != 0) return false;
  rt.busy_since_ns = read_unless_known(rt, now_ns);
  return true;
}

void count_root_out(runtime_state& rt, int arena, std::optional<std::uint64_t> now_ns) {
  if (rt.arenas.finished(arena) && rt.arenas.engaged()) rebalance(rt);
  if (count_away_from_zero(rt.roots_in_flight, -1)) return;
  {
    std::lock_guard lock(rt.busy_mutex);
    if (rt.roots_in_flight.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    rt.busy_ns.store(rt.busy_ns.load(std::memory_order_relaxed) + (read_unless_known(rt, now_ns) - rt.busy_since_ns),
                     std::memory_order_relaxed);
  }
  // The computation is over. Under the simulator the next root comes only
  // once every worker sleeps without a timer (from_outside), so a napper's
  // timer (up to max_nap_ns) would put simulated idle time between roots
  // that threads do not have: wake the sleepers now, and with no root in
  // flight they go back to sleep without one. (Outside the lock: a wake
  // may switch fibers.)
  if (rt.eng->outside_waits_for_sleepers()) {
    rt.eng->notify_idle();  // idle searchers too: with no root in flight they sleep at once
    wake_all_sleepers(rt);
  }
}
}  // namespace

bool root_started(runtime_state& rt, int arena) { return count_root_in(rt, arena, std::nullopt); }
bool root_started_at(runtime_state& rt, int arena, std::uint64_t now_ns) { return count_root_in(rt, arena, now_ns); }
void root_finished(runtime_state& rt, int arena) { count_root_out(rt, arena, std::nullopt); }
void root_finished_at(runtime_state& rt, int arena, std::uint64_t now_ns) { count_root_out(rt, arena, now_ns); }

std::uint64_t busy_ns(runtime_state& rt) {
  std::lock_guard lock(rt.busy_mutex);
  std::uint64_t total = rt.busy_ns.load(std::memory_order_relaxed);
  if (rt.roots_in_flight.load(std::memory_order_acquire) > 0) {
    const std::uint64_t now = rt.eng->now_ns();
    if (now > rt.busy_since_ns) total += now - rt.busy_since_ns;
  }
  return total;
}

}  // namespace detail

runtime::runtime() : runtime(runtime_options{}) {}

runtime::runtime(const runtime_options& options) {
  std::lock_guard lock(detail::g_start_mutex);
  if (detail::g_pool.load(std::memory_order_acquire) != nullptr)
    throw std::logic_error(
        "locus::runtime: a pool is already running (one per process); create the locus::runtime before the "
        "first parallel call and destroy it before creating another");
  detail::start_pool_locked(options);
}

runtime::~runtime() { detail::stop_pool(); }

int num_workers() { return static_cast<int>(detail::pool().workers.size()); }
int worker_id() noexcept { return detail::t_worker != nullptr ? detail::t_worker->id : -1; }
int num_places() { return detail::pool().places.num_places; }
int current_place() noexcept { return detail::t_worker != nullptr ? detail::t_worker->place : -1; }
std::string policy_name() { return detail::pool().cfg.policy; }
std::string engine_name() { return detail::pool().eng->name(); }
std::vector<std::string> available_policies() { return detail::policy_names(); }

place_hint current_hint() noexcept {
  return {detail::t_worker != nullptr ? detail::t_worker->ctx.place : detail::any_place};
}

void set_hint(place_hint hint) {
  const std::int32_t place = detail::checked_place(hint);
  if (detail::t_worker != nullptr) detail::t_worker->ctx.place = place;
}

void detail::bad_work_hint(double w) {
  throw std::invalid_argument("locus::work(" + std::to_string(w) +
                              "): a work hint must be a finite number >= 0 (only ratios matter)");
}

std::int32_t detail::checked_place(place_hint hint) {
  if (hint.place == any_place) return any_place;
  runtime_state& rt = pool();
  const int places = rt.places.num_places;
  if (hint.place >= 0 && hint.place < places) return hint.place;
  if (rt.cfg.wrap_hints && hint.place >= 0) return hint.place % places;
  throw std::out_of_range("locus::at(" + std::to_string(hint.place) + "): place " + std::to_string(hint.place) +
                          " does not exist: the pool has " + std::to_string(places) + " place" +
                          (places == 1 ? "" : "s") + " (0.." + std::to_string(places - 1) +
                          "; locus::num_places(), LOCUS_PLACES); use locus::any for no place, or "
                          "LOCUS_HINT_RANGE=wrap to take places modulo num_places()");
}

std::vector<machine_info> available_machines() {
  std::vector<machine_info> out;
  for (const auto& preset : detail::sim::machine_presets())
    out.push_back({std::string(preset.name), std::string(preset.summary)});
  return out;
}

}  // namespace locus
