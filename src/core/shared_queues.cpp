// The shared queues' lane turns (shared_queues.hpp).
#include "core/shared_queues.hpp"

#include <cstdint>

namespace locus::detail {

// Out of line, as every thread-local the core reads: a fiber may resume on
// another thread, and an inlined access could keep the first thread's
// address across the switch.
[[gnu::noinline]] unsigned next_lane_turn() noexcept {
  // Started from the slot's own address, which differs between threads, so
  // that two threads' turns are not in step.
  static thread_local std::uintptr_t turn = 0;
  if (turn == 0) turn = reinterpret_cast<std::uintptr_t>(&turn) >> 6;
  return static_cast<unsigned>(turn++);
}

}  // namespace locus::detail
