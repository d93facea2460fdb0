// The request poller (poller.hpp; the protocol: src/mpi/README.md).
//
// Registration and polling meet at two locks. add() appends to incoming_
// under add_mutex_, held for a push_back. poll() runs under poll_mutex_,
// taken with try_lock: one poller at a time, and a worker that finds it
// busy goes back to its search at once (a poll must never block). The
// poller moves incoming_ into its own arrays under add_mutex_ and calls
// MPI_Testsome with no lock but its own held, so tasks register new
// requests while it tests.
#include "poller.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace locus::mpi::impl {

void poller::add(std::span<const waited_request> requests) {
  const std::lock_guard lock(add_mutex_);
  incoming_.insert(incoming_.end(), requests.begin(), requests.end());
  // Under the lock, so a poll that splices these requests also sees the count.
  tasks_waiting_.fetch_add(1, std::memory_order_relaxed);
}

void poller::finish(const waited_request& w, int error_code) noexcept {
  waiter_group& g = *w.group;
  if (error_code != MPI_SUCCESS && (g.error_index < 0 || w.index < g.error_index)) {
    g.error_code = error_code;
    g.error_index = w.index;
  }
  // acq_rel: the last one sees every earlier status written for the group
  // (earlier polls ran under poll_mutex_ too), and set() passes them all to
  // the waiter.
  if (g.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    tasks_waiting_.fetch_sub(1, std::memory_order_relaxed);
    g.done.set();  // the group may be gone after this
  }
}

void poller::poll() noexcept {
  // The common case, an idle worker with no task waiting on MPI: one load.
  if (tasks_waiting_.load(std::memory_order_relaxed) == 0) return;
  const std::unique_lock lock(poll_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // somebody else polls
  const auto start = std::chrono::steady_clock::now();

  // MPI_Finalize called behind locus::mpi's back while tasks wait (finalize()
  // itself refuses): their requests can never complete, and an MPI call now
  // would be erroneous.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) abort_waiting("MPI was finalized (MPI_Finalize)");

  {
    const std::lock_guard add_lock(add_mutex_);
    spliced_.swap(incoming_);
  }
  for (const waited_request& w : spliced_) {
    active_.push_back(w);
    active_requests_.push_back(*w.user);
  }
  spliced_.clear();
  const int n = static_cast<int>(active_.size());
  if (n == 0) return;  // a group counted but not yet spliced cannot happen; harmless anyway

  indices_.resize(active_.size());
  statuses_.resize(active_.size());
  int completed = 0;
  const int rc = MPI_Testsome(n, active_requests_.data(), &completed, indices_.data(), statuses_.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // The call itself failed: no request says which, and testing again would
    // likely fail again. Every waiting task gets the error rather than wait
    // for ever; their requests stay as they were in the callers' handles.
    for (const waited_request& w : active_) finish(w, rc);
    active_.clear();
    active_requests_.clear();
  } else if (completed != MPI_UNDEFINED && completed > 0) {
    for (int k = 0; k < completed; ++k) {
      const auto i = static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)]);
      const waited_request w = active_[i];
      const MPI_Status& status = statuses_[static_cast<std::size_t>(k)];
      // MPI_ERROR is set only when the call returns MPI_ERR_IN_STATUS (MPI
      // standard 4.0, section 3.7.5).
      const int error_code = rc == MPI_ERR_IN_STATUS ? status.MPI_ERROR : MPI_SUCCESS;
      *w.user = active_requests_[i];  // MPI_REQUEST_NULL, or an inactive persistent request
      *w.status = status;
      active_[i].group = nullptr;  // compacted below
      finish(w, error_code);
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (active_[i].group == nullptr) continue;
      active_[kept] = active_[i];
      active_requests_[kept] = active_requests_[i];
      ++kept;
    }
    active_.resize(kept);
    active_requests_.resize(kept);
  }
  polls.fetch_add(1, std::memory_order_relaxed);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  poll_ns.fetch_add(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
}

void poller::abort_waiting(const char* when) const noexcept {
  const int n = tasks_waiting_.load(std::memory_order_acquire);
  std::fprintf(stderr,
               "locus::mpi: %s while %d task%s on MPI requests; %s can never resume, so the program ends here "
               "(complete every request before MPI_Finalize and before the pool stops; docs/mpi.md)\n",
               when, n, n == 1 ? " waits" : "s wait", n == 1 ? "it" : "they");
  std::fflush(stderr);
  std::abort();
}

void poller::pool_stopping() noexcept {
  // Nobody will poll any more: a waiting task would hang its parent for
  // ever, and the pool's stop with it.
  if (tasks_waiting() > 0) abort_waiting("the pool is stopping");
}

poller& the_poller() {
  // Leaked: a poll service outlives every pool (poll_service.hpp).
  static poller* const instance = [] {
    auto* p = new poller;
    detail::add_poll_service(*p);
    return p;
  }();
  return *instance;
}

}  // namespace locus::mpi::impl
