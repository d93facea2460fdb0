#include "policy/multilevel/leaders.hpp"

#include <algorithm>
#include <cassert>

namespace locus::detail {

cache_leaders::cache_leaders(policy_context& ctx, counters ids)
    : ctx_(&ctx),
      ids_(ids),
      tree_(ctx.topo(), ctx.places()),
      lead_(index(ctx.num_workers())),
      leader_(index(tree_.size())),
      tied_(index(tree_.size())) {
  for (int id = 0; id < tree_.size(); ++id) {
    parked_.push_back(std::make_unique<parked_frames>());
    tied_[index(id)].value.store(0, std::memory_order_relaxed);
  }
  for (int w = 0; w < ctx.num_workers(); ++w) {
    const int lead = tree_.initial_lead(w);
    lead_[index(w)].value.store(lead, std::memory_order_relaxed);
    leader_[index(lead)].value.store(w, std::memory_order_relaxed);
  }
}

int cache_leaders::tie(worker_view& w, task_context& group, std::size_t footprint) {
  const int c = lead_of(w.id);
  if (tree_.is_leaf(c)) return -1;  // line 55: a leaf ties nothing
  if (!at_level(w, w.ctx)) return -1;  // a posted frame away from its level
  if (footprint != unknown_footprint && footprint > tree_.at(c).capacity) return -1;  // line 60
  park(w, c);
  if (tied_[index(c)].value.fetch_add(1, std::memory_order_acq_rel) != 0)
    ctx_->count(w, ids_.overlapping_ties);  // never, by construction; the tests check it
  const int child = tree_.child_toward(c, w.id);
  leader_[index(c)].value.store(-1, std::memory_order_release);
  lead_[index(w.id)].value.store(child, std::memory_order_release);
  leader_[index(child)].value.store(w.id, std::memory_order_release);
  // The group's children, and the rest of the running task until the sync
  // (the continuations its spawns push), belong to the new level.
  const std::uint32_t word = level_word::tag(c);
  group.policy[0] = word | level_word::tie_mark;
  w.ctx.policy[0] = word;
  ctx_->count(w, ids_.ties);
  ctx_->trace(w, "tie", c);
  wake_leaders(c, -1, w.id);
  return c;
}

void cache_leaders::untie(worker_view& w, int node) {
  const int was = lead_of(w.id);
  assert(tree_.at(was).parent == node && "a tied group's continuation runs on a leader of the node's children");
  int expected = w.id;
  leader_[index(was)].value.compare_exchange_strong(expected, -1, std::memory_order_acq_rel);
  lead_[index(w.id)].value.store(node, std::memory_order_release);
  leader_[index(node)].value.store(w.id, std::memory_order_release);
  tied_[index(node)].value.fetch_sub(1, std::memory_order_acq_rel);
  w.ctx.policy[0] = level_word::tag(tree_.at(node).parent);
  ctx_->trace(w, "untie", node);
}

// The frames on the leader's deque belong to the level above the tie.
void cache_leaders::park(worker_view& w, int node) {
  std::vector<frame*> frames;
  while (frame* f = w.deque.pop()) frames.push_back(f);
  if (frames.empty()) return;
  std::reverse(frames.begin(), frames.end());
  park_frames(w, node, frames);
}

void cache_leaders::hand_over(worker_view& w, frame* f) {
  const int d = level_word::domain(f->ctx);
  int node = cache_tree::root;
  if (d >= 0) {
    node = tree_.child_toward(d, w.id);
    if (node < 0) node = tree_.at(d).children.front();
  }
  park_frames(w, node, {f});
}

void cache_leaders::park_frames(worker_view& w, int node, const std::vector<frame*>& oldest_first) {
  parked_frames& p = *parked_[index(node)];
  {
    std::lock_guard lock(p.lock);
    for (frame* f : oldest_first) p.frames.push_back(f);
    // seq_cst: pairs with has_parked in a sleeper's last look.
    p.count.fetch_add(static_cast<int>(oldest_first.size()), std::memory_order_seq_cst);
  }
  for (std::size_t i = 0; i < oldest_first.size(); ++i) ctx_->count(w, ids_.parked);
  // Its leader, and the leaders of its siblings, may take them now.
  if (const int v = leader_of(node); v >= 0 && v != w.id) ctx_->wake(ctx_->worker_at(v));
  if (tree_.at(node).parent >= 0) wake_leaders(tree_.at(node).parent, node, w.id);
}

void cache_leaders::wake_leaders(int parent, int except, int skip_worker) {
  for (int k : tree_.at(parent).children) {
    const int v = leader_of(k);
    if (k != except && v >= 0 && v != skip_worker) ctx_->wake(ctx_->worker_at(v));
  }
}

frame* cache_leaders::take_parked(int node, bool newest) {
  parked_frames* p = parked_[index(node)].get();
  if (p->count.load(std::memory_order_acquire) == 0) return nullptr;
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

bool cache_leaders::has_parked(int node) const {
  return parked_[index(node)]->count.load(std::memory_order_seq_cst) != 0;
}

}  // namespace locus::detail
