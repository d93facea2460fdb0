#include "policy/numa_ws/numa_ws.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

#include "locus/errors.hpp"

namespace locus::detail {

// ------------------------------------------------------------ options

std::vector<double> parse_steal_weights(std::string_view setting, std::string_view text) {
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
                       "\": expected positive per-victim weights by distance, own place first, separated by "
                       "commas, e.g. 8,2,1 (every victim must keep a chance: section IV of NUMA-WS)");
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
                   .accepted = "positive per-victim weights by distance rank, own place first, e.g. 8,2,1",
                   .default_value = default_steal_weights,
                   .help = "how much more likely a thief picks a near victim (section III-B)",
                   .check = [](std::string_view s, std::string_view v) { parse_steal_weights(s, v); }},
                  {.name = "push_threshold",
                   .env = "LOCUS_PUSH_THRESHOLD",
                   .accepted = "an integer from 1 to 255",
                   .default_value = "4",
                   .help = "failed pushes before a worker runs a frame itself (section IV's constant)",
                   .check = [](std::string_view s, std::string_view v) { parse_push_threshold(s, v); }}},
      // In the order of numa_ws_policy::counter.
      .counters = {"mailbox_hits", "pushes", "push_attempts"},
      // In the order of numa_ws_policy::cost: a deposit or take is one
      // exchange on a line the other worker last wrote.
      .costs = {{.name = "mailbox", .lines = 1}},
  };
}

// ------------------------------------------------------------ biased steals

double victim_weight(const placement& places, const std::vector<double>& weights, int from, int to) {
  // Distance ranks of the thief's row: its own place first, then each
  // distinct distance to another place, nearest first (NUMA-WS III-B:
  // local socket, then one hop, then two hops).
  const auto& row = places.place_distance[static_cast<std::size_t>(from)];
  std::set<int> others;
  for (std::size_t p = 0; p < row.size(); ++p)
    if (static_cast<int>(p) != from) others.insert(row[p]);
  std::size_t rank = 0;
  if (to != from) rank = 1 + static_cast<std::size_t>(std::distance(others.begin(), others.find(row[static_cast<std::size_t>(to)])));
  return weights[std::min(rank, weights.size() - 1)];
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

numa_ws_policy::numa_ws_policy(policy_context& ctx)
    : policy_defaults(ctx),
      mailboxes_(std::make_unique<mailbox[]>(static_cast<std::size_t>(ctx.num_workers()))),
      victims_(static_cast<std::size_t>(ctx.num_workers())),
      cumulative_(static_cast<std::size_t>(ctx.num_workers())),
      push_threshold_(parse_push_threshold("push_threshold", ctx.option("push_threshold"))) {
  const auto& places = ctx.places();
  const std::vector<double> weights = parse_steal_weights("steal_weights", ctx.option("steal_weights"));
  for (int t = 0; t < ctx.num_workers(); ++t) {
    worker_view& thief = ctx.worker_at(t);
    auto& victims = victims_[static_cast<std::size_t>(t)];
    auto& cumulative = cumulative_[static_cast<std::size_t>(t)];
    double total = 0;
    for (int v = 0; v < ctx.num_workers(); ++v) {
      if (v == t) continue;
      worker_view& victim = ctx.worker_at(v);
      total += victim_weight(places, weights, thief.place, victim.place);
      victims.push_back(&victim);
      cumulative.push_back(total);
    }
    for (auto& c : cumulative) c /= total;
    if (!cumulative.empty()) cumulative.back() = 1.0;
  }
}

worker_view* numa_ws_policy::choose_victim(worker_view& thief) {
  const auto& cumulative = cumulative_[static_cast<std::size_t>(thief.id)];
  if (cumulative.empty()) return nullptr;
  const double u = ctx->rng(thief).unit();
  const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
  return victims_[static_cast<std::size_t>(thief.id)][static_cast<std::size_t>(
      std::min<std::ptrdiff_t>(at, static_cast<std::ptrdiff_t>(cumulative.size()) - 1))];
}

// ------------------------------------------------------------ mailboxes

bool numa_ws_policy::earmarked_elsewhere(const worker_view& w, const frame& f) const {
  return f.ctx.place != any_place && f.ctx.place != w.place;
}

frame* numa_ws_policy::pushback(worker_view& w, frame* f) {
  if (!earmarked_elsewhere(w, *f)) return f;
  const auto& receivers = ctx->places().place_workers[static_cast<std::size_t>(f->ctx.place)];
  // Section III-B: try random receivers of the place; each full mailbox
  // costs the frame one of its pushes; past the threshold run it here.
  while (f->scratch < push_threshold_) {
    worker_view& receiver =
        ctx->worker_at(receivers[ctx->rng(w).below(static_cast<std::uint32_t>(receivers.size()))]);
    ctx->count(w, push_attempts);
    ctx->charge(w, mailbox_op, receiver.id);
    frame* empty = nullptr;
    if (mailboxes_[static_cast<std::size_t>(receiver.id)].slot.compare_exchange_strong(
            empty, f, std::memory_order_seq_cst)) {
      ctx->count(w, pushes);
      ctx->wake(receiver);
      return nullptr;
    }
    ++f->scratch;  // failed pushes
  }
  return f;
}

frame* numa_ws_policy::find_local_work(worker_view& w) {
  auto& slot = mailboxes_[static_cast<std::size_t>(w.id)].slot;
  if (slot.load(std::memory_order_relaxed) == nullptr) return nullptr;
  frame* f = slot.exchange(nullptr, std::memory_order_acq_rel);
  if (f != nullptr) {
    ctx->count(w, mailbox_hits);
    ctx->charge(w, mailbox_op, w.id);
  }
  return f;
}

bool numa_ws_policy::has_work_for(worker_view& w) {
  return mailboxes_[static_cast<std::size_t>(w.id)].slot.load(std::memory_order_seq_cst) != nullptr;
}

frame* numa_ws_policy::steal_from(worker_view& thief, worker_view& victim) {
  // The coin flip of section III-B: heads, the deque; tails, the mailbox
  // (falling back to the deque when it is empty).
  if ((ctx->rng(thief).next() & 1) == 0) {
    auto& slot = mailboxes_[static_cast<std::size_t>(victim.id)].slot;
    if (frame* f = slot.load(std::memory_order_acquire)) {
      ctx->charge(thief, mailbox_op, victim.id);
      if (slot.compare_exchange_strong(f, nullptr, std::memory_order_acq_rel)) {
        ctx->count(thief, mailbox_hits);
        return f;  // after_steal pushes it on if it belongs elsewhere
      }
    }
  }
  return victim.deque.steal();
}

frame* numa_ws_policy::after_steal(worker_view& thief, frame* f) { return pushback(thief, f); }

bool numa_ws_policy::keep_at_sync(worker_view& w, const frame& parent) {
  // Lines 5-11: a frame earmarked elsewhere is not simply continued; it is
  // suspended and on_ready(sync_done) pushes it.
  return !earmarked_elsewhere(w, parent);
}

frame* numa_ws_policy::on_ready(worker_view& w, frame* parent, ready_reason) { return pushback(w, parent); }

}  // namespace locus::detail
