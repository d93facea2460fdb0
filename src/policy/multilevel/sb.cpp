#include "policy/multilevel/sb.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "util/parse_setting.hpp"

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

// sigma: a number in (0, 1]; mu: in [0, 1] (0: a task that skips a level
// charges nothing there).
double parse_fraction(std::string_view setting, std::string_view text, bool zero_ok) {
  const char* accepted = zero_ok ? "a number from 0 to 1" : "a number above 0, at most 1";
  const double v = parse_real(setting, text, 0, 1, accepted);
  if (v == 0 && !zero_ok) reject_setting(setting, text, accepted);
  return v;
}

}  // namespace

sb_policy::sb_policy(policy_context& c)
    : policy_base(c),
      tree_(c.topo(), c.places()),
      used_(static_cast<std::size_t>(tree_.size())),
      sigma_(parse_fraction("LOCUS_SB_SIGMA", c.option("sigma"), false)),
      mu_(parse_fraction("LOCUS_SB_MU", c.option("mu"), true)) {
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

std::uint64_t sb_policy::skip_charge(int node, std::uint64_t lines) const {
  const auto cap = static_cast<double>(tree_.at(node).capacity / line_bytes);
  return std::min(lines, static_cast<std::uint64_t>(mu_ * cap));
}

void sb_policy::release(int anchor, int outer, std::uint64_t lines, int until) {
  used_[static_cast<std::size_t>(anchor)].lines.fetch_sub(lines, std::memory_order_acq_rel);
  for (int m = tree_.at(anchor).parent; m >= 0 && m != outer && m != until; m = tree_.at(m).parent)
    used_[static_cast<std::size_t>(m)].lines.fetch_sub(skip_charge(m, lines), std::memory_order_acq_rel);
}

// The smallest cache on this worker's path, below the one its task is
// anchored to, that the group befits (footprint <= sigma * capacity) and
// that has room, with room for its skip-level charge (mu) at every cache
// between the two.
bool sb_policy::open_group(worker_view& w, task_context& group, std::size_t footprint) {
  if (footprint == unknown_footprint) return false;
  const std::uint32_t from = w.ctx.policy[0] & node_bits;
  const int outer = node_of(from);
  const std::uint64_t lines =
      std::clamp<std::uint64_t>((footprint + line_bytes - 1) / line_bytes, 1, std::uint64_t{0x7fffffff});
  for (int n = tree_.leaf_of(w.id); n > 0 && n != outer; n = tree_.at(n).parent) {
    // A larger cache up the path may take it.
    if (static_cast<double>(footprint) > sigma_ * static_cast<double>(tree_.at(n).capacity)) continue;
    bool room = reserve(n, lines);
    if (room) {
      for (int m = tree_.at(n).parent; m != outer; m = tree_.at(m).parent) {
        if (reserve(m, skip_charge(m, lines))) continue;
        release(n, outer, lines, m);  // what was charged below m
        room = false;
        break;
      }
    }
    if (!room) {
      ctx->count(w, no_room);
      continue;
    }
    group.policy[0] = tag(n) | anchor_mark;
    group.policy[1] = static_cast<std::uint32_t>(lines);
    group.policy[2] = from;
    w.ctx.policy[0] = tag(n);
    ctx->count(w, anchored);
    if (tree_.is_leaf(n)) ctx->count(w, private_anchored);
    ctx->trace(w, "anchor", n);
    return true;
  }
  return false;
}

// A child keeps its group's cache. A worker with a cache below its group's
// answers local_distributed, so that fork_join forks as a task group whose
// first spawn may anchor it.
share_route sb_policy::share_work(worker_view& w, const task_context& group, task_context& child, double, double) {
  child.policy[0] &= node_bits;
  child.policy[1] = child.policy[2] = 0;
  return tree_.leaf_of(w.id) != node_of(group.policy[0]) ? share_route::local_distributed : share_route::local;
}

void sb_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  if (child != nullptr || (group.policy[0] & anchor_mark) == 0) return;
  release(node_of(group.policy[0]), node_of(group.policy[2]), group.policy[1]);
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
      .options = {{.name = "sigma",
                   .env = "LOCUS_SB_SIGMA",
                   .accepted = "a number above 0, at most 1",
                   .default_value = "0.5",
                   .help = "dilation: a group is anchored to the smallest cache whose capacity times sigma holds its "
                           "footprint (SB-D as seed 003 ran it: 0.5)",
                   .check = [](std::string_view s, std::string_view v) { parse_fraction(s, v, false); }},
                  {.name = "mu",
                   .env = "LOCUS_SB_MU",
                   .accepted = "a number from 0 to 1",
                   .default_value = "0.2",
                   .help = "a group anchored below a cache its task skipped charges it min(mu * capacity, footprint) "
                           "(SB-D as seed 003 ran it: 0.2)",
                   .check = [](std::string_view s, std::string_view v) { parse_fraction(s, v, true); }}},
      // In the order of sb_policy::counter.
      .counters = {"anchored", "no_room", "near_steals", "far_steals", "private_anchored"},
  };
}

}  // namespace locus::detail
