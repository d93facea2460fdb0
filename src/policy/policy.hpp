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
//
// Policies are plain classes checked against the concept below, then wrapped
// in a virtual adapter so the policy can be chosen at start-up; the spawn and
// sync fast path never calls a policy.
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <vector>

#include "locus/detail/frame.hpp"

namespace locus::detail {

struct worker;
struct runtime_state;

enum class ready_reason { sync_done, last_child_returned };

template <class P>
concept scheduling_policy = requires(P& p, worker& w, worker& victim, frame* f, const frame& cf,
                                     ready_reason why) {
  { P::policy_name } -> std::convertible_to<const char*>;
  { p.find_local_work(w) } -> std::same_as<frame*>;
  { p.choose_victim(w) } -> std::same_as<worker*>;
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
  explicit policy_defaults(runtime_state& rt) : rt(&rt) {}
  frame* find_local_work(worker&) { return nullptr; }
  frame* steal_from(worker& thief, worker& victim);
  frame* after_steal(worker&, frame* f) { return f; }
  bool keep_at_sync(worker&, const frame&) { return true; }
  frame* on_ready(worker&, frame* parent, ready_reason) { return parent; }
  void route_spawn(worker& w, frame* f);
  bool has_work_for(worker&) { return false; }
  runtime_state* rt;
};

class policy_base {
 public:
  virtual ~policy_base() = default;
  virtual const char* name() const = 0;
  virtual frame* find_local_work(worker& w) = 0;
  virtual worker* choose_victim(worker& w) = 0;
  virtual frame* steal_from(worker& w, worker& victim) = 0;
  virtual frame* after_steal(worker& w, frame* f) = 0;
  virtual bool keep_at_sync(worker& w, const frame& parent) = 0;
  virtual frame* on_ready(worker& w, frame* parent, ready_reason why) = 0;
  virtual void route_spawn(worker& w, frame* f) = 0;
  virtual bool has_work_for(worker& w) = 0;
};

template <scheduling_policy P>
class policy_adapter final : public policy_base {
 public:
  explicit policy_adapter(runtime_state& rt) : impl_(rt) {}
  const char* name() const override { return P::policy_name; }
  frame* find_local_work(worker& w) override { return impl_.find_local_work(w); }
  worker* choose_victim(worker& w) override { return impl_.choose_victim(w); }
  frame* steal_from(worker& w, worker& v) override { return impl_.steal_from(w, v); }
  frame* after_steal(worker& w, frame* f) override { return impl_.after_steal(w, f); }
  bool keep_at_sync(worker& w, const frame& p) override { return impl_.keep_at_sync(w, p); }
  frame* on_ready(worker& w, frame* p, ready_reason why) override { return impl_.on_ready(w, p, why); }
  void route_spawn(worker& w, frame* f) override { impl_.route_spawn(w, f); }
  bool has_work_for(worker& w) override { return impl_.has_work_for(w); }

 private:
  P impl_;
};

// The registry (policy/registry.cpp): names accepted by LOCUS_POLICY.
std::vector<std::string> policy_names();
// Throws config_error naming LOCUS_POLICY and the accepted names.
std::unique_ptr<policy_base> make_policy(const std::string& name, runtime_state& rt);

}  // namespace locus::detail
