// `nabbitc`: NabbitC's colored work stealing (seed 004, sections III and IV).
//
// Colors. A worker's color is its id (option colors=worker, the default):
// the paper pins each worker to a core and gives it a unique color, and a
// node's color names the worker that initialized most of its data, so
// colors are the finest place, a core (80 colors on its 80-core machine).
// colors=place gives every worker of a NUMA place (LOCUS_PLACES) its
// place's index instead: the unit the paper's remote-access measure counts.
//
// Frames carry color sets (color_sets.hpp) in their first task-context
// word, which the task-graph library (include/locus/task_graph.hpp) sets
// before each spawn as figure 3's cilkrts_set_next_colors does; every push
// of a nabbitc worker copies it into the deque's tag.
//
// The steal rule (section III, "Colored Steals", and section IV): a worker
// out of work makes `colored_attempts` colored attempts (a random victim;
// take its oldest frame only if that frame's set holds the thief's color)
// and then one random attempt (take whatever is there), and starts again
// with colored attempts each time it runs out of work. Its first steal must
// be a colored one: until it has stolen once it makes only colored attempts,
// as many as it takes by default (the paper's: the startup cost C of
// Theorem 1 is unbounded), at most `first_steal_patience` of them if that
// is set (ours). Liveness: a first-steal attempt also takes a frame whose
// set holds no worker's color (tag 0 of plain fork-join code, table III's
// invalid colors), which no colored steal could ever take, without
// counting it as the first steal (colorless_steals); so programs that are
// not task graphs and graphs of invalid colors are still load-balanced,
// and a worker whose color no frame holds waits, but strands nothing:
// every frame is in a deque its owner pops first, or in a queue (roots,
// inboxes, hand-off lists) taken without the rule.
//
// Ours, each an option off by default (README.md, "Where locus differs"):
// a colored miss on a frame of other colors wakes a sleeping worker of one
// of them (wake_colors, wake_color); a node's compute() carries the node's
// own color to what it spawns (tag_compute); and hand-offs (hand_offs):
//
// Hand-offs. A node made ready by a worker of another color is not run by
// that worker (the task-graph library's start_ready): it goes to the list
// of its color here (hand_off), which the workers of that color check right
// after their own deque, and which a colored attempt on a worker of the
// thief's own place takes from when that worker's deque has nothing of the
// thief's color (a place-mate's node is local by section V-B's measure).
// A random attempt takes only from deques, as in the paper, so a handed
// node does not leave its place while its color's workers come for it;
// but any attempt on a victim whose color's list has been found waiting
// by `handed_wait` attempts (default: one per worker) takes from it
// whatever the thief's color (take_stale): hand-offs would otherwise
// break the greedy property Theorem 1 relies on, since a handed node could
// wait for a blocked or descheduled owner while others idle. Measured on
// heat-graph (docs/benchmarks.md, task graphs), 92 to 94% of NabbitC's remote
// nodes were run by the worker whose notification made them ready, in
// place: figure 3's morphing continuations only reorder what one worker
// spawns, and a lone ready successor of another color is computed by its
// readier there as well (spawn_nodes' base case, lines 18-21), so colored
// steals never saw it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "policy/nabbitc/color_sets.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class nabbitc_policy final : public policy_base, public task_colors {
 public:
  // Indices in the registry entry's costs (the simulator charges them).
  enum cost : int { handoff_op, color_set_op };
  // Indices in the registry entry's counters.
  enum counter : int { colored_steals, random_steals, colored_misses, first_steal_giveups, hand_offs, hand_off_takes,
                     place_mate_takes, color_wakes, colorless_steals, stale_takes };

  explicit nabbitc_policy(policy_context& c);
  ~nabbitc_policy();
  nabbitc_policy(const nabbitc_policy&) = delete;
  nabbitc_policy& operator=(const nabbitc_policy&) = delete;

  worker_view* choose_victim(worker_view& thief) override;
  search_result find_work(worker_view& w) override;
  bool has_work_for(worker_view& w) override;
  void skipped_rounds(worker_view& w, std::uint64_t rounds) override;

  // The task-graph library's colors (locus/detail/task_colors.hpp).
  task_colors* colors() override { return this; }
  int color_of(const worker_view& w) const override { return by_place_ ? w.place : w.id; }
  int num_colors() const override { return sets_.colors(); }
  std::uint32_t tag_of(int color) const override { return color_sets::single(color); }
  std::uint32_t tag_of_set(const int* colors, std::size_t n) override;
  void release(std::uint32_t tag) override;
  // The color tag is the context's first policy word (the deque tag).
  std::uint32_t carry(task_context& c, std::uint32_t tag) const override {
    const std::uint32_t old = c.policy[0];
    c.policy[0] = tag;
    return old;
  }
  // The place whose workers have `color`, or -1 if none has it.
  int place_of_color(int color) const override;
  // Whether w's latest steal was colored (on w only: the task-graph
  // library's breakdown of its locality measure).
  bool last_steal_colored(const worker_view& w) const override {
    return thieves_[static_cast<std::size_t>(w.id)].last_colored;
  }
  // Option hand_offs (ours): on, or off (the default), figure 3 alone,
  // the paper's.
  bool hands_off() const override { return hand_offs_; }
  // Option tag_compute (ours): on, or off (the default, the paper's).
  bool tags_compute() const override { return tag_compute_; }
  // Queues f, a ready node's job, on the list of `color` and wakes a worker
  // of that color; false (nothing done) if no worker has the color.
  bool hand_off(worker_view& w, frame* f, int color) override;
  color_sets& sets() { return sets_; }

 private:
  // Written only by the worker it belongs to (find_work runs on it).
  struct alignas(64) thief_state {
    std::uint32_t misses = 0;               // colored attempts since the last random one
    bool stolen = false;                    // has made its first steal
    std::uint64_t first_attempts = 0;       // colored attempts before the first steal
    bool last_colored = false;              // the latest steal was a colored one
  };
  void found_work(worker_view& w) { thieves_[static_cast<std::size_t>(w.id)].misses = 0; }
  // Section III's rule for the next attempt, kept in one place for the
  // attempts find_work makes and the rounds the simulator skips
  // (skipped_rounds). Before the first steal, and while patience lasts:
  bool first_steal_turn(const thief_state& me) const { return !me.stolen && me.first_attempts < first_patience_; }
  // A colored attempt (else the random one, which starts them again):
  bool colored_turn(const thief_state& me) const { return me.misses < colored_attempts_ || first_steal_turn(me); }
  // A colored attempt found nothing: one more miss, and before the first
  // steal one more first-steal attempt (the one that exhausts the patience
  // counts a give-up).
  void colored_miss(worker_view& w, thief_state& me);
  // After a colored miss on a frame of other colors: wakes a worker of one
  // of them if it sleeps. Cilk Plus workers never sleep; locus's do, and a
  // push wakes a sleeper only when nobody searches, so a thief that keeps
  // missing would otherwise keep the frame's own workers asleep.
  void wake_color(worker_view& w, std::uint32_t tag);
  // Wakes a worker of `color` (one of its place's, by place).
  void wake_one_of(worker_view& w, int color);
  // The oldest frame handed to `color`, or nullptr.
  frame* take_handed(worker_view& w, int color);
  // Charges a side-slot color set's make, release or read to the calling
  // worker (the simulator; nothing on threads); `other` last wrote it.
  void charge_set(int other);
  // An attempt on `victim` that found nothing else: the oldest node handed
  // to the victim's color if its list has waited past handed_wait looks
  // (so a blocked or descheduled owner cannot stall the critical path).
  frame* take_stale(worker_view& w, worker_view& victim);

  // The hand-off list of one color. `count` is read without the lock: its
  // seq_cst increment pairs with the seq_cst park word of a worker going to
  // sleep (scheduler.cpp), which then either sees it (has_work_for) or is
  // woken by the depositor, as NUMA-WS's mailboxes do.
  struct alignas(64) handed_list {
    std::mutex mutex;
    std::deque<frame*> frames;
    std::atomic<std::int64_t> count{0};
    // Attempts of other workers that found the list non-empty since it was
    // last empty (take_stale); reset under the mutex when it empties or
    // fills again, incremented without it (a stale count is harmless).
    std::atomic<std::uint64_t> looks{0};
    // The worker that last deposited or took (whose lines the next one
    // moves: the simulator's charge); read without the lock.
    std::atomic<int> last_user{-1};
  };

  color_sets sets_;
  std::vector<thief_state> thieves_;
  std::unique_ptr<handed_list[]> handed_;  // one per color
  std::uint32_t colored_attempts_;
  std::uint64_t first_patience_;
  bool by_place_;
  bool hand_offs_;
  bool wake_colors_;
  bool tag_compute_;
  std::uint64_t handed_wait_;
  // The worker that last made or released a side-slot set (the sets'
  // mutex and free list are its lines).
  std::atomic<int> last_set_user_{-1};
};

policy_entry nabbitc_entry();

}  // namespace locus::detail
