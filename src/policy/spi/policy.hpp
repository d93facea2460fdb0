// The policy interface: what a scheduling policy decides, written once as
// the virtual members of policy_base below, each defaulting to classic
// work stealing.
//
// The core (src/core) owns workers, deques, fibers, sleeping and the
// spawn/sync protocol. A policy decides, on scheduling paths only:
//   find_work        one round of an out-of-work worker's search, in the
//                    policy's order (bi-tier searches, returned continuations
//                    before the own deque); default_search is own deque,
//                    find_local_work, root tasks, one steal
//   find_local_work  what that round checks after the own deque (NUMA-WS:
//                    its mailbox, Fig. 5 line 26)
//   choose_victim    whom a thief tries next (uniform; distance-biased; ...)
//   steal_from       what one steal attempt on that victim takes (deque head;
//                    NUMA-WS: coin flip between deque and mailbox)
//   after_steal      what a thief does with what it stole (run it, or push it
//                    toward its place and keep looking)
//   has_work_for     whether the policy holds a frame for this worker (a
//                    worker about to sleep looks once more; NUMA-WS: its mailbox)
//   may_take         whether worker w may take the work visible in owner's
//                    deque (or, owner == nullptr, the root queue): a worker
//                    sleeps rather than spin on work it may not take, and a
//                    wake goes to a worker that may take the new work;
//                    filters_work says (once, at start-up) whether it ever
//                    says no
//   keep_at_sync     whether a non-trivial sync whose children are all done
//                    may simply continue here (NUMA-WS: not if the frame is
//                    earmarked for another place, Fig. 5 lines 5-11)
//   on_ready         a suspended parent became ready (sync found it done, or
//                    its last child returned): resume it here, or hand it to
//                    another worker (NUMA-WS PUSHBACK; ADWS: its owner)
// and on the cold spawn path (src/core/spawn_hooks.cpp), for workers whose
// hooks bits the policy set (worker_view.hpp):
//   routes           whether a parent-first child goes to route_spawn
//   route_spawn      where such a child goes (CATS's socket pool, ADWS's
//                    owners, TBB-NUMA's mailboxes)
//   post             a loop-affinity sub-range the loop layer posts to a
//                    worker (core/post.cpp): the policy places it, or the
//                    core deposits it in that worker's inbox (the default;
//                    tbb-std: a proxy in the poster's deque and in the
//                    target's mailbox, as oneTBB's affinity_partitioner)
//   parent_first     child-first or parent-first, per spawn (hook_spawn_order)
//   open_group       a task group's first spawn, with its footprint
//                    (hook_work_hints; the multi-level policies tie a group
//                    that fits a cache to it, ADWS figure 13)
//   share_work       a child's share [lo, hi) of its group's work: derive its
//                    context, say whether it runs here or away (hook_work_hints;
//                    ADWS figure 7 lines 19-26, policy/spi/work_shares.hpp)
//   share_done       a distributed child, or a distributing group, is done
//                    (ADWS: dominant task groups, section 3.2)
//   on_task          task begin, end, suspend, resume (hook_task_events)
//   on_group         task-group first spawn and sync (hook_task_events)
//
// A policy sees workers through their views (worker_view) and the pool
// through a policy_context; it never sees the core's runtime state. The
// spawn and sync fast path never calls a policy. Everything else a policy
// brings (its name, options, counters, simulated costs) is in its registry
// entry (policy/registry.hpp).
#pragma once

#include <memory>
#include <type_traits>

#include "locus/detail/frame.hpp"
#include "locus/detail/task_colors.hpp"
#include "policy/spi/policy_context.hpp"
#include "policy/spi/push.hpp"
#include "policy/spi/work_shares.hpp"

namespace locus::detail {

enum class ready_reason { sync_done, last_child_returned };
enum class task_event { begin, end, suspend, resume };
enum class group_event { created, synced };

// Where a search round found its frame; the core does the accounting (a
// steal is scheduling time and may wake another searcher).
// (posted: the worker's inbox, which the core checks before the policy's round.)
enum class found_at { nothing, own_deque, policy, roots, steal, posted };
struct search_result {
  frame* f = nullptr;
  found_at where = found_at::nothing;
};

// A scheduling policy: one base class whose virtual decisions default to
// classic work stealing. A policy derives from it (a `final` class, so that
// its calls to its own decisions are direct), overrides what its paper
// changes (marked `override`), and is created by its registry entry
// (make_policy_of).
class policy_base {
 public:
  explicit policy_base(policy_context& c) : ctx(&c) {}
  virtual ~policy_base() = default;
  policy_base(const policy_base&) = delete;
  policy_base& operator=(const policy_base&) = delete;

