// The request poller: the poll service (include/locus/detail/poll_service.hpp)
// that completes the requests tasks wait on. The protocol, and why no
// completion is lost, are in src/mpi/README.md.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "locus/detail/poll_service.hpp"
#include "locus/detail/wait_queue.hpp"

namespace locus::mpi::impl {

// One suspended wait: a task waiting on one request (wait) or several
// (wait_all). Lives on the waiting task's stack; the poller touches it until
// the one_shot is set, never after.
struct waiter_group {
  std::atomic<int> remaining{0};  // requests not yet completed
  int error_code = MPI_SUCCESS;   // of the lowest-indexed request that failed
  int error_index = -1;
  detail::one_shot done;
};

// One request of a group, as registered with the poller.
struct waited_request {
  MPI_Request* user;   // the caller's handle: gets what MPI_Testsome leaves (MPI_REQUEST_NULL)
  MPI_Status* status;  // where its status goes
  int index;           // its place in the caller's array
  waiter_group* group;
};

class poller final : public detail::poll_service {
 public:
  // Registers the requests of one group that the first test did not
  // complete (group->remaining is their number); the poller owns them until
  // it sets group->done.
  void add(std::span<const waited_request> requests);

  void poll() noexcept override;
  bool pending() const noexcept override { return tasks_waiting_.load(std::memory_order_relaxed) > 0; }
  void pool_stopping() noexcept override;

  // Held by polls (try_lock) and by finalize (lock): no MPI_Testsome runs
  // while MPI is being finalized.
  std::mutex& poll_mutex() noexcept { return poll_mutex_; }
  int tasks_waiting() const noexcept { return tasks_waiting_.load(std::memory_order_acquire); }
  // One line on stderr naming how many tasks wait, then std::abort().
  [[noreturn]] void abort_waiting(const char* when) const noexcept;

  // Counters (relaxed: totals, read for reports).
  std::atomic<std::uint64_t> requests_waited{0};
  std::atomic<std::uint64_t> tasks_suspended{0};
  std::atomic<std::uint64_t> polls{0};
  std::atomic<std::uint64_t> poll_ns{0};

 private:
  // The request is complete (error_code from its status) or failed with the
  // whole poll: tell its group; the last one sets the group's event.
  void finish(const waited_request& w, int error_code) noexcept;

  std::atomic<int> tasks_waiting_{0};  // groups registered and not yet set

  std::mutex add_mutex_;                  // guards incoming_
  std::vector<waited_request> incoming_;  // registered since the last poll

  std::mutex poll_mutex_;  // one poller at a time; guards what follows
  std::vector<MPI_Request> active_requests_;  // the poller's copies, MPI_Testsome's array
  std::vector<waited_request> active_;        // same order
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  std::vector<waited_request> spliced_;  // incoming_, swapped out under add_mutex_
};

// The process's poller, registered as a poll service on first use.
poller& the_poller();

}  // namespace locus::mpi::impl
