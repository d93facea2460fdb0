// `numa-ws`: the NUMA-WS scheduler (Deters et al., seed 000, section III-B
// and figure 5) on top of work stealing:
//   - locality-biased steals: a thief picks victims with probabilities set
//     by the distance between its place and theirs (steal_weights);
//   - lazy work pushing: a full frame (one the scheduler handles: a stolen
//     frame, a parent resuming after a non-trivial sync) earmarked for
//     another place is pushed to a random worker of that place through a
//     one-slot mailbox (PUSHBACK), on exactly three occasions: a successful
//     non-trivial sync (keep_at_sync, then on_ready; Fig. 5 lines 5-11), the
//     last child returning to a suspended parent (on_ready; lines 21-24),
//     and a successful steal (after_steal; line 28). Never on the fast path.
//   - a thief flips a coin between the victim's deque and its mailbox
//     (steal_from), and an out-of-work worker checks its own mailbox first
//     (find_local_work; line 26).
// Section IV's bounds need the mailbox to hold one frame and the number of
// failed pushes per frame to be capped by a constant (push_threshold).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "policy/policy.hpp"

namespace locus::detail {

struct placement;

class numa_ws_policy : public policy_defaults {
 public:
  static constexpr const char* policy_name = "numa-ws";
  explicit numa_ws_policy(runtime_state& rt);

  frame* find_local_work(worker& w);
  worker* choose_victim(worker& thief);
  frame* steal_from(worker& thief, worker& victim);
  frame* after_steal(worker& thief, frame* f);
  bool keep_at_sync(worker& w, const frame& parent);
  frame* on_ready(worker& w, frame* parent, ready_reason why);
  bool has_work_for(worker& w);

 private:
  struct alignas(64) mailbox {
    std::atomic<frame*> slot{nullptr};
  };
  // PUSHBACK: deposits f in the mailbox of a random worker of f's place and
  // returns nullptr, or returns f when the caller must run it itself (it
  // belongs here, or its failed pushes reached the threshold).
  frame* pushback(worker& w, frame* f);
  bool earmarked_elsewhere(const worker& w, const frame& f) const;

  std::unique_ptr<mailbox[]> mailboxes_;
  // Per worker: the other workers and the cumulative probability of
  // choosing each (the last entry is 1).
  std::vector<std::vector<worker*>> victims_;
  std::vector<std::vector<double>> cumulative_;
  int push_threshold_;
};

static_assert(scheduling_policy<numa_ws_policy>);

// The probability that a thief at place `from` picks a victim at each place
// (row sums to 1; 0 for places without workers other than the thief), given
// the per-victim weight of each distance rank: rank 0 is the thief's own
// place, rank 1 the nearest other distance, and so on; ranks past the last
// weight take the last. For locus-topo and the docs.
std::vector<double> place_steal_probabilities(const placement& places, const std::vector<double>& weights,
                                              int from);
// The weight of a victim at place `to` for a thief at place `from`.
double victim_weight(const placement& places, const std::vector<double>& weights, int from, int to);

}  // namespace locus::detail
