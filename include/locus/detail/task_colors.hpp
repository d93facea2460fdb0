// Task colors as the task-graph library (task_graph.hpp) sees them: the
// interface a policy with colored steals implements (NabbitC's, in
// src/policy/nabbitc/) and the core hands out while that policy runs. Under
// any other policy there is none (running_colors() is nullptr): a worker's
// color is then its id, nothing is colored, and the library spawns as
// Nabbit does.
#pragma once

#include <cstddef>
#include <cstdint>

#include "locus/detail/frame.hpp"

namespace locus::detail {

struct worker_view;

class task_colors {
 public:
  // A worker's color, and how many colors the workers have.
  virtual int color_of(const worker_view& w) const = 0;
  virtual int num_colors() const = 0;
  // The tag telling thieves which colors a continuation holds (NabbitC
  // figure 5's cilkrts_set_next_colors): of one color, or of a set, which
  // is released once the spawn that carried it has joined.
  virtual std::uint32_t tag_of(int color) const = 0;
  virtual std::uint32_t tag_of_set(const int* colors, std::size_t n) = 0;
  virtual void release(std::uint32_t tag) = 0;
  // Puts `tag` on a task context (what its continuations carry to thieves);
  // returns the tag it replaced.
  virtual std::uint32_t carry(task_context& ctx, std::uint32_t tag) const = 0;
  // The place of the workers of `color`, -1 if no worker has it.
  virtual int place_of_color(int color) const = 0;
  // Whether w's latest steal was a colored one (NabbitC section III).
  virtual bool last_steal_colored(const worker_view& w) const = 0;
  // Whether ready nodes of other colors are handed off (an option of ours),
  // and the hand-off: job, a ready node of `color`, goes to the workers of
  // that color; false, nothing done, if no worker has it.
  virtual bool hands_off() const = 0;
  virtual bool hand_off(worker_view& w, frame* job, int color) = 0;
  // Whether a node's compute() runs with the node's own color on what it
  // spawns (an option of ours; the paper sets colors only at the library's
  // own spawns, figure 3).
  virtual bool tags_compute() const = 0;

 protected:
  ~task_colors() = default;
};

// The running policy's colors, or nullptr (src/core/task_colors.cpp).
task_colors* running_colors() noexcept;
// The place of worker `id` of the running pool, -1 if there is none.
int place_of_worker(int id) noexcept;

}  // namespace locus::detail
