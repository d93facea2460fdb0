#include "policy/multilevel/ml_adws.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "locus/errors.hpp"
#include "policy/spi/option_words.hpp"

namespace locus::detail {
namespace {

// The depth + 1 in policy[0] bits 16-30: depths are exact up to max_depth
// (deeper is refused, open_group), never capped, so that no two groups
// share a steal word (adws.cpp open_group).
constexpr std::uint32_t depth_shift = 16;
constexpr std::uint32_t depth_mask = 0x7fff;
constexpr std::uint32_t max_depth = depth_mask - 1;

std::uint32_t depth_of_tag(std::uint32_t tag) {
  const std::uint32_t d = (tag >> depth_shift) & depth_mask;
  return d == 0 ? 0 : d - 1;
}

}  // namespace

ml_adws_policy::ml_adws_policy(policy_context& c)
    : policy_base(c),
      leaders_(c,
               {.ties = ties,
                .parked = parked,
                .overlapping_ties = overlapping_ties,
                .flattened = flattened,
                .claims = claims},
               parse_on_off("flatten", c.option("flatten"))),
      steals_(static_cast<std::size_t>(leaders_.tree().size())) {
  for (int d = 0; d < leaders_.domains(); ++d) {
    const int k = static_cast<int>(leaders_.children_of(d).size());
    if (k > 0xffff)
      throw config_error("LOCUS_POLICY=ml-adws: at most 65535 caches or workers under one cache (steal ranges are "
                         "16-bit), got " + std::to_string(k));
    codecs_.emplace_back(std::max(k, 1));
  }
  for (int id = 0; id < leaders_.tree().size(); ++id) inbound_.push_back(std::make_unique<adws_inbound>());
  // Spawns pass their work shares and groups their footprints
  // (hook_work_hints); pushes carry the level and depth as the deque tag.
  for (int w = 0; w < c.num_workers(); ++w) c.worker_at(w).hooks |= hook_work_hints | hook_tag_frames;
}

range ml_adws_policy::range_of(const task_context& c) {
  return {c.policy[1], c.policy[2], depth_of_tag(c.policy[0])};
}

// Keeps the domain and the tie mark.
void ml_adws_policy::store(task_context& c, const range& r) {
  c.policy[0] = (c.policy[0] & ~(depth_mask << depth_shift)) | ((r.depth + 1) << depth_shift);
  c.policy[1] = static_cast<std::uint32_t>(r.x);
  c.policy[2] = static_cast<std::uint32_t>(r.y);
}

int ml_adws_policy::owner_node(int domain, const range& r) const {
  return leaders_.children_of(domain)[static_cast<std::size_t>(codec(domain).owner(r))];
}

int ml_adws_policy::away_owner(const worker_view& w, const task_context& c) const {
  const int d = level_word::domain(c);
  if (d < 0) return -1;
  const range r = range_of(c);
  if (!codec(d).cross_worker(r)) return -1;
  const int owner = owner_node(d, r);
  return owner == leaders_.lead_of(w.id) ? -1 : owner;
}

// A ready continuation that may not go on here: to its owner node if it
// has one elsewhere (line 31), or back to its level if this worker does
// not run that level (a frame posted away from it; leaders.hpp).
bool ml_adws_policy::send_away(worker_view& w, frame* f) {
  if (const int owner = away_owner(w, f->ctx); owner >= 0) {
    ctx->count(w, returned);
    give(w, owner, f, adws_inbound::queue::returned);
    return true;
  }
  if (leaders_.at_level(w, f->ctx)) return false;
  leaders_.hand_over(w, f);
  return true;
}

// Figures 13 and 15 (tie, flattening) and the new level's root range:
// [0, k) over its k caches, depth 0, for the group and for the rest of
// the running task. A cross-worker task covers the caches floor(x) through
// max(floor(x), floor(y) - 1) of its level (figure 15 line 64; the cache
// floor(y) may take a level-l leaf of its own, footnote 5).
bool ml_adws_policy::open_group(worker_view& w, task_context& group, std::size_t footprint) {
  int through = -1;
  if (const int d = level_word::domain(w.ctx); d >= 0 && d == leaders_.level_of(w.id)) {
    const range r = range_of(w.ctx);
    const auto& caches = leaders_.children_of(d);
    if (codec(d).cross_worker(r) && leaders_.index_in(d, leaders_.lead_of(w.id)) == static_cast<int>(codec(d).floor(r.x))) {
      const std::uint32_t last = std::max(codec(d).floor(r.x), codec(d).floor(r.y) - 1);
      through = caches[std::min<std::size_t>(last, caches.size() - 1)];
    }
  }
  const int c = leaders_.tie(w, group, footprint, through);
  if (c < 0) {
    // Not tied: section 3.2's task depths as in adws.cpp open_group. A
    // cross-worker group of this level is one deeper than its task; its
    // children and the task's continuation have its depth, so that figure
    // 11's threshold (TG.depth) excludes everything outside the group. The
    // task's depth goes back at the sync (share_done).
    const int d = level_word::domain(group);
    if (d < 0) return false;
    range g = range_of(group);
    if (!codec(d).cross_worker(g)) return false;
    if (g.depth >= max_depth)
      throw std::length_error("LOCUS_POLICY=ml-adws: cross-worker task groups nested more than " +
                              std::to_string(max_depth) + " deep within one level");
    ++g.depth;
    store(group, g);
    store(w.ctx, g);
    return true;
  }
  // A tied group is its level's root group: depth 0, and so are its children.
  const range whole = codec(c).whole();
  store(group, whole);
  store(w.ctx, whole);
  return true;
}

// Figure 7 lines 21-26 among the children of the group's domain. Leaders
// of nodes that are not leaves answer at least local_distributed, so that
// fork_join forks as a task group, whose first spawn may tie it.
share_route ml_adws_policy::share_work(worker_view& w, const task_context& group, task_context& child, double lo,
                                       double hi) {
  child.policy[0] &= ~level_word::tie_mark;
  const int lead = leaders_.lead_of(w.id);
  const share_route keep = leaders_.tree().is_leaf(lead) ? share_route::local : share_route::local_distributed;
  const int d = level_word::domain(group);
  if (d < 0) return keep;
  const range g = range_of(group);
  if (!codec(d).cross_worker(g)) return keep;  // the child keeps the group's range
  const range r = codec(d).part(g, lo, hi);  // at the group's depth (open_group)
  store(child, r);
  return owner_node(d, r) == lead ? share_route::local_distributed : share_route::away;
}

// Line 24: migrate to the owning node's migration queue at the child's depth.
void ml_adws_policy::route_spawn(worker_view& w, frame* f) {
  const int owner = away_owner(w, f->ctx);
  if (owner < 0) return push_own(w, f);
  ctx->count(w, migrated);
  give(w, owner, f, adws_inbound::queue::migrated);
}

void ml_adws_policy::give(worker_view& w, int node, frame* f, adws_inbound::queue queue) {
  inbound_of(node).give(f, queue, depth_of_tag(f->ctx.policy[0]));
  ctx->trace(w, queue == adws_inbound::queue::returned ? "return to owner" : "migrate", node);
  const int leader = leaders_.leader_of(node);
  if (leader >= 0) {
    if (leader != w.id) ctx->wake(ctx->worker_at(leader));
    return;
  }
  // No leader (section 4.2: it can be absent): its leader stepped down to
  // a tied group below it, or settles lazily after a flattening and may be
  // busy. Wake one sleeping leader of its children, which may lead it
  // (find_work, claim). One that is awake finds it before it sleeps
  // (has_work_for).
  for (int c : leaders_.tree().at(node).children) {
    const int v = leaders_.leader_of(c);
    if (v >= 0 && v != w.id && ctx->wake(ctx->worker_at(v))) return;
  }
  // None asleep, or none at all (a core's node, whose worker went up to
  // lead a larger cache): wake a worker below it, which steps down to it.
  for (int v : leaders_.tree().at(node).workers)
    if (v != w.id && ctx->wake(ctx->worker_at(v))) return;
}

bool ml_adws_policy::queued_at(int node) { return inbound_of(node).has_work() || leaders_.has_parked(node); }

int ml_adws_policy::claimable_with_work(const worker_view& w) {
  const int up = leaders_.claimable(w);
  return up >= 0 && queued_at(up) ? up : -1;
}

int ml_adws_policy::leaderless_below_with_work(const worker_view& w) {
  return leaders_.leaderless_below(w, [this](int n) { return queued_at(n); });
}

// Line 31: a cross-worker task continues on its owner.
bool ml_adws_policy::keep_at_sync(worker_view& w, const frame& parent) {
  return away_owner(w, parent.ctx) < 0 && leaders_.at_level(w, parent.ctx);
}

frame* ml_adws_policy::on_ready(worker_view& w, frame* parent, ready_reason) {
  return send_away(w, parent) ? nullptr : parent;
}

// Figure 11 for the node this worker leads: the continuations returned to
// it first (section 3.1, as in adws.cpp), its primary queue (the own
// deque), its migration queues, its parked frames (the rest of its primary
// queue), roots for memory's leader, then one steal within the node's
// steal range.
search_result ml_adws_policy::find_work(worker_view& w) {
  leaders_.settle(w);  // a flattening's step down or back up (leaders.hpp)
  const int lead = leaders_.lead_of(w.id);
  if (frame* f = inbound_of(lead).take_returned()) {
    ctx->count(w, returned_takes);
    return {f, found_at::policy};
  }
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  if (frame* f = inbound_of(lead).take_aside()) return {f, found_at::policy};  // the rest of its primary queue
  if (frame* f = inbound_of(lead).take_migrated()) {
    ctx->count(w, migration_takes);
    return {f, found_at::policy};
  }
  if (frame* f = leaders_.take_parked(lead, true)) {
    ctx->count(w, parked_takes);
    return {f, found_at::policy};
  }
  // Nothing of w's node is queued: w may lead its parent if work waits
  // there with no leader to take it (give), and looks again from there.
  if (const int up = claimable_with_work(w); up >= 0 && leaders_.claim(w, up)) return find_work(w);
  // Or a node below it on w's path that w left for a larger cache and that
  // work was sent to since: nobody else leads it back.
  if (const int down = leaderless_below_with_work(w); down >= 0 && leaders_.step_down(w, down)) return find_work(w);
  const int domain = leaders_.domain_of(lead);
  if (domain < 0) {  // memory's leader runs the root tasks
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
    return {};
  }
  if (leaders_.takes_shared(w.id))
    if (frame* f = ctx->take_root(w)) return {f, found_at::roots};
  const steal_word s = steal_range(lead);
  if (!s.valid) {  // line 40: not dominated, no steal
    ctx->count(w, undominated_rounds);
    return {};
  }
  const auto& siblings = leaders_.children_of(domain);
  const std::uint32_t last = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(siblings.size() - 1));
  const auto me = static_cast<std::uint32_t>(leaders_.index_in(domain, lead));
  if (last <= s.lo) return {};
  std::uint32_t v = s.lo + ctx->rng(w).below(last - s.lo);  // line 42, not the thief's own node
  if (v >= me) ++v;
  const int victim_node = siblings[v];
  const int leader = leaders_.leader_of(victim_node);
  worker_view& victim = ctx->worker_at(leader >= 0 ? leader : leaders_.tree().at(victim_node).workers.front());
  if (!ctx->steal_attempt(w, victim)) return {};  // never under this policy: its arenas share every worker
  frame* f = nullptr;
  if (v != s.lo) f = inbound_of(victim_node).steal_migrated(s.depth);  // lines 43-46
  counter miss = misses_empty;
  if (f == nullptr && v != s.hi) {  // lines 47-50: its primary queue (set aside, deque, parked)
    f = inbound_of(victim_node).steal_aside(s.depth);
    if (f == nullptr && leader >= 0 && leader != w.id) f = steal_primary(w, victim, victim_node, domain, s.depth, miss);
    if (f == nullptr) f = leaders_.take_parked(victim_node, false);
  }
  if (f == nullptr) {
    ctx->count(w, miss);
    return {};
  }
  ctx->stole(w);
  ctx->count(w, local_steals);
  return {f, found_at::steal};
}

