#include "policy/multilevel/ml_ws.hpp"

namespace locus::detail {

ml_ws_policy::ml_ws_policy(policy_context& c)
    : policy_base(c), leaders_(c, {.ties = ties, .parked = parked, .overlapping_ties = overlapping_ties}) {
  // Every group's first spawn reaches open_group (hook_work_hints); every
  // push carries its domain as the deque tag (hook_tag_frames).
  for (int w = 0; w < c.num_workers(); ++w) c.worker_at(w).hooks |= hook_work_hints | hook_tag_frames;
}

// A child keeps its group's domain. Leaders of nodes that are not leaves
// answer local_distributed, so that fork_join forks as a task group, whose
// first spawn may tie it (open_group); the children's reports are ignored.
share_route ml_ws_policy::share_work(worker_view& w, const task_context&, task_context& child, double, double) {
  child.policy[0] &= ~level_word::tie_mark;
  return leaders_.tree().is_leaf(leaders_.lead_of(w.id)) ? share_route::local : share_route::local_distributed;
}

void ml_ws_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  if (child == nullptr && level_word::tied(group)) leaders_.untie(w, level_word::domain(group));
}

frame* ml_ws_policy::on_ready(worker_view& w, frame* parent, ready_reason) {
  if (leaders_.at_level(w, parent->ctx)) return parent;
  leaders_.hand_over(w, parent);
  return nullptr;
}

search_result ml_ws_policy::find_work(worker_view& w) {
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  const int lead = leaders_.lead_of(w.id);
  if (frame* f = leaders_.take_parked(lead, true)) {
    ctx->count(w, parked_takes);
    return {f, found_at::policy};
  }
  if (lead == cache_tree::root) {  // memory's leader runs the root tasks
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
    return {};
  }
  if (leaders_.takes_shared(w.id))
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
  // One random steal among the leaders of the same level.
  const int parent = leaders_.domain_of(lead);
  const auto& siblings = leaders_.children_of(parent);
  if (siblings.size() < 2) return {};
  auto pick = static_cast<std::size_t>(ctx->rng(w).below(static_cast<std::uint64_t>(siblings.size() - 1)));
  if (siblings[pick] == lead) pick = siblings.size() - 1;
  const int s = siblings[pick];
  const int v = leaders_.leader_of(s);
  worker_view& victim = ctx->worker_at(v >= 0 ? v : leaders_.tree().at(s).workers.front());
  if (!ctx->steal_attempt(w, victim)) return {};  // never under this policy: its arenas share every worker
  if (frame* f = leaders_.take_parked(s, false)) {
    ctx->stole(w);
    ctx->count(w, parked_steals);
    return {f, found_at::steal};
  }
  if (v < 0 || v == w.id) return {};
  const std::uint32_t want = level_word::tag(parent);
  if (frame* f = victim.deque.steal_if([want](std::uint32_t tag) { return (tag & level_word::domain_bits) == want; })) {
    ctx->stole(w);
    ctx->count(w, level_steals);
    return {f, found_at::steal};
  }
  return {};
}

bool ml_ws_policy::has_work_for(worker_view& w) {
  const int lead = leaders_.lead_of(w.id);
  if (leaders_.has_parked(lead)) return true;
  const int parent = leaders_.domain_of(lead);
  if (parent < 0) return false;
  for (int s : leaders_.children_of(parent))
    if (leaders_.has_parked(s)) return true;
  return false;
}

// Roots go to memory's leader (takes_shared); a deque's frames to the
// leaders of its owner's level.
bool ml_ws_policy::may_take(const worker_view& w, const worker_view* owner) {
  if (owner == nullptr) return leaders_.takes_shared(w.id);
  if (owner == &w) return true;
  const int level = leaders_.level_of(w.id);
  return level >= 0 && level == leaders_.level_of(owner->id);
}

policy_entry ml_ws_entry() {
  return {
      .name = "ml-ws",
      .make = &make_policy_of<ml_ws_policy>,
      // In the order of ml_ws_policy::counter.
      .counters = {"ties", "parked", "parked_takes", "parked_steals", "level_steals", "overlapping_ties"},
      // One tree of caches and its leaders over the whole machine.
      .isolates_arenas = false,
  };
}

}  // namespace locus::detail
