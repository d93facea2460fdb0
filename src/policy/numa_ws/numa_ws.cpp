#include "policy/numa_ws/numa_ws.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

#include "locus/errors.hpp"
#include "policy/spi/option_words.hpp"

namespace locus::detail {

// ------------------------------------------------------------ options

std::vector<double> parse_steal_weights(std::string_view setting, std::string_view text) {
  if (text == "distance") return {};
  std::vector<double> weights;
  std::stringstream in{std::string(text)};
  bool ok = !text.empty();
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const double w = std::strtod(item.c_str(), &end);
    ok = ok && !item.empty() && end == item.c_str() + item.size() && w > 0 && w < 1e9;
    weights.push_back(w);
  }
  if (!ok || weights.empty() || text.back() == ',')
    throw config_error(std::string(setting) + "=\"" + std::string(text) +
                       "\": expected \"distance\" (weights derived from the distance matrix) or positive "
                       "per-victim weights by distance, own place first, separated by commas, e.g. 8,2,1 "
                       "(every victim must keep a chance: section IV of NUMA-WS)");
  return weights;
}

namespace {

int parse_push_threshold(std::string_view setting, std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1 || v > 255)
    throw config_error(std::string(setting) + "=\"" + std::string(text) +
                       "\": expected failed pushes before a frame runs where it is, an integer from 1 to 255");
  return v;
}

}  // namespace