// Lines 48-50 on the victim node's primary queue, its leader's deque, from
// the top down from depth `depth` on, as adws.cpp steal_primary: the deque's
// oldest frame, if of this level and shallower than `depth` (an ancestor's
// continuation, outside the thief's group), would hide the deeper frames
// under it, which figure 8's per-depth queues keep reachable. So the thief
// sets it aside at its depth in the node's aside queues, where the node's
// leader takes it once its deque is empty and thieves allowed its depth may
// steal it, and looks again. A frame of another level is left where it is.
frame* ml_adws_policy::steal_primary(worker_view& thief, worker_view& victim, int victim_node, int domain,
                                     std::uint32_t depth, counter& miss) {
  const std::uint32_t want = level_word::tag(domain);
  for (int tries = 0; tries < 64; ++tries) {
    std::uint32_t tag = 0;
    frame* top = victim.deque.steal_if([&](std::uint32_t t) {
      tag = t;
      if ((t & level_word::domain_bits) == want) return true;
      miss = misses_other_level;
      return false;
    });
    if (top == nullptr) return nullptr;  // empty, another level, or another thief won the race
    if (depth_of_tag(tag) >= depth) return top;
    inbound_of(victim_node).give(top, adws_inbound::queue::aside, depth_of_tag(tag));
    miss = misses_shallow;
    ctx->count(thief, set_aside);
    ctx->trace(thief, "set aside", victim_node);
  }
  return nullptr;
}

