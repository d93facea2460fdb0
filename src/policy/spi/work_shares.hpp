// Work shares: how a task group's work is divided among its children, for
// the policies that distribute work (hook_work_hints: adws, ml-adws, ml-ws,
// sb, cats). ADWS figure 7 lines 16-26: a group takes the running task's
// context at its first spawn (lines 16-18); each child takes the next share
// of the group's work from the top of what is left (lines 19-22: its work
// hint; without one, 1 in a group given its total (section 6.4's equal
// shares when the total is the number of children), else half of what is
// left, the group's count being unknown); the policy turns the share into the
// child's context (share_work) and says whether the child runs here at
// once (line 26) or leaves this worker (line 24). The policy's own hooks
// (open_group, share_work, share_done) say what a share means to it; this
// file is only the arithmetic they share, called by the core's cold spawn
// path (src/core/spawn_hooks.cpp).
#pragma once

#include <cstdint>

#include "policy/spi/hooks.hpp"

namespace locus::detail {

class policy_base;

// Where a child with a share of its group's work goes (policy share_work):
// here at once in a group the policy does not distribute (local), here at
// once in one it does (local_distributed: ADWS's cross-worker groups,
// whose children report when done), or away (queued for route_spawn).
enum class share_route : std::uint8_t { local, local_distributed, away };

// A group's first spawn (or enqueue) of a round: the group takes the
// running task's context, and the policy may tie it to a cache (the
// multi-level policies, ADWS figure 13), in which case its sync reports back.
void open_share_round(policy_base& p, worker_view& w, group_state& g, group_hints& h);

// A child's share and what follows from it: its context, the group it
// reports to when done (nullptr: none), and whether it is queued rather
// than run here at once.
struct share_plan {
  task_context ctx;
  const task_context* report_to = nullptr;
  bool queued = false;
};
share_plan plan_share(policy_base& p, worker_view& w, group_state& g, group_hints& h, bool first, std::int32_t place,
                      double work, bool parent_first);

// fork_join: whether the running task spreads over several workers, so
// that its two branches become a task group of two with their work (a
// branch without a hint is guessed equal to the other, ADWS section 6.4's
// 1:1). f_work and g_work are the hints, below 0 when not given.
bool fork_spreads(policy_base& p, worker_view& w, double f_work, double g_work);

}  // namespace locus::detail
