// `numa-ws`: the NUMA-WS scheduler (Deters et al., seed 000, section III-B
// and figure 5) on top of work stealing:
//   - locality-biased steals: a thief picks victims with probabilities set
//     by the distance between its place and theirs (steal_weights: per
//     distance rank, or derived from the distance matrix, victim_weight);
//   - lazy work pushing: a full frame (one the scheduler handles: a stolen
//     frame, a parent resuming after a non-trivial sync) earmarked for
//     another place is pushed to a random worker of that place through a
//     one-slot mailbox (PUSHBACK), on exactly three occasions: a successful
//     non-trivial sync of a task group or a fork_join (keep_at_sync, then
//     on_ready; Fig. 5 lines 5-11), the last child returning to a suspended
//     parent (on_ready; lines 21-24), and a successful steal (after_steal;
//     line 28). Never on the fast path.
//   - at a sync the push is decided before the frame suspends: keep_at_sync
//     reserves an empty mailbox, and the frame suspends only if it got one
//     (a push that fails costs no fiber switch); on_ready fills the slot.
//   - a deposit wakes its receiver if it sleeps; options (ours, off by
//     default) make it prompt when the receiver is busy: wake_place_mates
//     wakes an idle worker of its place, scan_place_mailboxes has workers
//     look into their place-mates' mailboxes (find_local_work).
//   - a thief flips a coin between the victim's deque and its mailbox
//     (steal_from), and an out-of-work worker checks its own mailbox first
//     (find_local_work; line 26).
//   - the root starts on the first core of the first place (section V): a
//     root task another worker takes is handed to that worker while it
//     searches or sleeps (never held for it while it is busy).
// Section IV's bounds need the mailbox to hold one frame and the number of
// failed pushes per frame to be capped by a constant (push_threshold).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "policy/spi/registry.hpp"

namespace locus::detail {

struct placement;

// One thief's biased choice: the other workers and the cumulative
// probability of picking each (the last entry is 1).
struct victim_table {
  std::vector<int> victims;
  std::vector<double> cumulative;
  // An index into victims, drawn with the table's probabilities.
  std::size_t draw(rng64& rng) const;
};
// The table of the worker `thief` under `weights` (parse_steal_weights).
victim_table make_victim_table(const placement& places, const std::vector<double>& weights, int thief);

// The coin flip between a victim's deque and its mailbox: the top bit of
// the generator (xorshift64*'s low bits are its weakest).
inline bool coin_says_mailbox(rng64& rng) { return (rng.next() >> 63) == 0; }

class numa_ws_policy final : public policy_base {
 public:
  explicit numa_ws_policy(policy_context& ctx);

  frame* find_local_work(worker_view& w) override;
  worker_view* choose_victim(worker_view& thief) override;
  frame* steal_from(worker_view& thief, worker_view& victim) override;
  frame* after_steal(worker_view& thief, frame* f) override;
  bool keep_at_sync(worker_view& w, const frame& parent) override;
  frame* on_ready(worker_view& w, frame* parent, ready_reason why) override;
  bool has_work_for(worker_view& w) override;
  search_result find_work(worker_view& w) override;

  // Indices in the registry entry's counters and costs.
  enum counter : int { mailbox_hits, pushes, push_attempts, kept_at_sync, root_handoffs };
  enum cost : int { mailbox_op };

 private:
  struct alignas(64) mailbox {
    std::atomic<frame*> slot{nullptr};
  };
  // Deposited frames not yet taken, per place: a worker out of work looks
  // into its place-mates' mailboxes only when this says there is one.
  struct alignas(64) place_deposits {
    std::atomic<int> count{0};
  };
  // Owner-only state of each worker.
  struct alignas(64) worker_state {
    int reserved = -1;  // the receiver whose mailbox keep_at_sync reserved
    const frame* reserved_for = nullptr;  // the frame that reservation is for
  };
  // A slot that keep_at_sync reserved and on_ready will fill: not empty
  // for depositors, not a frame for takers.
  static frame* reserved_slot() { return reinterpret_cast<frame*>(std::uintptr_t{1}); }

