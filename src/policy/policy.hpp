// The policy interface: what a scheduling policy decides.
//
// The core (src/core) owns workers, deques, fibers, sleeping and the
// spawn/sync protocol. A policy decides, on scheduling paths only:
//   find_local_work  what an out-of-work worker checks first, after its own
//                    deque (NUMA-WS: its mailbox, Fig. 5 line 26)
//   choose_victim    whom a thief tries next (uniform; distance-biased; ...)
//   steal_from       what one steal attempt on that victim takes (deque head;
//                    NUMA-WS: coin flip between deque and mailbox)
//   after_steal      what a thief does with what it stole (run it, or push it
//                    toward its place and keep looking)
//   keep_at_sync     whether a non-trivial sync whose children are all done
//                    may simply continue here (NUMA-WS: not if the frame is
//                    earmarked for another place, Fig. 5 lines 5-11)
//   on_ready         a suspended parent became ready (sync found it done, or
//                    its last child returned): resume it here, or hand it to
//                    another worker (NUMA-WS PUSHBACK; ADWS: its owner)
//   has_work_for     whether the policy holds a frame for this worker (a
//                    worker about to sleep looks once more; NUMA-WS: its mailbox)
//   route_spawn      where a parent-first child goes when the policy takes
//                    over spawning (CATS: the socket pool); only called for
//                    workers whose `routes_spawns` flag the policy set
// and, optionally (policy_defaults gives the classic answer):
//   find_work        one round of an out-of-work worker's search, in the
//                    policy's order (bi-tier searches, returned continuations
//                    before the own deque); the default, default_search,
//                    is own deque, find_local_work, root tasks, one steal
//   parent_first     the spawn-time decision (hook_spawn_order workers only)
//   on_task          task begin, end, suspend, resume (hook_task_events)
//   on_group         task-group first spawn and sync (hook_task_events)
//   share_work       a child's share [lo, hi) of its group's work: derive its
//                    context, say whether it runs here or away (hook_work_hints
//                    workers; ADWS figure 7 lines 19-26)
//   share_done       a distributed child, or a distributing group, is done
//                    (ADWS: dominant task groups, section 3.2)
//   open_group       a task group's first spawn, with its footprint
//                    (hook_work_hints workers; the multi-level policies tie
//                    a group that fits a cache to it, seed 003 figure 13)
//   may_take         whether worker w may take the work visible in owner's
//                    deque (or, owner == nullptr, the root queue): a worker
//                    sleeps rather than spin on work it may not take, and a
//                    wake goes to a worker that may take the new work
//   filters_work     (const) whether may_take can ever say no, asked once at
//                    start-up; without it, overriding may_take means yes
//
// A policy sees workers through their views (worker_view) and the pool
// through a policy_context; it never sees the core's runtime state.
// Policies are plain classes checked against the concept below, then wrapped
// in a virtual adapter so the policy can be chosen at start-up; the spawn and
// sync fast path never calls a policy. Everything else a policy brings (its
// name, options, counters, simulated costs) is in its registry entry
// (policy/registry.hpp).
#pragma once

#include <concepts>
#include <memory>
#include <type_traits>

#include "locus/detail/frame.hpp"
#include "policy/policy_context.hpp"
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

template <class P>
concept scheduling_policy = std::constructible_from<P, policy_context&> &&
    requires(P& p, worker_view& w, worker_view& victim, frame* f, const frame& cf, ready_reason why) {
  { p.find_local_work(w) } -> std::same_as<frame*>;
  { p.choose_victim(w) } -> std::same_as<worker_view*>;
  { p.steal_from(w, victim) } -> std::same_as<frame*>;
  { p.after_steal(w, f) } -> std::same_as<frame*>;
  { p.keep_at_sync(w, cf) } -> std::same_as<bool>;
  { p.on_ready(w, f, why) } -> std::same_as<frame*>;
  { p.route_spawn(w, f) } -> std::same_as<void>;
  { p.has_work_for(w) } -> std::same_as<bool>;
};

// Default decisions: those of classic work stealing. A policy inherits this
// and overrides what its paper changes.
struct policy_defaults {
  explicit policy_defaults(policy_context& ctx) : ctx(&ctx) {}
  frame* find_local_work(worker_view&) { return nullptr; }
  frame* steal_from(worker_view&, worker_view& victim) { return victim.deque.steal(); }
  frame* after_steal(worker_view&, frame* f) { return f; }
  bool keep_at_sync(worker_view&, const frame&) { return true; }
  frame* on_ready(worker_view&, frame* parent, ready_reason) { return parent; }
  void route_spawn(worker_view& w, frame* f) { w.deque.push(f); }
  bool has_work_for(worker_view&) { return false; }
  bool parent_first(worker_view&, bool /*fork*/, std::int32_t /*place*/) { return false; }
  void on_task(worker_view&, task_event, const frame*) {}
  void on_group(worker_view&, group_event, const group_state*) {}
  bool may_take(const worker_view&, const worker_view* /*owner*/) { return true; }
  share_route share_work(worker_view&, const task_context&, task_context&, double, double) {
    return share_route::local;
  }
  void share_done(worker_view&, const task_context&, const task_context*) {}
  bool open_group(worker_view&, task_context&, std::size_t /*footprint*/) { return false; }
  policy_context* ctx;
};

