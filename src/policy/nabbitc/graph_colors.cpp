// The runtime side of the task-graph library's colors (include/locus/
// task_graph.hpp): whether colors are on, a worker's color, and the tags
// that carry a continuation's colors to thieves. Everything asks the pool's
// nabbitc policy, if that is the policy running; under any other, colors
// are off and the library spawns as Nabbit does.
#include "core/runtime_state.hpp"
#include "locus/runtime.hpp"
#include "locus/task_graph.hpp"
#include "policy/nabbitc/nabbitc.hpp"

namespace locus {

int worker_color() noexcept {
  detail::worker_view* w = detail::current_worker();
  if (w == nullptr) return -1;
  if (detail::nabbitc_policy* p = detail::nabbitc_policy::active()) return p->color_of(*w);
  return w->id;
}

int num_colors() {
  const int workers = num_workers();  // starts the pool if needed
  if (detail::nabbitc_policy* p = detail::nabbitc_policy::active()) return p->num_colors();
  return workers;
}

namespace detail {

bool graph_colors_on() noexcept { return nabbitc_policy::active() != nullptr && current_worker() != nullptr; }

int graph_worker_color() noexcept {
  nabbitc_policy* p = nabbitc_policy::active();
  worker_view* w = current_worker();
  return p != nullptr && w != nullptr ? p->color_of(*w) : no_color;
}

std::uint32_t graph_colors_tag(const int* colors, std::size_t n) {
  nabbitc_policy* p = nabbitc_policy::active();
  return p != nullptr ? p->sets().make(colors, n) : 0;
}

std::uint32_t graph_color_tag(int color) noexcept { return color_sets::single(color); }

int graph_color_place(int color) noexcept {
  if (nabbitc_policy* p = nabbitc_policy::active()) return p->place_of_color(color);
  // Other policies: colors are worker ids (worker_color).
  const auto& owner = pool().places.worker_place;
  return color >= 0 && static_cast<std::size_t>(color) < owner.size() ? owner[static_cast<std::size_t>(color)] : -1;
}

bool graph_last_steal_colored() noexcept {
  nabbitc_policy* p = nabbitc_policy::active();
  worker_view* w = current_worker();
  return p != nullptr && w != nullptr && p->last_steal_colored(*w);
}

bool graph_hands_off() noexcept {
  nabbitc_policy* p = nabbitc_policy::active();
  return p != nullptr && p->hands_off();
}

bool graph_hand_off(frame* job, int color) {
  nabbitc_policy* p = nabbitc_policy::active();
  worker_view* w = current_worker();
  return p != nullptr && w != nullptr && p->hand_off(*w, job, color);
}

void graph_release_tag(std::uint32_t tag) noexcept {
  if (nabbitc_policy* p = nabbitc_policy::active()) p->sets().release(tag);
}

}  // namespace detail
}  // namespace locus
