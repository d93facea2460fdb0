// A source of completions outside the pool that only makes progress when
// somebody asks it to: locus::mpi's outstanding requests (src/mpi) are the
// one today. Tasks wait on it through detail::one_shot (wait_queue.hpp);
// the workers do the asking, so no thread of its own spins a core.
//
// Who polls (src/core/poll_services.cpp):
//   - an idle worker, once per round of its search for work;
//   - a busy worker, when it passes through the scheduler (a task of its own
//     ended, or it looks for work) and its last poll is older than
//     tunables::service_poll_ns; a worker inside one long task polls at its
//     next scheduling point, not before;
//   - while pending() is true, a sleeping worker naps at most
//     tunables::service_nap_ns, so an idle pool keeps polling too.
// None of this is on the spawn/sync fast path: with no service registered
// the cost is one relaxed load per search round and per task that ends in
// the scheduler.
#pragma once

namespace locus::detail {

class poll_service {
 public:
  // Completes what it can without blocking. Workers may call it at the same
  // time; a service that must poll alone tries a lock and returns if busy.
  virtual void poll() noexcept = 0;
  // Whether a task waits on it (sleepers then nap on a short timer).
  virtual bool pending() const noexcept = 0;
  // The pool is about to stop: called before it waits for the root tasks
  // still in flight, so a task waiting on the service must not be left
  // waiting (its message may never come, and the stop would wait for it
  // for ever): the service ends such waits with a clear error, or ends the
  // program with one; it never leaves the stop hanging.
  virtual void pool_stopping() noexcept = 0;

 protected:
  ~poll_service() = default;
};

// Registers a service for the rest of the program: it must outlive every
// pool (a leaked singleton is the usual shape). At most four services;
// std::length_error beyond. Registering one twice is a no-op.
void add_poll_service(poll_service& service);

}  // namespace locus::detail
