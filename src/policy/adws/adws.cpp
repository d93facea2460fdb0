#include "policy/adws/adws.hpp"

#include <stdexcept>
#include <string>

#include "locus/errors.hpp"

namespace locus::detail {
namespace {

// A thief sets aside at most this many shallower frames per steal attempt
// (steal_primary); depths themselves are exact (range.hpp).
constexpr std::uint32_t max_set_aside = 64;

std::uint32_t depth_of_tag(std::uint32_t tag) { return tag == 0 ? 0 : tag - 1; }

}  // namespace

adws_policy::adws_policy(policy_context& c)
    : policy_base(c), codec_(c.num_workers()), steals_(static_cast<std::size_t>(c.num_workers())) {
  if (c.num_workers() > 0xffff)
    throw config_error("LOCUS_POLICY=adws: at most 65535 workers (steal ranges are 16-bit), got " +
                       std::to_string(c.num_workers()));
  for (int i = 0; i < c.num_workers(); ++i) {
    inbound_.push_back(std::make_unique<adws_inbound>());
    // Spawns pass their work shares (hook_work_hints); pushes carry the
    // depth as the deque tag, for figure 11's depth test (hook_tag_frames).
    c.worker_at(i).hooks |= hook_work_hints | hook_tag_frames;
  }
}

// Section 3.2, task depths: a cross-worker group is one level deeper than
// the task that creates it, and its children, and the continuation of that
// task (which holds only the group's type (3) children, figure 8 footnote
// 2), have the group's depth. So the group's context and the running task's
// take depth + 1 at the group's first spawn; the task's goes back at the
// group's sync (share_done). The steal threshold of figure 11 (lines 44,
// 48: TG.depth) is then the depth of the group's children and of nothing
// outside it.
bool adws_policy::open_group(worker_view& w, task_context& group, std::size_t) {
  range g = codec_.of(group);
  if (!codec_.cross_worker(g)) return false;  // a non-cross-worker group keeps its task's depth
  // Exact, never capped: groups past a cap with the same bounds would share
  // one steal word, and the inner one's release would clear the outer's.
  if (g.depth >= steal_word::max_depth)
    throw std::length_error("LOCUS_POLICY=adws: cross-worker task groups nested more than " +
                            std::to_string(steal_word::max_depth) + " deep");
  ++g.depth;
  codec_.store(group, g);
  codec_.store(w.ctx, g);
  return true;  // its sync reports back (share_done), which restores the task's depth
}

// Figure 7 lines 21-26: the child's range is its share of the group's, at
// the group's depth (open_group), and it leaves this worker if another
// owns it.
share_route adws_policy::share_work(worker_view& w, const task_context& group, task_context& child, double lo,
                                    double hi) {
  const range g = codec_.of(group);
  if (!codec_.cross_worker(g)) return share_route::local;  // the child keeps the group's range
  codec_.store(child, codec_.part(g, lo, hi));
  return codec_.owner(codec_.of(child)) == w.id ? share_route::local_distributed : share_route::away;
}

// Line 24: migrate to worker floor(x), into its migration queue at the
// child's depth. Only children of a distributed group come here: the
// others keep their task's range and stay on this worker, wherever that
// range's owner is (spawn_hooks.cpp; section 3.2, a stolen
// task's descendants are "managed in the primary queue of the thief").
void adws_policy::route_spawn(worker_view& w, frame* f) {
  const int to = codec_.owner(codec_.of(f->ctx));
  if (to == w.id) {
    push_own(w, f);
    return;
  }
  ctx->count(w, migrated);
  ctx->trace(w, "migrate", to);
  give(to, f, adws_inbound::queue::migrated);
}

void adws_policy::give(int to, frame* f, adws_inbound::queue queue) {
  inbound_[static_cast<std::size_t>(to)]->give(f, queue, depth_of_tag(f->ctx.policy[0]));
  ctx->wake(ctx->worker_at(to));
}

// Line 31: a cross-worker task continues on its owner.
bool adws_policy::keep_at_sync(worker_view& w, const frame& parent) {
  const range r = codec_.of(parent.ctx);
  return !codec_.cross_worker(r) || codec_.owner(r) == w.id;
}

frame* adws_policy::on_ready(worker_view& w, frame* parent, ready_reason) {
  const range r = codec_.of(parent->ctx);
  if (!codec_.cross_worker(r) || codec_.owner(r) == w.id) return parent;
  ctx->count(w, returned);
  ctx->trace(w, "return to owner", codec_.owner(r));
  give(codec_.owner(r), parent, adws_inbound::queue::returned);
  return nullptr;
}

// Figure 11, with the continuations returned to this worker (figure 7
// line 31) first of all: section 3.1 has the owner run a returned
// continuation at its next scheduling point, before its primary queue.
// The deque may then still hold frames of other work (a task waiting at a
// sync above its parent's continuation); joins take back only their own
// frame, known by address and child fiber (join.cpp, take_back_parent).
search_result adws_policy::find_work(worker_view& w) {
  adws_inbound& in = *inbound_[static_cast<std::size_t>(w.id)];
  if (frame* f = in.take_returned()) {
    ctx->count(w, returned_takes);
    return {f, found_at::policy};
  }
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};  // lines 33-35
  if (frame* f = in.take_aside()) return {f, found_at::policy};  // the rest of the primary queue
  if (frame* f = in.take_migrated()) {  // lines 36-38
    ctx->count(w, migration_takes);
    return {f, found_at::policy};
  }
  // The root range [0, P) belongs to worker 0; with arenas, roots and the
  // frames forwarded to an arena are its workers' (worker 0 may serve
  // another arena).
  if (w.id == 0 || ctx->arenas_in_use())
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
  worker_view* victim = choose_victim(w);  // lines 39-42
  if (victim == nullptr || !ctx->steal_attempt(w, *victim)) return {};
  if (frame* f = steal_from(w, *victim)) {
    ctx->stole(w);
    return {f, found_at::steal};
  }
  return {};
}

