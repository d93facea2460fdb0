// The task-graph library's way to the running policy's colors
// (locus/detail/task_colors.hpp), and the public color queries
// (locus/task_graph.hpp) that hold under every policy.
#include "locus/detail/task_colors.hpp"

#include "core/runtime_state.hpp"
#include "locus/runtime.hpp"
#include "locus/task_graph.hpp"

namespace locus {

int worker_color() noexcept {
  detail::worker_view* w = detail::current_worker();
  if (w == nullptr) return -1;
  if (detail::task_colors* c = detail::running_colors()) return c->color_of(*w);
  return w->id;
}

int num_colors() {
  const int workers = num_workers();  // starts the pool if needed
  if (detail::task_colors* c = detail::running_colors()) return c->num_colors();
  return workers;
}

namespace detail {

task_colors* running_colors() noexcept {
  runtime_state* rt = pool_if_started();
  return rt != nullptr ? rt->policy->colors() : nullptr;
}

int place_of_worker(int id) noexcept {
  runtime_state* rt = pool_if_started();
  if (rt == nullptr) return -1;
  const auto& place = rt->places.worker_place;
  return id >= 0 && static_cast<std::size_t>(id) < place.size() ? place[static_cast<std::size_t>(id)] : -1;
}

}  // namespace detail
}  // namespace locus
