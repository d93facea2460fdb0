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
#include <string_view>
#include <vector>

#include "policy/registry.hpp"

namespace locus::detail {

struct placement;

class numa_ws_policy : public policy_defaults {
 public:
  explicit numa_ws_policy(policy_context& ctx);

  frame* find_local_work(worker_view& w);
  worker_view* choose_victim(worker_view& thief);
  frame* steal_from(worker_view& thief, worker_view& victim);
  frame* after_steal(worker_view& thief, frame* f);
  bool keep_at_sync(worker_view& w, const frame& parent);
  frame* on_ready(worker_view& w, frame* parent, ready_reason why);
  bool has_work_for(worker_view& w);

  // Indices in the registry entry's counters and costs.
  enum counter : int { mailbox_hits, pushes, push_attempts };
  enum cost : int { mailbox_op };

 private:
  struct alignas(64) mailbox {
    std::atomic<frame*> slot{nullptr};
  };
  // PUSHBACK: deposits f in the mailbox of a random worker of f's place and
  // returns nullptr, or returns f when the caller must run it itself (it
  // belongs here, or its failed pushes reached the threshold).
  frame* pushback(worker_view& w, frame* f);
  bool earmarked_elsewhere(const worker_view& w, const frame& f) const;

  std::unique_ptr<mailbox[]> mailboxes_;
  // Per worker: the other workers and the cumulative probability of
  // choosing each (the last entry is 1).
  std::vector<std::vector<worker_view*>> victims_;
  std::vector<std::vector<double>> cumulative_;
  int push_threshold_;
};

static_assert(scheduling_policy<numa_ws_policy>);

// Its registry entry: options steal_weights (LOCUS_STEAL_WEIGHTS) and
// push_threshold (LOCUS_PUSH_THRESHOLD), counters mailbox_hits, pushes and
// push_attempts, and the simulated cost of a mailbox operation.
policy_entry numa_ws_entry();

// LOCUS_STEAL_WEIGHTS: "8,2,1" -> {8, 2, 1}; every weight positive. Throws
// config_error naming `setting`. Shared with locus-topo.
std::vector<double> parse_steal_weights(std::string_view setting, std::string_view text);
inline constexpr const char* default_steal_weights = "8,2,1";

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