worker_view* adws_policy::choose_victim(worker_view& thief) {
  const steal_word s = steal_range(thief.id);
  if (!s.valid) {  // line 40: not dominated, no steal
    ctx->count(thief, undominated_rounds);
    return nullptr;
  }
  const std::uint32_t last = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(ctx->num_workers() - 1));
  if (last <= s.lo) return nullptr;
  // Line 42: uniform over floor(x)..floor(y) but the thief (which is in it).
  std::uint32_t v = s.lo + ctx->rng(thief).below(last - s.lo);
  if (v >= static_cast<std::uint32_t>(thief.id)) ++v;
  return &ctx->worker_at(static_cast<int>(v));
}

frame* adws_policy::steal_from(worker_view& thief, worker_view& victim) {
  const steal_word s = steal_range(thief.id);
  if (!s.valid) return nullptr;
  const auto v = static_cast<std::uint32_t>(victim.id);
  if (v != s.lo)  // lines 43-46: not the migration queues of floor(x)
    if (frame* f = inbound_[static_cast<std::size_t>(victim.id)]->steal_migrated(s.depth)) {
      ctx->count(thief, local_steals);
      return f;
    }
  if (v != s.hi)  // lines 47-50: not the primary queues of floor(y)
    if (frame* f = steal_primary(thief, victim, s.depth)) {
      ctx->count(thief, local_steals);
      return f;
    }
  return nullptr;
}