bool ml_adws_policy::has_work_for(worker_view& w) {
  const int lead = leaders_.lead_of(w.id);
  return queued_at(lead) || leaders_.must_settle(w.id) || claimable_with_work(w) >= 0 ||
         leaderless_below_with_work(w) >= 0;
}

// Roots go to memory's leader; a deque's frames to the leaders of its
// owner's level whose steal range holds the owner's node.
bool ml_adws_policy::may_take(const worker_view& w, const worker_view* owner) {
  if (owner == nullptr) return leaders_.takes_shared(w.id);
  if (owner == &w) return true;
  const int level = leaders_.level_of(w.id);
  if (level < 0 || level != leaders_.level_of(owner->id)) return false;
  const steal_word s = steal_range(leaders_.lead_of(w.id));
  const int o = leaders_.index_in(level, leaders_.lead_of(owner->id));
  return s.valid && o >= 0 && static_cast<std::uint32_t>(o) >= s.lo && static_cast<std::uint32_t>(o) <= s.hi;
}

// Section 3.2 per level, and the tied group's sync (figure 13 line 58).
void ml_adws_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  const int d = level_word::domain(group);
  if (d < 0) return;
  const range g = range_of(group);
  if (child == nullptr) {
    if (codec(d).cross_worker(g)) release(d, g);
    if (level_word::tied(group)) {
      leaders_.untie(w, d);  // restores the task's context
    } else if (codec(d).cross_worker(g) && level_word::domain(w.ctx) == d) {
      range own = range_of(w.ctx);  // back to the task's own depth (open_group)
      if (own.depth >= g.depth && g.depth > 0) {
        own.depth = g.depth - 1;
        store(w.ctx, own);
      }
    }
    return;
  }
  if (codec(d).cross_worker(g) && codec(d).cross_worker(range_of(*child))) dominate(w, d, g);
}

