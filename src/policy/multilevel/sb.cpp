#include "policy/multilevel/sb.hpp"

#include <algorithm>

namespace locus::detail {
namespace {

// Context words: policy[0] is the frame's cache + 1 (0: memory, a root
// task; the deque tag), with the anchor mark in bit 31 of an anchored
// group's own context, whose policy[1] holds its lines and policy[2] the
// cache its task was anchored to before (+ 1).
constexpr std::uint32_t node_bits = 0xffff;
constexpr std::uint32_t anchor_mark = 1u << 31;
constexpr std::uint64_t line_bytes = 64;

int node_of(std::uint32_t word) { return std::max(0, static_cast<int>(word & node_bits) - 1); }
std::uint32_t tag(int node) { return static_cast<std::uint32_t>(node + 1); }

}  // namespace

sb_policy::sb_policy(policy_context& c)
    : policy_base(c), tree_(c.topo(), c.places()), used_(static_cast<std::size_t>(tree_.size())) {
  for (int w = 0; w < c.num_workers(); ++w) {
    lowest_shared_.push_back(tree_.at(tree_.leaf_of(w)).parent);
    // Groups reach open_group (hook_work_hints); pushes carry their cache
    // as the deque tag (hook_tag_frames).
    c.worker_at(w).hooks |= hook_work_hints | hook_tag_frames;
  }
}

bool sb_policy::holds(int node, int worker) const {
  for (int n = tree_.leaf_of(worker); n >= 0; n = tree_.at(n).parent)
    if (n == node) return true;
  return false;
}

bool sb_policy::reserve(int node, std::uint64_t lines) {
  const std::uint64_t capacity = tree_.at(node).capacity / line_bytes;
  auto& used = used_[static_cast<std::size_t>(node)].lines;
  std::uint64_t now = used.load(std::memory_order_relaxed);
  do {
    if (now + lines > capacity) return false;
  } while (!used.compare_exchange_weak(now, now + lines, std::memory_order_acq_rel));
  return true;
}

// The smallest cache on this worker's path, below the one its task is
// anchored to, that the group fits and that has room.
bool sb_policy::open_group(worker_view& w, task_context& group, std::size_t footprint) {
  if (footprint == unknown_footprint) return false;
  const std::uint32_t from = w.ctx.policy[0] & node_bits;
  const int outer = node_of(from);
  const std::uint64_t lines =
      std::clamp<std::uint64_t>((footprint + line_bytes - 1) / line_bytes, 1, std::uint64_t{0x7fffffff});
  for (int n = lowest_shared_[static_cast<std::size_t>(w.id)]; n > 0 && n != outer; n = tree_.at(n).parent) {
    if (footprint > tree_.at(n).capacity) continue;  // a larger cache up the path may take it
    if (!reserve(n, lines)) {
      ctx->count(w, no_room);
      continue;
    }
    group.policy[0] = tag(n) | anchor_mark;
    group.policy[1] = static_cast<std::uint32_t>(lines);
    group.policy[2] = from;
    w.ctx.policy[0] = tag(n);
    ctx->count(w, anchored);
    ctx->trace(w, "anchor", n);
    return true;
  }
  return false;
}

// A child keeps its group's cache. Workers with a shared cache below their
// task's answer local_distributed, so that fork_join forks as a task group
// whose first spawn may anchor it.
share_route sb_policy::share_work(worker_view& w, const task_context& group, task_context& child, double, double) {
  child.policy[0] &= node_bits;
  child.policy[1] = child.policy[2] = 0;
  const int lowest = lowest_shared_[static_cast<std::size_t>(w.id)];
  return lowest > 0 && lowest != node_of(group.policy[0]) ? share_route::local_distributed : share_route::local;
}

void sb_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  if (child != nullptr || (group.policy[0] & anchor_mark) == 0) return;
  used_[static_cast<std::size_t>(node_of(group.policy[0]))].lines.fetch_sub(group.policy[1], std::memory_order_acq_rel);
  w.ctx.policy[0] = group.policy[2];
}

search_result sb_policy::find_work(worker_view& w) {
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
  const int n = ctx->num_workers();
  if (n < 2) return {};
  // Half of the attempts within the lowest shared cache, half anywhere.
  const auto& near = tree_.at(std::max(0, lowest_shared_[static_cast<std::size_t>(w.id)])).workers;
  const bool go_near = near.size() > 1 && ctx->rng(w).below(2) == 0;
  int v;
  if (go_near) {
    v = near[ctx->rng(w).below(static_cast<std::uint64_t>(near.size()))];
  } else {
    v = static_cast<int>(ctx->rng(w).below(static_cast<std::uint64_t>(n)));
  }
  if (v == w.id) return {};
  worker_view& victim = ctx->worker_at(v);
  if (!ctx->steal_attempt(w, victim)) return {};
  const int me = w.id;
  if (frame* f = victim.deque.steal_if([&](std::uint32_t t) { return holds(node_of(t), me); })) {
    ctx->stole(w);
    ctx->count(w, go_near ? near_steals : far_steals);
    return {f, found_at::steal};
  }
  return {};
}

policy_entry sb_entry() {
  return {
      .name = "sb",
      .make = &make_policy_of<sb_policy>,
      // In the order of sb_policy::counter.
      .counters = {"anchored", "no_room", "near_steals", "far_steals"},
  };
}

}  // namespace locus::detail