// Lines 48-50: the victim's primary queues from the top down, from depth
// `depth` on. They are its deque and the frames set aside from it. A frame
// on top of the deque shallower than `depth` (an ancestor's continuation,
// outside the thief's group) would hide the deeper frames under it, which
// the paper's per-depth queues keep reachable: the thief sets it aside at
// its depth, where the victim still takes it once its deque is empty, and
// looks again. Without this a group's owner was never a victim while it
// had such a frame: flat unhinted spawns under a fork_join ran on the owner
// alone (docs/architecture.md).
frame* adws_policy::steal_primary(worker_view& thief, worker_view& victim, std::uint32_t depth) {
  adws_inbound& in = *inbound_[static_cast<std::size_t>(victim.id)];
  if (frame* f = in.steal_aside(depth)) return f;
  for (std::uint32_t tries = 0; tries < max_set_aside; ++tries) {
    std::uint32_t tag = 0;
    frame* top = victim.deque.steal_if([&](std::uint32_t t) {
      tag = t;
      return true;
    });
    if (top == nullptr) return nullptr;  // empty, or another thief won the race
    if (depth_of_tag(tag) >= depth) return top;
    in.give(top, adws_inbound::queue::aside, depth_of_tag(tag));
    ctx->count(thief, set_aside);
    ctx->trace(thief, "set aside", victim.id);
  }
  return nullptr;
}

bool adws_policy::has_work_for(worker_view& w) {
  return inbound_[static_cast<std::size_t>(w.id)]->has_work();
}

// Roots start on worker 0; a thief takes only what its steal range allows.
bool adws_policy::may_take(const worker_view& w, const worker_view* owner) {
  if (owner == nullptr) return w.id == 0 || ctx->arenas_in_use();
  if (owner == &w) return true;
  const steal_word s = steal_range(w.id);
  const auto o = static_cast<std::uint32_t>(owner->id);
  return s.valid && o >= s.lo && o <= s.hi;
}

// Section 3.2: a cross-worker group is dominant once one of its
// cross-worker children has finished; it stops being anything once its
// sync is done.
void adws_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  const range g = codec_.of(group);
  if (!codec_.cross_worker(g)) return;
  if (child == nullptr) {
    release(g);
    // The creating task goes on at its own depth, one above the group's
    // (open_group); a later group it creates is at the same depth as this one.
    range own = codec_.of(w.ctx);
    if (own.depth >= g.depth && g.depth > 0) {
      own.depth = g.depth - 1;
      codec_.store(w.ctx, own);
    }
    return;
  }
  if (codec_.cross_worker(codec_.of(*child))) dominate(w, g);
}

// Every worker the group dominates (floor(x) <= k < floor(y)) steals within
// it, unless a shallower (topmost) dominant group dominates it already.
void adws_policy::dominate(worker_view& w, const range& group) {
  steal_word s;
  s.valid = true;
  s.lo = codec_.floor(group.x);
  s.hi = codec_.floor(group.y);
  s.depth = group.depth;
  const std::uint32_t end = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(ctx->num_workers()));
  for (std::uint32_t k = s.lo; k < end; ++k)
    if (s.widen(steals_[k].word) && static_cast<int>(k) != w.id) ctx->wake(ctx->worker_at(static_cast<int>(k)));
}

// The group is done: the workers whose steal range it gave fall back to
// none (an ancestor that became dominant meanwhile has replaced it with
// its own, which stays).
void adws_policy::release(const range& group) {
  steal_word s;
  s.valid = true;
  s.lo = codec_.floor(group.x);
  s.hi = codec_.floor(group.y);
  s.depth = group.depth;
  std::uint64_t word = s.pack();
  const std::uint32_t end = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(ctx->num_workers()));
  for (std::uint32_t k = s.lo; k < end; ++k) {
    std::uint64_t expected = word;
    steals_[k].word.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  }
}

policy_entry adws_entry() {
  return {
      .name = "adws",
      .make = &make_policy_of<adws_policy>,
      // In the order of adws_policy::counter.
      .counters = {"migrated", "returned", "returned_takes", "migration_takes", "local_steals", "undominated_rounds",
                   "set_aside"},
  };
}

}  // namespace locus::detail
