#include "policy/numa_ws.hpp"

#include <algorithm>
#include <set>

#include "core/runtime_state.hpp"

namespace locus::detail {

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

numa_ws_policy::numa_ws_policy(runtime_state& rt)
    : policy_defaults(rt),
      mailboxes_(std::make_unique<mailbox[]>(rt.workers.size())),
      victims_(rt.workers.size()),
      cumulative_(rt.workers.size()),
      push_threshold_(rt.cfg.push_threshold) {
  const auto& places = rt.places;
  for (auto& thief : rt.workers) {
    auto& victims = victims_[static_cast<std::size_t>(thief->id)];
    auto& cumulative = cumulative_[static_cast<std::size_t>(thief->id)];
    double total = 0;
    for (auto& v : rt.workers) {
      if (v == thief) continue;
      total += victim_weight(places, rt.cfg.steal_weights, thief->place, v->place);
      victims.push_back(v.get());
      cumulative.push_back(total);
    }
    for (auto& c : cumulative) c /= total;
    if (!cumulative.empty()) cumulative.back() = 1.0;
  }
}

worker* numa_ws_policy::choose_victim(worker& thief) {
  const auto& cumulative = cumulative_[static_cast<std::size_t>(thief.id)];
  if (cumulative.empty()) return nullptr;
  const double u = thief.rng.unit();
  const auto at = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
  return victims_[static_cast<std::size_t>(thief.id)][static_cast<std::size_t>(
      std::min<std::ptrdiff_t>(at, static_cast<std::ptrdiff_t>(cumulative.size()) - 1))];
}

// ------------------------------------------------------------ mailboxes

bool numa_ws_policy::earmarked_elsewhere(const worker& w, const frame& f) const {
  return f.place != any_place && f.place != w.place;
}

frame* numa_ws_policy::pushback(worker& w, frame* f) {
  if (!earmarked_elsewhere(w, *f)) return f;
  const auto& receivers = rt->places.place_workers[static_cast<std::size_t>(f->place)];
  // Section III-B: try random receivers of the place; each full mailbox
  // costs the frame one of its pushes; past the threshold run it here.
  while (f->push_count < push_threshold_) {
    worker& receiver = *rt->workers[static_cast<std::size_t>(
        receivers[w.rng.below(static_cast<std::uint32_t>(receivers.size()))])];
    w.counters.push_attempts.bump();
    rt->eng->charge(sched_op::mailbox, w.id, receiver.id);
    frame* empty = nullptr;
    if (mailboxes_[static_cast<std::size_t>(receiver.id)].slot.compare_exchange_strong(
            empty, f, std::memory_order_seq_cst)) {
      w.counters.pushes.bump();
      wake_if_parked(*rt, receiver);
      return nullptr;
    }
    ++f->push_count;
  }
  return f;
}

frame* numa_ws_policy::find_local_work(worker& w) {
  auto& slot = mailboxes_[static_cast<std::size_t>(w.id)].slot;
  if (slot.load(std::memory_order_relaxed) == nullptr) return nullptr;
  frame* f = slot.exchange(nullptr, std::memory_order_acq_rel);
  if (f != nullptr) {
    w.counters.mailbox_hits.bump();
    rt->eng->charge(sched_op::mailbox, w.id, w.id);
  }
  return f;
}

bool numa_ws_policy::has_work_for(worker& w) {
  return mailboxes_[static_cast<std::size_t>(w.id)].slot.load(std::memory_order_seq_cst) != nullptr;
}

frame* numa_ws_policy::steal_from(worker& thief, worker& victim) {
  // The coin flip of section III-B: heads, the deque; tails, the mailbox
  // (falling back to the deque when it is empty).
  if ((thief.rng.next() & 1) == 0) {
    auto& slot = mailboxes_[static_cast<std::size_t>(victim.id)].slot;
    if (frame* f = slot.load(std::memory_order_acquire)) {
      rt->eng->charge(sched_op::mailbox, thief.id, victim.id);
      if (slot.compare_exchange_strong(f, nullptr, std::memory_order_acq_rel)) {
        thief.counters.mailbox_hits.bump();
        return f;  // after_steal pushes it on if it belongs elsewhere
      }
    }
  }
  return victim.deque.steal();
}

frame* numa_ws_policy::after_steal(worker& thief, frame* f) { return pushback(thief, f); }

bool numa_ws_policy::keep_at_sync(worker& w, const frame& parent) {
  // Lines 5-11: a frame earmarked elsewhere is not simply continued; it is
  // suspended and on_ready(sync_done) pushes it.
  return !earmarked_elsewhere(w, parent);
}

frame* numa_ws_policy::on_ready(worker& w, frame* parent, ready_reason) { return pushback(w, parent); }

}  // namespace locus::detail
