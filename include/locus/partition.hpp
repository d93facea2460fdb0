// How parallel_for and parallel_reduce divide their range among workers.
//
//   (no grain)              automatic: lazy binary splitting. A worker runs
//                           small chunks and splits the rest in half only
//                           when its deque is empty, i.e. when a thief may
//                           want work (Tzannes et al., PPoPP 2010).
//   grain                   split in halves down to pieces of at most grain
//                           iterations (eager binary splitting).
//   locus::static_partition one contiguous block per worker, block k on worker
//                           k, like OpenMP schedule(static): no splitting, no
//                           stealing inside a block, the same block on the
//                           same worker every call.
//   locus::loop_affinity&   the range is cut into a few sub-ranges per worker;
//                           each runs where it ran the previous time the same
//                           object was passed (the first time: contiguous
//                           blocks, as static). A sub-range whose worker is
//                           busy is taken by an idle one, and is then
//                           remembered there. Inside a sub-range the loop
//                           splits as without the object, so thieves can still
//                           help. This is the idea of oneTBB's
//                           affinity_partitioner, for iterative computations
//                           that sweep the same data every step.
//
//   locus::loop_affinity aff;   // lives across the time steps
//   for (int step = 0; step < steps; ++step)
//     locus::parallel_for(0, n, [&](std::int64_t i) { ... }, aff);
//
// Static and affinity sub-ranges are posted to their worker's inbox; a
// thread that is not a worker runs the whole loop as one root task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/worker_view.hpp"

namespace locus {

struct static_partition_t {
  explicit constexpr static_partition_t() = default;
};
inline constexpr static_partition_t static_partition{};

namespace detail {
struct affinity_access;
// A sub-range of a posted loop: a parent-first child of the loop's group,
// living in the caller's frame (static) or in its loop_affinity (affinity).
struct loop_piece : parent_first_job {
  void* loop = nullptr;                                     // the loop's state
  void (*run_range)(void*, std::size_t, std::int64_t, std::int64_t) = nullptr;  // runs piece [lo, hi)
  std::size_t index = 0;  // position in the loop
  std::int64_t lo = 0, hi = 0;
  std::int32_t ran_on = -1;  // the worker that started it
  bool posted = false;       // sent to another worker's inbox (owner-only)
};
}  // namespace detail

class loop_affinity {
 public:
  loop_affinity() = default;
  loop_affinity(const loop_affinity&) = delete;
  loop_affinity& operator=(const loop_affinity&) = delete;

  // Sub-ranges of the last loop run with this object.
  std::size_t pieces() const noexcept { return worker_of_.size(); }
  // Of those, how many started on another worker than the one they were
  // posted to (the first time: than in the initial contiguous mapping): how
  // well the mapping has settled.
  std::size_t moved_last_time() const noexcept { return moved_; }
  // The worker sub-range i goes to next time (-1 if none yet): the one that
  // started it last time, unless that worker already has its share of the
  // sub-ranges (pieces() / workers, rounded up); then the one it went to.
  // Under the tbb-std policy there is no cap, as in oneTBB's
  // affinity_partitioner: always the one that started it (and the caller
  // queues its own sub-ranges on its deque rather than running them inline).
  int worker_of(std::size_t i) const noexcept { return i < worker_of_.size() ? worker_of_[i] : -1; }

  // Sub-ranges per worker: a few, so that an idle worker can take one
  // from a busy one while most stay where their data is.
  static constexpr int pieces_per_worker = 4;

 private:
  friend struct detail::affinity_access;  // detail/posted_loops.hpp

  std::int64_t lo_ = 0, hi_ = 0, min_piece_ = 0;
  int workers_ = 0;
  std::vector<std::int32_t> worker_of_;
  std::vector<detail::loop_piece> pieces_;
  std::vector<std::size_t> load_;  // sub-ranges per worker, while remapping
  std::size_t moved_ = 0;
};

}  // namespace locus
