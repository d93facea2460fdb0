// What a policy may see and do: the narrow view of the pool the core hands
// it (instead of the whole runtime state), built once when the pool starts.
//
//   workers       each worker's view (deque, id, place, per-task context)
//   places        placement and distances (topology.hpp)
//   topo          the machine the workers run on (caches, packages), for
//                 policies that size things by a cache (CATS: the shared
//                 cache of a socket)
//   option(name)  the policy's options as resolved from runtime_options::
//                 policy_options, the environment and the defaults its
//                 registry entry declares (already validated)
//   count         bump one of the counters its registry entry names
//   charge        charge one of the operations its registry entry declares
//                 (the simulator prices it; the threaded engine ignores it)
//   rng           worker w's random source (only on w's own thread)
//   wake          wake worker w if it sleeps, after handing it work
//   eng           the engine (clock), for policies that need time
//   trace         record a named event on w's trace track (a push, a
//                 deposit, a migration, a colored steal), about worker
//                 `other` (-1: none); `name` is a string literal. Free
//                 when tracing is off (one test of the worker's hooks).
//   arenas, allotted
//                 how many arena slots there are, and the workers of a place
//                 the resource manager gives an arena now (core/arenas.hpp;
//                 TBB-NUMA's figure 9 compares it with the awake ones); a
//                 worker's arena is worker_view::arena
//   take_root, steal_attempt, stole, sent_on
//                 the core's parts of a search round, for a policy's own
//                 find_work (policy.hpp, default_search): the shared queues
//                 of the worker's arena, and the accounting of steal
//                 attempts (counted, charged by the engine, timed as
//                 scheduling when one succeeds, also when the policy sends
//                 the stolen frame on: sent_on). steal_attempt says no, and
//                 counts nothing, for a victim serving another arena: a
//                 policy then leaves that victim alone
//
// Everything but the last four is inline and reads plain data, so the
// scheduling paths that call a policy pay no more than before.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "engine/random.hpp"
#include "locus/detail/worker_view.hpp"
#include "policy/spi/hooks.hpp"
#include "topology/topology.hpp"

namespace locus::detail {

// How many counters one policy may declare (per worker storage is fixed).
inline constexpr int max_policy_counters = 16;

class policy_context {
 public:
  struct worker_slot {
    worker_view* view = nullptr;
    rng64* rng = nullptr;
    owner_counter* counters = nullptr;  // max_policy_counters of them
  };

  int num_workers() const { return static_cast<int>(slots_.size()); }
  worker_view& worker_at(int id) const { return *slots_[static_cast<std::size_t>(id)].view; }
  const placement& places() const { return *places_; }
  const topology& topo() const { return *topo_; }

  // The resolved value of one of the policy's own options. Asking for an
  // option the registry entry does not declare is a bug in the policy.
  const std::string& option(std::string_view name) const {
    for (const auto& [key, value] : options_)
      if (key == name) return value;
    throw std::logic_error("policy_context::option(\"" + std::string(name) +
                           "\"): not an option the policy's registry entry declares");
  }

  // Counter `index` (the position of its name in the registry entry).
  void count(const worker_view& w, int index) const {
    slots_[static_cast<std::size_t>(w.id)].counters[index].bump();
  }
  // Operation `index` (the position of its declaration in the registry
  // entry), performed by w on other's lines (-1: its own).
  void charge(const worker_view& w, int index, int other) const {
    eng_->charge(costs_[static_cast<std::size_t>(index)], w.id, other);
  }
  rng64& rng(const worker_view& w) const { return *slots_[static_cast<std::size_t>(w.id)].rng; }
  bool wake(worker_view& w) const { return wake_(wake_arg_, w.id); }
  engine& eng() const { return *eng_; }

  void trace(worker_view& w, const char* name, int other = -1) const {
    if (w.hooks & hook_trace) [[unlikely]] trace_named(w, name, other);
  }

  // Defined in core/policy_context.cpp.
  int arenas() const;
  int allotted(int arena, int place) const;
  // Whether a locus::arena was ever created: from then on every worker
  // takes the shared queues of the arena it serves (a policy that gives
  // roots to one worker cannot, since that worker may serve another).
  bool arenas_in_use() const;
  frame* take_root(worker_view& w) const;
  [[nodiscard]] bool steal_attempt(worker_view& w, worker_view& victim) const;
  void stole(worker_view& w) const;
  // The frame of the last successful steal was sent on (NUMA-WS pushes it
  // to its place): the attempt and the push are scheduling time, not idle.
  void sent_on(worker_view& w) const;
  void trace_named(worker_view& w, const char* name, int other) const;

 private:
  // Filled in by the core (core/runtime.cpp) before the policy is built.
  friend struct runtime_state;
  std::vector<worker_slot> slots_;
  const placement* places_ = nullptr;
  const topology* topo_ = nullptr;
  engine* eng_ = nullptr;
  std::vector<cost_id> costs_;
  std::vector<std::pair<std::string, std::string>> options_;
  bool (*wake_)(void*, int) = nullptr;
  void* wake_arg_ = nullptr;
  struct runtime_state* rt_ = nullptr;
};

}  // namespace locus::detail
