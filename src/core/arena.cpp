// locus::arena (include/locus/arena.hpp) over the resource manager
// (core/arenas.hpp) and the root tasks of join.cpp.
#include <stdexcept>
#include <string>

#include "core/runtime_state.hpp"
#include "locus/arena.hpp"

namespace locus::detail {

namespace {
runtime_state& pool_of(const arena_handle& a) {
  if (a.pool == nullptr) throw std::logic_error("locus::arena: used after it was moved from");
  runtime_state* rt = pool_if_started();
  if (rt == nullptr || rt != a.pool)
    throw std::logic_error("locus::arena " + std::to_string(a.id) +
                           ": the pool it was created in has stopped (its locus::runtime was destroyed); "
                           "create arenas while the runtime they use is alive");
  return *rt;
}
}  // namespace

arena_handle arena_open(int max_concurrency, std::int32_t only_place) {
  if (max_concurrency < 0)
    throw std::invalid_argument("locus::arena(" + std::to_string(max_concurrency) +
                                "): max_concurrency must be >= 1 (or 0 for every worker of the pool)");
  runtime_state& rt = pool();
  if (only_place != any_place) {
    if (only_place < 0 || only_place >= rt.places.num_places)
      throw std::out_of_range("locus::arena(at(" + std::to_string(only_place) + ")): no such place; accepted: 0 to " +
                              std::to_string(rt.places.num_places - 1) + " (locus::num_places(), LOCUS_PLACES)");
    // Its tasks must never run elsewhere, which the manager's shares by
    // place guarantee, and only they.
    if (!rt.arenas.isolating())
      throw std::invalid_argument("locus::arena(at(" + std::to_string(only_place) + ")): policy " + rt.cfg.policy +
                                  " schedules every arena over the whole machine, so an arena cannot be limited "
                                  "to a place under it; every other policy can");
    if (rt.cfg.shares != arena_shares::places)
      throw std::invalid_argument("locus::arena(at(" + std::to_string(only_place) +
                                  ")): an arena limited to a place needs LOCUS_ARENA_SHARES=places (the default); "
                                  "with pool, workers are dealt out by count whatever their place");
  }
  const int workers = static_cast<int>(rt.workers.size());
  const int wanted = max_concurrency == 0 ? workers : max_concurrency;
  const int id = rt.arenas.open(wanted, only_place == any_place ? -1 : only_place);
  return {&rt, id, rt.arenas.slot(id).max_concurrency.load(std::memory_order_relaxed)};
}

void arena_close(const arena_handle& a) noexcept {
  runtime_state* rt = pool_if_started();
  if (rt != nullptr && rt == a.pool) rt->arenas.close(a.id);
}

void arena_execute(const arena_handle& a, void (*fn)(void*), void* arg) {
  runtime_state& rt = pool_of(a);
  worker_view* w = current_worker();
  if (w == nullptr) return enter_arena(a.id, fn, arg);  // as one of its workers, if one sleeps (roots.cpp)
  if (w->ctx.arena == a.id) return fn(arg);  // already in it: run here, as oneTBB does
  if (rt.arenas.isolating()) {
    if (!enter_arena_in_place(static_cast<worker&>(*w), a.id, fn, arg)) run_in_arena(a.id, fn, arg);
    return;
  }
  // The policy's arenas share every worker (registry.hpp, isolates_arenas):
  // the task runs f itself, as a task of the arena, and what f creates
  // inherits it. f may suspend and resume elsewhere: the worker it ends on
  // gets the task's own arena back.
  const std::uint16_t own = w->ctx.arena;
  w->ctx.arena = static_cast<std::uint16_t>(a.id);
  try {
    fn(arg);
  } catch (...) {
    current_worker()->ctx.arena = own;
    throw;
  }
  current_worker()->ctx.arena = own;
}

void arena_check(const arena_handle& a) { pool_of(a); }

void arena_enqueue(const arena_handle& a, detached_job* job) { submit_detached(job, a.id); }

std::vector<int> arena_workers_per_place(const arena_handle& a) {
  runtime_state& rt = pool_of(a);
  // The caller's entries in place are arenas with work for whoever asks
  // what the deal is (roots.cpp): counted first, so the answer includes them.
  if (worker_view* w = current_worker(); w != nullptr) count_entry_demand(static_cast<worker&>(*w));
  std::vector<int> out;
  // Without work an arena has no workers, whatever deal lasts (arenas.hpp).
  const bool has_work = rt.arenas.slot(a.id).in_flight.load(std::memory_order_acquire) > 0;
  for (int p = 0; p < rt.places.num_places; ++p)  // under a policy whose arenas share every worker, all of them
    out.push_back(rt.arenas.isolating() ? (has_work ? rt.arenas.allotted(a.id, p) : 0)
                                        : static_cast<int>(rt.places.place_workers[static_cast<std::size_t>(p)].size()));
  return out;
}

int current_arena() noexcept {
  worker_view* w = current_worker();
  return w != nullptr ? w->ctx.arena : 0;
}

int current_arena_max_concurrency() {
  return pool().arenas.slot(current_arena()).max_concurrency.load(std::memory_order_relaxed);
}

}  // namespace locus::detail
