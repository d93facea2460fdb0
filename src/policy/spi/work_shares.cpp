#include "policy/spi/work_shares.hpp"

#include "policy/spi/policy.hpp"

namespace locus::detail {
namespace {
double total_of(const group_hints& h) {
  return (h.flags & group_hints::work_given) && h.work_total > 0 ? h.work_total : 1.0;
}
}  // namespace

void open_share_round(policy_base& p, worker_view& w, group_state& g, group_hints& h) {
  h.ctx = w.ctx;
  h.work_left = total_of(h);
  const std::size_t bytes = (h.flags & group_hints::footprint_given) ? h.footprint : unknown_footprint;
  if (p.open_group(w, h.ctx, bytes)) {
    h.flags |= group_hints::distributed;
    g.stolen = true;  // sync takes the slow path, which reports back
  }
}

share_plan plan_share(policy_base& p, worker_view& w, group_state& g, group_hints& h, bool first, std::int32_t place,
                      double work, bool parent_first) {
  const double total = total_of(h);
  if (first) open_share_round(p, w, g, h);
  // Section 6.4: without hints every child of a group is guessed to have
  // the same work. Figure 7 divides by TG.work, known at INIT (line 16), so
  // in a group given its total an unhinted child counts 1: with
  // locus::work(n) for n children the shares are equal. Without a total
  // the count is unknown until the sync, and the child's range is needed
  // now (line 24 migrates it, line 26 runs it), so it takes half of what
  // is left: the 1 : 1 guess between it and the rest of the group.
  const bool counted = (h.flags & group_hints::work_given) != 0;
  double share = counted ? (work >= 0 ? work : 1.0) : h.work_left / 2;
  if (share > h.work_left) share = h.work_left;
  const double hi = h.work_left / total;
  h.work_left -= share;
  share_plan plan;
  plan.ctx = h.ctx;
  plan.ctx.place = place;
  const share_route route = p.share_work(w, h.ctx, plan.ctx, h.work_left / total, hi);
  if (route != share_route::local) {
    plan.report_to = &h.ctx;
    h.flags |= group_hints::distributed;
    g.stolen = true;  // sync takes the slow path, which tells the policy
  }
  // A child of a group without a total that stays here is queued, not run
  // at once, in a group spread over several workers: its share (half of
  // what is left) is a guess, and in a flat group of such children this
  // worker's shares shrink while the others' do not grow. Queued, the
  // children can be stolen once the group dominates (ADWS section 3.2); run
  // at once, only this task's continuation could be, and its next children
  // would be migrated back here.
  plan.queued = route == share_route::away || parent_first || (route == share_route::local_distributed && !counted);
  return plan;
}

bool fork_spreads(policy_base& p, worker_view& w, double f_work, double g_work) {
  // f's share comes from the top of the task's range (figure 7 line 21).
  const double fw = f_work >= 0 ? f_work : 1;
  const double gw = g_work >= 0 ? g_work : fw;
  task_context probe = w.ctx;
  return p.share_work(w, w.ctx, probe, fw + gw > 0 ? gw / (fw + gw) : 0.5, 1.0) != share_route::local;
}

}  // namespace locus::detail
