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
// at most `first_steal_patience` of them (the paper's startup cost C of
// Theorem 1, bounded here so that graphs whose colors match no worker, table
// III's invalid colors, and programs that are not task graphs still get
// their load balanced). A colored miss on a frame of other colors wakes a
// sleeping worker of one of them (wake_color).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/nabbitc/color_sets.hpp"
#include "policy/registry.hpp"

namespace locus::detail {

class nabbitc_policy : public policy_defaults {
 public:
  // Indices in the registry entry's counters.
  enum counter : int { colored_steals, random_steals, colored_misses, first_steal_giveups };

  explicit nabbitc_policy(policy_context& c);
  ~nabbitc_policy();
  nabbitc_policy(const nabbitc_policy&) = delete;
  nabbitc_policy& operator=(const nabbitc_policy&) = delete;

  worker_view* choose_victim(worker_view& thief);
  search_result find_work(worker_view& w);

  int color_of(const worker_view& w) const { return by_place_ ? w.place : w.id; }
  // The place whose workers have `color`, or -1 if none has it.
  int place_of_color(int color) const;
  int num_colors() const { return sets_.colors(); }
  color_sets& sets() { return sets_; }

  // The pool's nabbitc policy while one runs, else nullptr. A process
  // global because the task-graph library, a header above the core, must
  // find the policy's color sets and worker colors without the core knowing
  // of either (one pool per process; set at construction, cleared at
  // destruction, both while no task runs).
  static nabbitc_policy* active() noexcept;

 private:
  // Written only by the worker it belongs to (find_work runs on it).
  struct alignas(64) thief_state {
    std::uint32_t misses = 0;               // colored attempts since the last random one
    bool stolen = false;                    // has made its first steal
    std::uint64_t first_attempts = 0;       // colored attempts before the first steal
  };
  void found_work(worker_view& w) { thieves_[static_cast<std::size_t>(w.id)].misses = 0; }
  // After a colored miss on a frame of other colors: wakes a worker of one
  // of them if it sleeps. Cilk Plus workers never sleep; locus's do, and a
  // push wakes a sleeper only when nobody searches, so a thief that keeps
  // missing would otherwise keep the frame's own workers asleep.
  void wake_color(worker_view& w, std::uint32_t tag);

  color_sets sets_;
  std::vector<thief_state> thieves_;
  std::uint32_t colored_attempts_;
  std::uint64_t first_patience_;
  bool by_place_;
};
static_assert(scheduling_policy<nabbitc_policy>);

policy_entry nabbitc_entry();

}  // namespace locus::detail
