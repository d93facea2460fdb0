#include "policy/multilevel/ml_ws.hpp"

#include <cassert>
#include <vector>

namespace locus::detail {
namespace {

// policy[1] of a tied group's own context (never of a task's): its sync
// unties it.
constexpr std::uint32_t tied_mark = 1;

// A task's domain as its context's first word (and deque tag): node + 1,
// 0 for a root task (above memory).
std::uint32_t domain_tag(int node) { return static_cast<std::uint32_t>(node + 1); }

}  // namespace

ml_ws_policy::ml_ws_policy(policy_context& c)
    : policy_defaults(c),
      tree_(c.topo(), c.places()),
      lead_(static_cast<std::size_t>(c.num_workers())),
      leader_(static_cast<std::size_t>(tree_.size())),
      tied_(static_cast<std::size_t>(tree_.size())) {
  for (int id = 0; id < tree_.size(); ++id) {
    parked_.push_back(tree_.is_leaf(id) ? nullptr : std::make_unique<parked_frames>());
    tied_[static_cast<std::size_t>(id)].value.store(0, std::memory_order_relaxed);
  }
  for (int w = 0; w < c.num_workers(); ++w) {
    const int lead = tree_.initial_lead(w);
    lead_[static_cast<std::size_t>(w)].value.store(lead, std::memory_order_relaxed);
    leader_[static_cast<std::size_t>(lead)].value.store(w, std::memory_order_relaxed);
    // Every group's first spawn reaches open_group (hook_work_hints); every
    // push carries its domain as the deque tag (hook_tag_frames).
    c.worker_at(w).hooks |= hook_work_hints | hook_tag_frames;
  }
}

int ml_ws_policy::parent_of_lead(int worker) const { return tree_.at(lead_of(worker)).parent; }

// Figure 13 lines 54-57: tie the group to the node this worker leads if
// it fits, and step down to the child of that node that holds the worker.
bool ml_ws_policy::open_group(worker_view& w, task_context& group, std::size_t footprint) {
  const int c = lead_of(w.id);
  if (tree_.is_leaf(c)) return false;  // line 55: a leaf ties nothing
  if (footprint != unknown_footprint && footprint > tree_.at(c).capacity) return false;  // line 60
  park(w, c);
  if (tied_[static_cast<std::size_t>(c)].value.fetch_add(1, std::memory_order_acq_rel) != 0)
    ctx->count(w, overlapping_ties);  // never, by construction; tests check it
  const int child = tree_.child_toward(c, w.id);
  leader_[static_cast<std::size_t>(c)].value.store(-1, std::memory_order_release);
  lead_[static_cast<std::size_t>(w.id)].value.store(child, std::memory_order_release);
  leader_[static_cast<std::size_t>(child)].value.store(w.id, std::memory_order_release);
  group.policy[0] = domain_tag(c);
  group.policy[1] = tied_mark;
  w.ctx.policy[0] = domain_tag(c);  // the rest of the task until the sync is part of the group
  ctx->count(w, ties);
  ctx->trace(w, "tie", c);
  // The leaders of c's children schedule the group now; wake those asleep.
  for (int k : tree_.at(c).children) {
    const int v = leader_[static_cast<std::size_t>(k)].value.load(std::memory_order_acquire);
    if (v >= 0 && v != w.id) ctx->wake(ctx->worker_at(v));
  }
  return true;
}

// The frames on the leader's deque belong to the level above the tie;
// they move to the node's parked frames, where the level above reaches
// them (see the header).
void ml_ws_policy::park(worker_view& w, int node) {
  std::vector<frame*> newest_first;
  while (frame* f = w.deque.pop()) newest_first.push_back(f);
  if (newest_first.empty()) return;
  parked_frames& p = *parked_[static_cast<std::size_t>(node)];
  {
    std::lock_guard lock(p.lock);
    for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it) p.frames.push_back(*it);
    // seq_cst: pairs with has_work_for in a sleeper's last look.
    p.count.fetch_add(static_cast<int>(newest_first.size()), std::memory_order_seq_cst);
  }
  for (std::size_t i = 0; i < newest_first.size(); ++i) ctx->count(w, parked);
  const int parent = tree_.at(node).parent;
  if (parent < 0) return;
  for (int s : tree_.at(parent).children) {
    const int v = leader_[static_cast<std::size_t>(s)].value.load(std::memory_order_acquire);
    if (s != node && v >= 0) ctx->wake(ctx->worker_at(v));
  }
}

