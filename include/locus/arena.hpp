// Arenas: several computations sharing the one pool of workers (the
// TBB-NUMA paper, sections 3.4 and 4.2; oneTBB's task_arena).
//
//   locus::arena contender;                 // asks for every worker
//   std::thread t([&] { contender.execute([] { locus::parallel_for(...); }); });
//   locus::parallel_for(0, n, body, locus::block_distribution(n));  // meanwhile
//
// Each arena has its own shared queues and, under tbb-numa, its own
// mailboxes; a task runs only on a worker serving its arena, and so does
// everything it spawns, its continuations and the tasks it enqueues. The
// resource manager gives every arena that has work (the default arena
// included) an equal share of the workers of every place, at most
// max_concurrency in all, and deals the workers out again when an arena's
// work starts or ends: a computation keeps a worker at every place whatever
// else runs, so its place affinities and its data distribution keep their
// meaning (section 4.4.1). A worker moves to another arena only between
// tasks, with its own deque empty. LOCUS_ARENA_SHARES=pool deals by count
// instead, as standard TBB does; LOCUS_ARENA_MAX bounds how many arenas may
// exist at once (docs/configuration.md).
//
// execute(f) runs f in the arena and returns what it returns (or rethrows
// what it threw). Called from a thread outside the pool, the thread takes
// one of the arena's slots, as in oneTBB: while one of the arena's workers
// sleeps (or, asked to, goes to sleep), the thread runs f itself as that
// worker, and the other workers join as f's work grows; the thread comes
// back when it finds nothing more to do, and waits if f's continuation was
// taken by another worker meanwhile. With no such worker, f runs as the
// arena's root task on one of its workers while the thread blocks. Either
// way an arena of concurrency n computes on at most n workers whoever
// enters it, and several threads may be inside at once. (An arena limited
// to a place always hands f to its workers: the calling thread is not
// confined to the place's cores.) Called from a task of another arena whose
// worker has nothing else queued, f runs there, in place, as a member of
// the arena while it has a free slot (the arena gets workers once f
// spawns); otherwise that task suspends (its worker goes on with its own
// arena's work) and resumes in its own arena afterwards. Called from a task
// of this arena, f simply runs. enqueue(f, where) is locus::enqueue in this arena.
//
// A program that creates no arena runs in the default arena, as if arenas
// did not exist. In the serial elision, execute and enqueue call f.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/enqueue.hpp"
#include "locus/place.hpp"
#include "locus/runtime.hpp"

