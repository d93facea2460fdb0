// The unit of scheduling: a frame is anything a worker can take from a deque,
// a mailbox or a queue and run: a job (a callable that has not started, such
// as the second branch of fork_join or a parent-first spawn), or a
// continuation (a suspended fiber: a parent whose continuation was stolen or
// that waited at a sync).
//
// The header is deliberately small and policy-neutral. The fields that
// policies read (the task context, the policy word) are set on the slow
// path or inherited cheaply at creation; the fast path never reads them.
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

inline constexpr std::int32_t any_place = -1;

// The per-task context: state a task inherits from the task that created it
// and passes on to what it creates. The running task's lives in
// worker_view::ctx; every frame a task creates copies it (a job takes its
// creator's, a continuation keeps its own task's), and the scheduler
// installs a frame's context when it starts or resumes it. Fixed size and
// copied whole, so carrying it costs one 16-byte copy where the place hint
// alone used to be copied.
struct task_context {
  // Locality hint: the place this task should run at, or any_place
  // (NUMA-WS III-A; locus::at, set_hint). 16 bits: places are at most the
  // workers (4096).
  std::int16_t place = any_place;
  // The arena the task belongs to (locus::arena; 0 is the default arena):
  // a frame runs only on a worker serving its arena (scheduler.cpp), so
  // every task a task creates stays in its arena, continuations included.
  std::uint16_t arena = 0;
  // The policy's own inherited state, zero in a root task: ADWS a work
  // range and a depth, CATS a spawn-path id, NabbitC a color set, TBB-NUMA
  // an affinity. Policies that keep none leave it alone.
  std::uint32_t policy[3] = {0, 0, 0};
};
static_assert(sizeof(task_context) == 16, "copied whole on spawn paths: keep it at 16 bytes");

struct frame {
  frame_run_fn run = nullptr;
  frame_kind kind = frame_kind::job;
  // The policy's word for this frame, zero at creation and not inherited;
  // what it means is the policy's (NUMA-WS section III-B: PUSHBACK counts
  // a frame's failed pushes in it and gives up past a constant threshold;
  // CATS marks the jobs that start a leaf inter-socket task).
  std::uint32_t policy_word = 0;
  task_context ctx;
};

}  // namespace locus::detail