  // The search: one round of an out-of-work worker's search, in the
  // policy's order (default: default_search below), and its parts.
  virtual search_result find_work(worker_view& w) { return default_search(w); }
  virtual frame* find_local_work(worker_view&) { return nullptr; }
  // Classic: uniform over the other workers (Blumofe and Leiserson).
  virtual worker_view* choose_victim(worker_view& thief) {
    const auto n = static_cast<std::uint32_t>(ctx->num_workers());
    if (n < 2) return nullptr;
    std::uint32_t v = ctx->rng(thief).below(n - 1);
    if (v >= static_cast<std::uint32_t>(thief.id)) ++v;
    return &ctx->worker_at(static_cast<int>(v));
  }
  virtual frame* steal_from(worker_view&, worker_view& victim) { return victim.deque.steal(); }
  virtual frame* after_steal(worker_view&, frame* f) { return f; }
  // Whether work this policy keeps (a mailbox) waits for `w`. No side
  // effects: the core asks it whenever it needs to know, not only before
  // a worker sleeps.
  virtual bool has_work_for(worker_view&) { return false; }
  // `w` found nothing, sees nothing it may take, and parks now.
  virtual void on_sleep(worker_view&) {}
  // The simulator did not run `rounds` search rounds of `w`, each of which
  // would have failed (nothing in sight, docs/simulator.md "Idle workers
  // wait for events"): a policy whose rules count failed attempts counts
  // them.
  virtual void skipped_rounds(worker_view&, std::uint64_t /*rounds*/) {}
  virtual bool may_take(const worker_view&, const worker_view* /*owner*/) { return true; }
  // Whether may_take can ever say no (asked once, at start-up): a policy
  // that overrides may_take overrides this too.
  virtual bool filters_work() const { return false; }

  // Joins: a non-trivial sync whose children are done, a parent made ready.
  virtual bool keep_at_sync(worker_view&, const frame&) { return true; }
  virtual frame* on_ready(worker_view&, frame* parent, ready_reason) { return parent; }

  // Spawns (the cold spawn path, src/core/spawn_hooks.cpp, on workers with
  // the matching hooks bit).
  // Whether a parent-first child hinted at `place` goes to route_spawn
  // (tbb-numa: the hinted ones, to their place's mailbox) rather than on
  // the spawner's deque; route_spawn then places it.
  virtual bool routes(const worker_view&, std::int32_t /*place*/) { return false; }
  virtual void route_spawn(worker_view& w, frame* f) { w.deque.push(f); }
  virtual bool parent_first(worker_view&, bool /*fork*/, std::int32_t /*place*/) { return false; }
  // A sub-range of a loop_affinity loop that w posts to worker `target`
  // (w itself only under hook_exact_affinity; its group already counts
  // it): true if the policy placed it, false to leave it to target's inbox
  // (core/inbox.hpp). Static blocks (owner-only) always go to the inbox.
  virtual bool post(worker_view&, frame*, int /*target*/) { return false; }
  virtual bool open_group(worker_view&, task_context&, std::size_t /*footprint*/) { return false; }
  virtual share_route share_work(worker_view&, const task_context&, task_context&, double, double) {
    return share_route::local;
  }
  virtual void share_done(worker_view&, const task_context&, const task_context*) {}

  // The colors of a policy with colored steals, for the task-graph library
  // (locus/detail/task_colors.hpp; NabbitC); nullptr: none.
  virtual task_colors* colors() { return nullptr; }

  // Events (hook_task_events workers).
  virtual void on_task(worker_view&, task_event, const frame*) {}
  virtual void on_group(worker_view&, group_event, const group_state*) {}

 protected:
  // The classic search round, in terms of the decisions above: own deque,
  // find_local_work, root tasks, one steal. A policy's own find_work may
  // call it for the tiers it leaves alone.
  search_result default_search(worker_view& w) {
    if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
    if (frame* f = find_local_work(w)) return {f, found_at::policy};
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
    if (worker_view* victim = choose_victim(w); victim != nullptr && ctx->steal_attempt(w, *victim)) {
      if (frame* f = steal_from(w, *victim)) {
        ctx->stole(w);  // a successful steal, even if the policy then sends the frame on
        if ((f = after_steal(w, f)) != nullptr) return {f, found_at::steal};
        ctx->sent_on(w);
      }
    }
    return {};
  }

  policy_context* ctx;
};

// The factory a registry entry carries for policy P.
template <class P>
std::unique_ptr<policy_base> make_policy_of(policy_context& ctx) {
  static_assert(std::is_base_of_v<policy_base, P>, "a policy is a class derived from policy_base");
  return std::make_unique<P>(ctx);
}

}  // namespace locus::detail