  // PUSHBACK: deposits f in the mailbox of a random worker of f's place and
  // returns nullptr, or returns f when the caller must run it itself (it
  // belongs here, or its failed pushes reached the threshold).
  frame* pushback(worker_view& w, frame* f);
  // The receiver of a push, chosen and claimed as PUSHBACK does, with
  // `fill` put into its slot; -1 once `failed` reaches the threshold.
  int claim_mailbox(worker_view& w, int place, frame* fill, int& failed);
  void deposited(worker_view& w, int receiver);
  frame* take_from(worker_view& w, int owner);
  // A reservation keep_at_sync made for a frame whose suspend failed (the
  // fiber could not be had: the sync threw) is given back at the worker's
  // next call into the policy, so that the slot does not stay reserved.
  void release_stale_reservation(worker_view& w);
  // One round of the search (find_work without the first worker's state).
  search_result search_round(worker_view& w);
  // The root hand-off slot holds a root the first worker may take, or any
  // worker while the first worker is busy (not searching).
  bool may_take_handoff(const worker_view& w) const;
  bool earmarked_elsewhere(const worker_view& w, const frame& f) const;

  std::unique_ptr<mailbox[]> mailboxes_;
  std::unique_ptr<place_deposits[]> deposits_;
  std::unique_ptr<worker_state[]> state_;
  std::vector<victim_table> victims_;
  int push_threshold_;
  // Ours, not the paper's (options, off by default): an out-of-work
  // worker looks into its place-mates' mailboxes; a deposit for a busy
  // receiver wakes an idle place-mate.
  bool scan_place_mailboxes_;
  bool wake_place_mates_;
  int first_worker_;  // the first core of the first place: where roots start
  mailbox root_handoff_;
  // The first worker is in its search (or asleep): a root taken elsewhere
  // is handed to it. False while it runs something it found: a root is then
  // started where it was taken, and one already in the slot is taken by
  // any worker, so that a root that blocks the first worker's thread does
  // not hold up the others (as under ws).
  std::atomic<bool> first_searching_{true};

 public:
  // Mailboxes reserved by keep_at_sync and not yet filled (tests).
  int reserved_mailboxes() const;
};


// Its registry entry: options steal_weights (LOCUS_STEAL_WEIGHTS),
// push_threshold (LOCUS_PUSH_THRESHOLD), and, ours and off by default,
// scan_place_mailboxes and wake_place_mates; counters mailbox_hits, pushes,
// push_attempts, kept_at_sync and root_handoffs, and the simulated cost of
// a mailbox operation.
policy_entry numa_ws_entry();

// LOCUS_STEAL_WEIGHTS: "8,2,1" -> {8, 2, 1}, every weight positive; or
// "distance" -> {} (derived from the distance matrix, victim_weight).
// Throws config_error naming `setting`. Shared with locus-topo.
std::vector<double> parse_steal_weights(std::string_view setting, std::string_view text);
inline constexpr const char* default_steal_weights = "distance";

// The probability that a thief at place `from` picks a victim at each place
// (row sums to 1; 0 for places without workers other than the thief), given
// the per-victim weight of each distance rank: rank 0 is the thief's own
// place, rank 1 the nearest other distance, and so on; ranks past the last
// weight take the last. For locus-topo and the docs.
std::vector<double> place_steal_probabilities(const placement& places, const std::vector<double>& weights,
                                              int from);
// The weight of a victim at place `to` for a thief at place `from`. With
// derived weights (an empty list) a victim at distance rank r weighs
// 1 / (r+1)^2 divided by the number of victims at rank r, so that the ranks
// share the steals as 1 : 1/4 : 1/9 ... however many workers each holds
// (the weighting libfork uses for its NUMA-aware victim choice).
double victim_weight(const placement& places, const std::vector<double>& weights, int from, int to);

}  // namespace locus::detail