policy_entry numa_ws_entry() {
  return {
      .name = "numa-ws",
      .make = &make_policy_of<numa_ws_policy>,
      .options = {{.name = "steal_weights",
                   .env = "LOCUS_STEAL_WEIGHTS",
                   .accepted = "distance, or positive per-victim weights by distance rank, own place first, "
                               "e.g. 8,2,1",
                   .default_value = default_steal_weights,
                   .help = "how much more likely a thief picks a near victim (section III-B); distance: "
                           "rank r gets 1/(r+1)^2 of the steals",
                   .check = [](std::string_view s, std::string_view v) { parse_steal_weights(s, v); }},
                  {.name = "push_threshold",
                   .env = "LOCUS_PUSH_THRESHOLD",
                   .accepted = "an integer from 1 to 255",
                   .default_value = "4",
                   .help = "failed pushes before a worker runs a frame itself (section IV's constant)",
                   .check = [](std::string_view s, std::string_view v) { parse_push_threshold(s, v); }},
                  {.name = "scan_place_mailboxes",
                   .env = "LOCUS_NUMA_WS_SCAN_PLACE_MAILBOXES",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours, not the paper's: an out-of-work worker looks into its place-mates' mailboxes "
                           "after its own (the paper: its own only, line 26)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }},
                  {.name = "wake_place_mates",
                   .env = "LOCUS_NUMA_WS_WAKE_PLACE_MATES",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours, not the paper's: a deposit into a busy worker's mailbox wakes a sleeping worker "
                           "of its place (the receiver is woken in any case)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }}},
      // In the order of numa_ws_policy::counter. kept_at_sync: sync-time
      // pushes that failed before the frame suspended (each saved a
      // suspend and a resume); root_handoffs: root tasks handed to the
      // first worker by the worker that took them.
      .counters = {"mailbox_hits", "pushes", "push_attempts", "kept_at_sync", "root_handoffs"},
      // In the order of numa_ws_policy::cost: a deposit or take is one
      // exchange on a line the other worker last wrote.
      .costs = {{.name = "mailbox", .lines = 1}},
  };
}

// ------------------------------------------------------------ biased steals

namespace {

// Distance ranks of the thief's row: its own place first, then each
// distinct distance to another place, nearest first (NUMA-WS III-B: local
// socket, then one hop, then two hops).
std::size_t distance_rank(const placement& places, int from, int to) {
  if (to == from) return 0;
  const auto& row = places.place_distance[static_cast<std::size_t>(from)];
  std::set<int> others;
  for (std::size_t p = 0; p < row.size(); ++p)
    if (static_cast<int>(p) != from) others.insert(row[p]);
  return 1 + static_cast<std::size_t>(std::distance(others.begin(), others.find(row[static_cast<std::size_t>(to)])));
}

}  // namespace

double victim_weight(const placement& places, const std::vector<double>& weights, int from, int to) {
  const std::size_t rank = distance_rank(places, from, to);
  if (!weights.empty()) return weights[std::min(rank, weights.size() - 1)];
  // Derived: the rank's share 1/(r+1)^2, split among its victims.
  double victims = 0;
  for (int p = 0; p < places.num_places; ++p)
    if (distance_rank(places, from, p) == rank)
      victims += static_cast<double>(places.place_workers[static_cast<std::size_t>(p)].size()) - (p == from ? 1.0 : 0.0);
  const double share = 1.0 / static_cast<double>((rank + 1) * (rank + 1));
  return victims > 0 ? share / victims : 0;
}

std::vector<double> place_steal_probabilities(const placement& places, const std::vector<double>& weights,
                                              int from) {
  std::vector<double> mass(static_cast<std::size_t>(places.num_places), 0.0);
  double total = 0;
  for (int p = 0; p < places.num_places; ++p) {
    // Victims: the place's workers, less the thief itself at its own place.
    const auto count = static_cast<double>(places.place_workers[static_cast<std::size_t>(p)].size()) -
                       (p == from ? 1.0 : 0.0);
    mass[static_cast<std::size_t>(p)] = count * victim_weight(places, weights, from, p);
    total += mass[static_cast<std::size_t>(p)];
  }
  for (auto& m : mass) m = total > 0 ? m / total : 0;
  return mass;
}

victim_table make_victim_table(const placement& places, const std::vector<double>& weights, int thief) {
  victim_table t;
  const int from = places.worker_place[static_cast<std::size_t>(thief)];
  const int workers = static_cast<int>(places.worker_place.size());
  double total = 0;
  for (int v = 0; v < workers; ++v) {
    if (v == thief) continue;
    total += victim_weight(places, weights, from, places.worker_place[static_cast<std::size_t>(v)]);
    t.victims.push_back(v);
    t.cumulative.push_back(total);
  }
  for (auto& c : t.cumulative) c /= total;
  if (!t.cumulative.empty()) t.cumulative.back() = 1.0;
  return t;
}

std::size_t victim_table::draw(rng64& rng) const {
  const double u = rng.unit();
  const auto at = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
  return std::min(at, cumulative.size() - 1);
}

numa_ws_policy::numa_ws_policy(policy_context& ctx)
    : policy_base(ctx),
      mailboxes_(std::make_unique<mailbox[]>(static_cast<std::size_t>(ctx.num_workers()))),
      deposits_(std::make_unique<place_deposits[]>(static_cast<std::size_t>(ctx.places().num_places))),
      state_(std::make_unique<worker_state[]>(static_cast<std::size_t>(ctx.num_workers()))),
      push_threshold_(parse_push_threshold("push_threshold", ctx.option("push_threshold"))),
      scan_place_mailboxes_(parse_on_off("scan_place_mailboxes", ctx.option("scan_place_mailboxes"))),
      wake_place_mates_(parse_on_off("wake_place_mates", ctx.option("wake_place_mates"))),
      first_worker_(ctx.places().place_workers.front().front()) {
  const std::vector<double> weights = parse_steal_weights("steal_weights", ctx.option("steal_weights"));
  for (int t = 0; t < ctx.num_workers(); ++t) victims_.push_back(make_victim_table(ctx.places(), weights, t));
}

worker_view* numa_ws_policy::choose_victim(worker_view& thief) {
  const victim_table& table = victims_[static_cast<std::size_t>(thief.id)];
  if (table.victims.empty()) return nullptr;
  return &ctx->worker_at(table.victims[table.draw(ctx->rng(thief))]);
}

// ------------------------------------------------------------ mailboxes
//
// A slot goes empty -> frame (a push: CAS by the depositor), or
// empty -> reserved (keep_at_sync: CAS) -> frame (on_ready: a store by the
// reserver, the only one who may write a reserved slot), and frame -> empty
// (a take: CAS by the owner, a place-mate or a thief). The seq_cst writes
// of a frame pair with the seq_cst store of park_word by a worker going to
// sleep (scheduler.cpp): either it sees the frame (has_work_for) or the
// depositor sees it parked and wakes it.

bool numa_ws_policy::earmarked_elsewhere(const worker_view& w, const frame& f) const {
  return f.ctx.place != any_place && f.ctx.place != w.place;
}

int numa_ws_policy::claim_mailbox(worker_view& w, int place, frame* fill, int& failed) {
  const auto& receivers = ctx->places().place_workers[static_cast<std::size_t>(place)];
  // Section III-B: try random receivers of the place; each full mailbox
  // costs the frame one of its pushes; past the threshold run it here.
  while (failed < push_threshold_) {
    const int receiver = receivers[ctx->rng(w).below(static_cast<std::uint32_t>(receivers.size()))];
    ctx->count(w, push_attempts);
    ctx->charge(w, mailbox_op, receiver);
    // The failed pushes so far go with the frame; only now, while it is
    // still ours: once the CAS succeeds the receiver may run it and its
    // memory may be gone.
    if (fill != reserved_slot()) fill->policy_word = static_cast<std::uint32_t>(failed);
    frame* empty = nullptr;
    if (mailboxes_[static_cast<std::size_t>(receiver)].slot.compare_exchange_strong(empty, fill,
                                                                                     std::memory_order_seq_cst))
      return receiver;
    ++failed;
  }
  return -1;
}

// A frame is in `receiver`'s mailbox: count it at the receiver's place
// and wake the receiver if it sleeps (the paper's workers never sleep), or,
// under wake_place_mates, if it is busy, an idle place-mate.
void numa_ws_policy::deposited(worker_view& w, int receiver) {
  ctx->count(w, pushes);
  ctx->trace(w, "push", receiver);
  worker_view& r = ctx->worker_at(receiver);
  deposits_[static_cast<std::size_t>(r.place)].count.fetch_add(1, std::memory_order_seq_cst);
  if (ctx->wake(r) || !wake_place_mates_) return;
  for (int mate : ctx->places().place_workers[static_cast<std::size_t>(r.place)])
    if (mate != receiver && ctx->wake(ctx->worker_at(mate))) return;
}

frame* numa_ws_policy::take_from(worker_view& w, int owner) {
  auto& slot = mailboxes_[static_cast<std::size_t>(owner)].slot;
  frame* f = slot.load(std::memory_order_acquire);
  if (f == nullptr || f == reserved_slot()) return nullptr;
  ctx->charge(w, mailbox_op, owner);
  if (!slot.compare_exchange_strong(f, nullptr, std::memory_order_acq_rel)) return nullptr;
  deposits_[static_cast<std::size_t>(ctx->worker_at(owner).place)].count.fetch_sub(1, std::memory_order_relaxed);
  ctx->count(w, mailbox_hits);
  ctx->trace(w, "mailbox take", owner);
  return f;
}

frame* numa_ws_policy::pushback(worker_view& w, frame* f) {
  if (!earmarked_elsewhere(w, *f)) return f;
  int failed = f->policy_word;
  const int receiver = claim_mailbox(w, f->ctx.place, f, failed);
  if (receiver < 0) {
    f->policy_word = static_cast<std::uint32_t>(failed);
    return f;
  }
  // From here on f may already run on the receiver's place.
  deposited(w, receiver);
  return nullptr;
}

bool numa_ws_policy::may_take_handoff(const worker_view& w) const {
  return root_handoff_.slot.load(std::memory_order_seq_cst) != nullptr &&
         (w.id == first_worker_ || !first_searching_.load(std::memory_order_seq_cst));
}

frame* numa_ws_policy::find_local_work(worker_view& w) {
  // The first worker: a root handed to it, before anything else (it was
  // woken for it). Then line 26: the own mailbox; then a deposit that waits
  // in a busy place-mate's mailbox; then a root in the hand-off slot while
  // the first worker is busy (any worker).
  if (w.id == first_worker_ && may_take_handoff(w))
    if (frame* root = root_handoff_.slot.exchange(nullptr, std::memory_order_acq_rel)) return root;
  if (frame* f = take_from(w, w.id)) return f;
  if (scan_place_mailboxes_ && deposits_[static_cast<std::size_t>(w.place)].count.load(std::memory_order_relaxed) > 0)
    for (int mate : ctx->places().place_workers[static_cast<std::size_t>(w.place)])
      if (mate != w.id)
        if (frame* f = take_from(w, mate)) return f;
  if (may_take_handoff(w)) return root_handoff_.slot.exchange(nullptr, std::memory_order_acq_rel);
  return nullptr;
}

bool numa_ws_policy::has_work_for(worker_view& w) {
  // The last look of a worker about to sleep: seq_cst, pairs with the
  // deposits (see above).
  frame* own = mailboxes_[static_cast<std::size_t>(w.id)].slot.load(std::memory_order_seq_cst);
  if (own != nullptr && own != reserved_slot()) return true;
  // A deposit at any place: the own place's is local work, another's a
  // thief may take on the coin's tails (section III-B, steal_from).
  for (int p = 0; p < ctx->places().num_places; ++p)
    if (deposits_[static_cast<std::size_t>(p)].count.load(std::memory_order_seq_cst) > 0) return true;
  return may_take_handoff(w);
}

frame* numa_ws_policy::steal_from(worker_view& thief, worker_view& victim) {
  // The coin flip of section III-B: heads, the deque; tails, the mailbox
  // (falling back to the deque when it is empty). after_steal pushes a
  // frame taken from the mailbox on if it belongs elsewhere.
  if (coin_says_mailbox(ctx->rng(thief)))
    if (frame* f = take_from(thief, victim.id)) return f;
  return victim.deque.steal();
}

// Line 28. A stolen fork_join branch is a job, locus's counterpart of the
// continuation a Cilk thief steals (fork_join steals the child, Cilk the
// parent's continuation): it carries its parent's place unless hinted, and
// is pushed on as a stolen full frame is.
frame* numa_ws_policy::after_steal(worker_view& thief, frame* f) { return pushback(thief, f); }

void numa_ws_policy::release_stale_reservation(worker_view& w) {
  worker_state& st = state_[static_cast<std::size_t>(w.id)];
  if (st.reserved < 0) return;
  // Only the reserver writes a reserved slot; takers skip it and
  // depositors see it full, so a plain store gives it back.
  mailboxes_[static_cast<std::size_t>(st.reserved)].slot.store(nullptr, std::memory_order_seq_cst);
  st.reserved = -1;
  st.reserved_for = nullptr;
}

int numa_ws_policy::reserved_mailboxes() const {
  int n = 0;
  for (int i = 0; i < ctx->num_workers(); ++i)
    n += mailboxes_[static_cast<std::size_t>(i)].slot.load(std::memory_order_acquire) == reserved_slot();
  return n;
}

bool numa_ws_policy::keep_at_sync(worker_view& w, const frame& parent) {
  // Lines 5-11: a frame earmarked elsewhere is not simply continued; it is
  // pushed. Whether the push succeeds is decided here, before the frame
  // suspends: a mailbox is reserved for it, and on_ready(sync_done) fills
  // it. If every try fails the frame continues here with no fiber switch.
  // A reservation still held here is one whose frame never suspended.
  release_stale_reservation(w);
  if (!earmarked_elsewhere(w, parent)) return true;
  int failed = parent.policy_word;
  const int receiver = claim_mailbox(w, parent.ctx.place, reserved_slot(), failed);
  if (receiver < 0) {
    ctx->count(w, kept_at_sync);
    return true;
  }
  state_[static_cast<std::size_t>(w.id)].reserved = receiver;
  state_[static_cast<std::size_t>(w.id)].reserved_for = &parent;
  return false;
}

frame* numa_ws_policy::on_ready(worker_view& w, frame* parent, ready_reason why) {
  // After keep_at_sync said no, the same worker's next on_ready is that
  // frame's (the core suspends it and finds the sync done at once), unless
  // the suspend failed: then the reservation is stale and given back.
  worker_state& st = state_[static_cast<std::size_t>(w.id)];
  if (st.reserved >= 0 && (st.reserved_for != parent || why != ready_reason::sync_done))
    release_stale_reservation(w);
  if (st.reserved < 0) return pushback(w, parent);
  const int receiver = st.reserved;
  st.reserved = -1;
  st.reserved_for = nullptr;
  mailboxes_[static_cast<std::size_t>(receiver)].slot.store(parent, std::memory_order_seq_cst);
  deposited(w, receiver);
  return nullptr;
}

// ------------------------------------------------------------ the root

search_result numa_ws_policy::find_work(worker_view& w) {
  release_stale_reservation(w);
  if (w.id != first_worker_) return search_round(w);
  first_searching_.store(true, std::memory_order_seq_cst);
  const search_result found = search_round(w);
  if (found.f != nullptr) {
    // Busy from here on. A root handed over after this round looked (the
    // other side of the hand-off's check) goes to another worker: wake one.
    first_searching_.store(false, std::memory_order_seq_cst);
    if (root_handoff_.slot.load(std::memory_order_seq_cst) != nullptr)
      for (int id = 0; id < ctx->num_workers(); ++id)
        if (id != first_worker_ && ctx->wake(ctx->worker_at(id))) break;
  }
  return found;
}

search_result numa_ws_policy::search_round(worker_view& w) {
  // The default round, except that a root task (a job from the root queue)
  // taken by another worker is handed to the first worker of the first
  // place, where the paper starts the root (section V), so that
  // first-touch placement does not depend on which worker woke first.
  // Only while the first worker is searching or asleep: a root taken while
  // it runs something starts where it was taken (a root that blocks its
  // thread waiting for another must not hold that one up).
  // Resumed continuations (a locus::mutex handing over) run anywhere.
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  if (frame* f = find_local_work(w)) return {f, found_at::policy};
  if (frame* f = ctx->take_root(w)) {
    // Roots of another arena than the default, or with the first worker
    // serving another arena, start here (handed there, it would send them
    // back to their arena's queues).
    const bool first_serves_it = f->ctx.arena == 0 && ctx->worker_at(first_worker_).arena.load(std::memory_order_relaxed) == 0;
    if (w.id == first_worker_ || f->kind != frame_kind::job || !first_serves_it ||
        !first_searching_.load(std::memory_order_seq_cst))
      return {f, found_at::roots};
    frame* empty = nullptr;
    if (!root_handoff_.slot.compare_exchange_strong(empty, f, std::memory_order_seq_cst))
      return {f, found_at::roots};  // another root waits for it already: this one starts here
    // The first worker went busy meanwhile (seq_cst on both sides: either
    // this load sees it, or its find_work sees the slot and wakes a worker
    // to take it): take a root back from the slot and start it here.
    if (!first_searching_.load(std::memory_order_seq_cst)) {
      if (frame* back = root_handoff_.slot.exchange(nullptr, std::memory_order_acq_rel)) return {back, found_at::roots};
      return {};
    }
    ctx->count(w, root_handoffs);
    ctx->wake(ctx->worker_at(first_worker_));
    return {};
  }
  if (worker_view* victim = choose_victim(w); victim != nullptr && ctx->steal_attempt(w, *victim)) {
    if (frame* f = steal_from(w, *victim)) {
      ctx->stole(w);
      if ((f = after_steal(w, f)) != nullptr) return {f, found_at::steal};
      ctx->sent_on(w);
    }
  }
  return {};
}

}  // namespace locus::detail
