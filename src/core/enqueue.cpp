// Children and tasks that go to an arena's shared queues rather than a
// deque: task_group::enqueue's children (counted in their group) and
// locus::enqueue's detached tasks (counted as roots in flight), TBB-NUMA
// section 4.4.3.
#include "core/runtime_state.hpp"

namespace locus::detail {

// ---------------------------------------------------------------- enqueue

void enqueue_child(group_state& g, frame* job) {
  if (current_worker() == nullptr) return spawn_external(g, job);
  g.stolen = true;  // runs from a shared queue: sync must wait for it
  enqueue_counted_child(g, job);
}

void enqueue_counted_child(group_state& g, frame* job) {
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  queue_shared(*this_worker().rt, job);
}

namespace {
frame* run_detached_job(frame* f) {
  runtime_state& rt = *this_worker().rt;
  auto* job = static_cast<detached_job*>(f);
  const int arena = job->ctx.arena;
  job->invoke(job);  // runs and frees the job
  root_finished(rt, arena);
  return nullptr;
}
}  // namespace

void submit_detached(detached_job* job, int arena) {
  job->run = &run_detached_job;
  runtime_state& rt = pool();
  worker_view* w = current_worker();
  job->ctx.arena = static_cast<std::uint16_t>(arena >= 0 ? arena : w != nullptr ? w->ctx.arena : 0);
  if (w == nullptr) return submit_root(rt, job);
  // From a task: a root is in flight already, so this starts no computation.
  root_started(rt, job->ctx.arena);
  queue_shared(rt, job);
}

}  // namespace locus::detail