frame* ml_ws_policy::take_parked(int node, bool newest) {
  parked_frames* p = parked_[static_cast<std::size_t>(node)].get();
  if (p == nullptr || p->count.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard lock(p->lock);
  if (p->frames.empty()) return nullptr;
  frame* f;
  if (newest) {
    f = p->frames.back();
    p->frames.pop_back();
  } else {
    f = p->frames.front();
    p->frames.pop_front();
  }
  p->count.fetch_sub(1, std::memory_order_relaxed);
  return f;
}

// A child keeps its group's domain. Leaders of nodes that are not leaves
// answer local_distributed, so that fork_join forks as a task group, whose
// first spawn may tie it (open_group); the children's reports are ignored.
share_route ml_ws_policy::share_work(worker_view& w, const task_context&, task_context& child, double, double) {
  child.policy[1] = 0;
  return tree_.is_leaf(lead_of(w.id)) ? share_route::local : share_route::local_distributed;
}

// Figure 13 line 58: a tied group's sync is done; the worker running the
// continuation (a leader of one of c's children) leads c again, and the
// task goes back to the level above c.
void ml_ws_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  if (child != nullptr || group.policy[1] != tied_mark) return;
  const int c = static_cast<int>(group.policy[0]) - 1;
  const int was = lead_of(w.id);
  assert(tree_.at(was).parent == c && "the continuation of a tied group runs on a leader of the node's children");
  int expected = w.id;
  leader_[static_cast<std::size_t>(was)].value.compare_exchange_strong(expected, -1, std::memory_order_acq_rel);
  lead_[static_cast<std::size_t>(w.id)].value.store(c, std::memory_order_release);
  leader_[static_cast<std::size_t>(c)].value.store(w.id, std::memory_order_release);
  tied_[static_cast<std::size_t>(c)].value.fetch_sub(1, std::memory_order_acq_rel);
  w.ctx.policy[0] = domain_tag(tree_.at(c).parent);
  ctx->trace(w, "untie", c);
}

search_result ml_ws_policy::find_work(worker_view& w) {
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  const int lead = lead_of(w.id);
  if (frame* f = take_parked(lead, true)) {
    ctx->count(w, parked_takes);
    return {f, found_at::policy};
  }
  if (lead == cache_tree::root) {  // memory's leader runs the root tasks
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
    return {};
  }
  // One random steal among the leaders of the same level.
  const int parent = tree_.at(lead).parent;
  const auto& siblings = tree_.at(parent).children;
  if (siblings.size() < 2) return {};
  auto pick = static_cast<std::size_t>(ctx->rng(w).below(static_cast<std::uint64_t>(siblings.size() - 1)));
  if (siblings[pick] == lead) pick = siblings.size() - 1;
  const int s = siblings[pick];
  const int v = leader_[static_cast<std::size_t>(s)].value.load(std::memory_order_acquire);
  worker_view& victim = ctx->worker_at(v >= 0 ? v : tree_.at(s).workers.front());
  ctx->steal_attempt(w, victim);
  if (frame* f = take_parked(s, false)) {
    ctx->stole(w);
    ctx->count(w, parked_steals);
    return {f, found_at::steal};
  }
  if (v < 0 || v == w.id) return {};
  const std::uint32_t want = domain_tag(parent);
  if (frame* f = victim.deque.steal_if([want](std::uint32_t tag) { return tag == want; })) {
    ctx->stole(w);
    ctx->count(w, level_steals);
    return {f, found_at::steal};
  }
  return {};
}

bool ml_ws_policy::has_work_for(worker_view& w) {
  const int lead = lead_of(w.id);
  auto any = [&](int node) {
    const parked_frames* p = parked_[static_cast<std::size_t>(node)].get();
    return p != nullptr && p->count.load(std::memory_order_seq_cst) != 0;
  };
  if (any(lead)) return true;
  const int parent = tree_.at(lead).parent;
  if (parent < 0) return false;
  for (int s : tree_.at(parent).children)
    if (any(s)) return true;
  return false;
}

// Roots go to memory's leader; a deque's frames to the leaders of its
// owner's level.
bool ml_ws_policy::may_take(const worker_view& w, const worker_view* owner) {
  if (owner == nullptr) return lead_of(w.id) == cache_tree::root;
  if (owner == &w) return true;
  const int parent = parent_of_lead(w.id);
  return parent >= 0 && parent == parent_of_lead(owner->id);
}

policy_entry ml_ws_entry() {
  return {
      .name = "ml-ws",
      .make = &make_policy_of<ml_ws_policy>,
      // In the order of ml_ws_policy::counter.
      .counters = {"ties", "parked", "parked_takes", "parked_steals", "level_steals", "overlapping_ties"},
  };
}

}  // namespace locus::detail