namespace locus {

namespace detail {
// src/core/arena.cpp. `pool` is the pool the arena was opened in: an arena
// outliving its pool (a locus::runtime destroyed) throws on use.
struct arena_handle {
  void* pool = nullptr;
  int id = 0;
  int max_concurrency = 1;
};
// std::invalid_argument if max_concurrency < 0; only_place: any_place, or
// the one place whose workers serve the arena (std::out_of_range if none).
arena_handle arena_open(int max_concurrency, std::int32_t only_place = -1);
void arena_close(const arena_handle& a) noexcept;
void arena_execute(const arena_handle& a, void (*fn)(void*), void* arg);
void arena_check(const arena_handle& a);  // throws if its pool has stopped
void arena_enqueue(const arena_handle& a, detached_job* job);
std::vector<int> arena_workers_per_place(const arena_handle& a);
int current_arena() noexcept;
int current_arena_max_concurrency();
}  // namespace detail

inline namespace LOCUS_CONSTRUCTS_NS {

class arena {
 public:
#ifdef LOCUS_SERIAL_ELISION
  arena() = default;
  explicit arena(int max_concurrency) : handle_{nullptr, 1, max_concurrency} {}
  explicit arena(place_hint, int max_concurrency = 0) : handle_{nullptr, 1, max_concurrency} {}
#else
  // As many workers as the pool has (locus::num_workers()).
  arena() : arena(0) {}
  // At most max_concurrency workers at once (std::invalid_argument if < 1;
  // more than the pool has means the pool's). 0 is the default's.
  explicit arena(int max_concurrency) : handle_(detail::arena_open(max_concurrency)) {}
  // Limited to one place (oneTBB: task_arena with constraints{numa_id}): only
  // the workers of place p serve it, at most max_concurrency of them (0: all
  // of them), so its tasks never run elsewhere. std::out_of_range for a
  // place outside 0..num_places()-1 (locus::any: not limited);
  // std::invalid_argument under a policy whose arenas share every worker
  // (ml-ws, ml-adws) or with LOCUS_ARENA_SHARES=pool.
  explicit arena(place_hint where, int max_concurrency = 0)
      : handle_(detail::arena_open(max_concurrency, where.place)) {}
  // No execute may be running (work it enqueued may: the arena's slot is
  // reused only once that has returned).
  ~arena() { detail::arena_close(handle_); }
#endif
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  // Movable, so that arenas fit in a vector (place_arenas); a moved-from
  // arena may only be destroyed.
  arena(arena&& other) noexcept : handle_(std::exchange(other.handle_, detail::arena_handle{})) {}
  arena& operator=(arena&&) = delete;

  template <class F>
  std::invoke_result_t<F&> execute(F&& f) {
#ifdef LOCUS_SERIAL_ELISION
    return f();
#else
    using R = std::invoke_result_t<F&>;
    if constexpr (std::is_void_v<R>) {
      run(f);
    } else if constexpr (std::is_reference_v<R>) {
      std::remove_reference_t<R>* result = nullptr;
      auto call = [&] { result = &f(); };
      run(call);
      return static_cast<R>(*result);
    } else {
      std::optional<R> result;
      auto call = [&] { result.emplace(f()); };
      run(call);
      return std::move(*result);
    }
#endif
  }

  // A detached task in this arena, at place `where` (locus::enqueue's rules).
  template <class F>
  void enqueue(F&& f, place_hint where = any) {
#ifdef LOCUS_SERIAL_ELISION
    (void)where;
    std::forward<F>(f)();
#else
    detail::arena_check(handle_);
    detail::arena_enqueue(handle_, detail::make_detached(std::forward<F>(f), where));
#endif
  }

  int max_concurrency() const noexcept { return handle_.max_concurrency; }
  // 1 and up (0 is the default arena): what this_arena::id() says in its tasks.
  int id() const noexcept { return handle_.id; }
  // The workers the resource manager gives it now, per place (all zero
  // while it has no work). Asked from inside an execute that runs in place
  // and has not spawned yet, that entry counts as work from then on.
  std::vector<int> workers_per_place() const {
#ifdef LOCUS_SERIAL_ELISION
    return {1};
#else
    return detail::arena_workers_per_place(handle_);
#endif
  }

 private:
  template <class G>
  void run(G& g) {
    detail::arena_execute(handle_, [](void* p) { (*static_cast<G*>(p))(); }, &g);
  }
  detail::arena_handle handle_;
};

// One arena per place, each limited to it (oneTBB's
// create_numa_task_arenas): arenas[p].execute(f) runs f on place p's
// workers only. The same errors as arena(place_hint).
inline std::vector<arena> place_arenas() {
  std::vector<arena> arenas;
#ifdef LOCUS_SERIAL_ELISION
  arenas.emplace_back(at(0));
#else
  const int places = num_places();
  arenas.reserve(static_cast<std::size_t>(places));
  for (int p = 0; p < places; ++p) arenas.emplace_back(at(p));
#endif
  return arenas;
}

namespace this_arena {
// The arena of the running task: 0 (the default arena) off the pool.
inline int id() noexcept {
#ifdef LOCUS_SERIAL_ELISION
  return 0;
#else
  return detail::current_arena();
#endif
}
// Its max_concurrency (the pool's workers for the default arena).
inline int max_concurrency() {
#ifdef LOCUS_SERIAL_ELISION
  return 1;
#else
  return detail::current_arena_max_concurrency();
#endif
}
}  // namespace this_arena

}  // namespace LOCUS_CONSTRUCTS_NS

}  // namespace locus
