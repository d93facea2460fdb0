// The unit of scheduling: a frame is anything a worker can take from a deque,
// a mailbox or a queue and run: a job (a callable that has not started, such
// as the second branch of fork_join or a parent-first spawn), or a
// continuation (a suspended fiber: a parent whose continuation was stolen or
// that waited at a sync).
//
// The header is deliberately small and policy-neutral. The fields that
// policies read (place, push_count, owner, color) are set on the slow path or
// inherited cheaply at creation; the fast path never reads them.
#pragma once

#include <cstdint>

namespace locus::detail {

struct worker;
struct frame;

// Runs the frame on the calling worker (a job) or prepares it for resumption
// (a continuation). Returns the continuation the worker should switch to
// next, or nullptr to go back to the scheduling loop.
using frame_run_fn = frame* (*)(frame*);

enum class frame_kind : std::uint8_t { job, continuation };

struct frame {
  frame_run_fn run = nullptr;
  frame_kind kind = frame_kind::job;
  // NUMA-WS section III-B: PUSHBACK counts failed pushes per frame and gives
  // up past a constant threshold.
  std::uint8_t push_count = 0;
  // NabbitC colors, ADWS depth and similar small policy tags live here.
  std::uint16_t tag = 0;
  // Locality hint: the place this frame should run at, or -1 for any place.
  std::int32_t place = -1;
  // Worker that created the frame (ADWS returns continuations to it).
  std::int32_t owner = -1;
};

inline constexpr std::int32_t any_place = -1;

}  // namespace locus::detail