// Every node of the group's range (children floor(x) <= k < floor(y) of
// the domain) steals within it, unless a shallower dominant group gave it
// a range already (adws.cpp dominate, per node).
steal_word ml_adws_policy::word_of(int domain, const range& group) const {
  steal_word s;
  s.valid = true;
  s.lo = codec(domain).floor(group.x);
  s.hi = codec(domain).floor(group.y);
  s.depth = group.depth;
  return s;
}

void ml_adws_policy::dominate(worker_view& w, int domain, const range& group) {
  const steal_word s = word_of(domain, group);
  const auto& children = leaders_.children_of(domain);
  const std::uint32_t end = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(children.size()));
  for (std::uint32_t k = s.lo; k < end; ++k) {
    const int node = children[k];
    if (!s.widen(steals_[static_cast<std::size_t>(node)].word)) continue;
    const int leader = leaders_.leader_of(node);
    if (leader >= 0 && leader != w.id) ctx->wake(ctx->worker_at(leader));
  }
}

void ml_adws_policy::release(int domain, const range& group) {
  const steal_word s = word_of(domain, group);
  const std::uint64_t word = s.pack();
  const auto& children = leaders_.children_of(domain);
  const std::uint32_t end = std::min<std::uint32_t>(s.hi, static_cast<std::uint32_t>(children.size()));
  for (std::uint32_t k = s.lo; k < end; ++k) {
    std::uint64_t expected = word;
    steals_[static_cast<std::size_t>(children[k])].word.compare_exchange_strong(expected, 0,
                                                                                 std::memory_order_acq_rel);
  }
}

policy_entry ml_adws_entry() {
  return {
      .name = "ml-adws",
      .make = &make_policy_of<ml_adws_policy>,
      .options = {{.name = "flatten",
                   .env = "LOCUS_ML_ADWS_FLATTEN",
                   .accepted = "on or off",
                   .default_value = "on",
                   .help = "cache hierarchy flattening (section 5, figure 15); off: figure 13's ties alone",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }}},
      // In the order of ml_adws_policy::counter.
      .counters = {"ties", "parked", "parked_takes", "migrated", "returned", "returned_takes", "migration_takes",
                   "local_steals", "undominated_rounds", "overlapping_ties", "flattened", "misses_other_level",
                   "misses_shallow", "misses_empty", "set_aside", "claims"},
      // One tree of caches and its leaders over the whole machine.
      .isolates_arenas = false,
  };
}

}  // namespace locus::detail