// The classic search round, in terms of a policy's decisions; a policy's own
// find_work may call it for the tiers it leaves alone.
template <class P>
search_result default_search(P& p, policy_context& ctx, worker_view& w) {
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  if (frame* f = p.find_local_work(w)) return {f, found_at::policy};
  if (frame* f = ctx.take_root(w)) return {f, found_at::roots};
  if (worker_view* victim = p.choose_victim(w); victim != nullptr && ctx.steal_attempt(w, *victim)) {
    if (frame* f = p.steal_from(w, *victim)) {
      ctx.stole(w);  // a successful steal, even if the policy then sends the frame on
      if ((f = p.after_steal(w, f)) != nullptr) return {f, found_at::steal};
      ctx.sent_on(w);
    }
  }
  return {};
}

class policy_base {
 public:
  virtual ~policy_base() = default;
  virtual frame* find_local_work(worker_view& w) = 0;
  virtual worker_view* choose_victim(worker_view& w) = 0;
  virtual frame* steal_from(worker_view& w, worker_view& victim) = 0;
  virtual frame* after_steal(worker_view& w, frame* f) = 0;
  virtual bool keep_at_sync(worker_view& w, const frame& parent) = 0;
  virtual frame* on_ready(worker_view& w, frame* parent, ready_reason why) = 0;
  virtual void route_spawn(worker_view& w, frame* f) = 0;
  virtual bool has_work_for(worker_view& w) = 0;
  virtual search_result find_work(worker_view& w) = 0;
  virtual bool parent_first(worker_view& w, bool fork, std::int32_t place) = 0;
  virtual void on_task(worker_view& w, task_event e, const frame* f) = 0;
  virtual void on_group(worker_view& w, group_event e, const group_state* g) = 0;
  virtual bool may_take(const worker_view& w, const worker_view* owner) = 0;
  virtual share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo,
                                 double hi) = 0;
  virtual void share_done(worker_view& w, const task_context& group, const task_context* child) = 0;
  virtual bool open_group(worker_view& w, task_context& group, std::size_t footprint) = 0;
  // Whether may_take can ever say no (checked once, at start-up).
  virtual bool filters_work() const = 0;
};

template <scheduling_policy P>
class policy_adapter final : public policy_base {
 public:
  explicit policy_adapter(policy_context& ctx) : impl_(ctx), ctx_(&ctx) {}
  frame* find_local_work(worker_view& w) override { return impl_.find_local_work(w); }
  worker_view* choose_victim(worker_view& w) override { return impl_.choose_victim(w); }
  frame* steal_from(worker_view& w, worker_view& v) override { return impl_.steal_from(w, v); }
  frame* after_steal(worker_view& w, frame* f) override { return impl_.after_steal(w, f); }
  bool keep_at_sync(worker_view& w, const frame& p) override { return impl_.keep_at_sync(w, p); }
  frame* on_ready(worker_view& w, frame* p, ready_reason why) override { return impl_.on_ready(w, p, why); }
  void route_spawn(worker_view& w, frame* f) override { impl_.route_spawn(w, f); }
  bool has_work_for(worker_view& w) override { return impl_.has_work_for(w); }
  search_result find_work(worker_view& w) override {
    if constexpr (requires { impl_.find_work(w); })
      return impl_.find_work(w);
    else
      return default_search(impl_, *ctx_, w);
  }
  bool parent_first(worker_view& w, bool fork, std::int32_t place) override { return impl_.parent_first(w, fork, place); }
  void on_task(worker_view& w, task_event e, const frame* f) override { impl_.on_task(w, e, f); }
  void on_group(worker_view& w, group_event e, const group_state* g) override { impl_.on_group(w, e, g); }
  bool may_take(const worker_view& w, const worker_view* owner) override { return impl_.may_take(w, owner); }
  share_route share_work(worker_view& w, const task_context& g, task_context& c, double lo, double hi) override {
    return impl_.share_work(w, g, c, lo, hi);
  }
  void share_done(worker_view& w, const task_context& g, const task_context* c) override { impl_.share_done(w, g, c); }
  bool open_group(worker_view& w, task_context& g, std::size_t footprint) override {
    return impl_.open_group(w, g, footprint);
  }
  bool filters_work() const override {
    // A policy that knows at start-up whether its may_take will ever say no
    // says so (cats running as plain ws); otherwise overriding may_take
    // (&P::may_take is then a member of P, not of policy_defaults) counts.
    if constexpr (requires { impl_.filters_work(); })
      return impl_.filters_work();
    else
      return !std::is_same_v<decltype(&P::may_take), decltype(&policy_defaults::may_take)>;
  }

 private:
  P impl_;
  policy_context* ctx_;
};

// The factory a registry entry carries for policy P.
template <scheduling_policy P>
std::unique_ptr<policy_base> make_policy_of(policy_context& ctx) {
  return std::make_unique<policy_adapter<P>>(ctx);
}

}  // namespace locus::detail
