// The per-worker pool of job blocks that parent-first children, loop
// pieces and policy proxies are allocated from (allocate_job, free_job in
// locus/detail/worker_view.hpp): free lists by 64-byte size class, so that
// a parent-first spawn allocates nothing from the heap once warm. A list
// that runs dry refills from the pool's depot and one that overflows gives
// half to it (job_depot.hpp), so that a worker whose jobs are freed by
// others does not go to the heap for each one.
#include "core/runtime_state.hpp"

namespace locus::detail {

namespace {
constexpr std::size_t job_block = 64;
constexpr std::size_t kept_jobs = 2 * job_depot::batch;  // a worker's list at most, per class
static_assert(worker::job_classes == job_depot::classes);
}  // namespace

void* allocate_job(std::size_t bytes) {
  const std::size_t cls = (bytes + job_block - 1) / job_block - 1;
  if (cls < worker::job_classes) {
    worker& w = this_worker();
    auto& list = w.free_jobs[cls];
    if (!list.empty() || w.rt->jobs.take(cls, list)) {
      void* p = list.back();
      list.pop_back();
      return p;
    }
    return ::operator new((cls + 1) * job_block);
  }
  return ::operator new(bytes);
}

void free_job(void* p, std::size_t bytes) noexcept {
  const std::size_t cls = (bytes + job_block - 1) / job_block - 1;
  if (cls < worker::job_classes) {
    worker& w = this_worker();
    auto& list = w.free_jobs[cls];
    if (list.size() == kept_jobs) w.rt->jobs.put(cls, list);
    else if (list.capacity() < kept_jobs) list.reserve(kept_jobs);  // once: no regrowth later
    list.push_back(p);
    return;
  }
  ::operator delete(p);
}

}  // namespace locus::detail
