// The per-worker pool of job blocks that parent-first children, loop
// pieces and policy proxies are allocated from (allocate_job, free_job in
// locus/detail/worker_view.hpp): free lists by 64-byte size class, so that
// a parent-first spawn allocates nothing from the heap once warm.
#include "core/runtime_state.hpp"

namespace locus::detail {

namespace {
constexpr std::size_t job_block = 64;
}  // namespace

void* allocate_job(std::size_t bytes) {
  const std::size_t cls = (bytes + job_block - 1) / job_block - 1;
  if (cls < worker::job_classes) {
    auto& list = this_worker().free_jobs[cls];
    if (!list.empty()) {
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
    auto& list = this_worker().free_jobs[cls];
    if (list.size() < 1024) {
      list.push_back(p);
      return;
    }
  }
  ::operator delete(p);
}

}  // namespace locus::detail
