// The bits of worker_view::hooks a policy sets on its workers (in its
// constructor, through policy_context::worker_at) to be asked or told more
// than the search needs. Any nonzero bit sends spawns and forks down the
// cold spawn path (src/core/spawn_hooks.cpp); the core's own bits,
// hook_trace and hook_span, are in locus/detail/worker_view.hpp, and
// hook_arena_entry (256) in src/core/worker.hpp.
#pragma once

#include <cstdint>

#include "locus/detail/worker_view.hpp"

namespace locus::detail {

// hook_spawn_order: fork_join and task_group::spawn ask the policy whether
// to run the child first (work-first, the default) or queue it and go on
// with the parent (policy_base::parent_first; TBB-NUMA's spawn).
inline constexpr std::uint8_t hook_spawn_order = 1;
// hook_task_events: the scheduler reports task begin, end, suspend and
// resume, and task groups report their first spawn and their sync
// (policy_base::on_task, on_group; CATS).
inline constexpr std::uint8_t hook_task_events = 2;
// hook_tag_frames: every frame this worker pushes carries its context's
// first policy word as the deque tag, so thieves can peek (steal_if).
inline constexpr std::uint8_t hook_tag_frames = 4;
// hook_work_hints: the policy distributes work (ADWS): spawns and forks
// pass each child's share of its group's work to the policy
// (policy_base::open_group, share_work, share_done; work_shares.hpp).
inline constexpr std::uint8_t hook_work_hints = 32;
// hook_tag_place (with hook_tag_frames): the deque tag of every frame this
// worker pushes is its context's place + 1 (0: no place) instead of the
// policy's word: tbb-numa's thieves leave the frames of an idle place to
// it, whether they are mailed proxies or plain forks (figure 9).
inline constexpr std::uint8_t hook_tag_place = 64;
// hook_exact_affinity (128) is defined with the core's bits in
// locus/detail/worker_view.hpp, since the loop layer reads it: a
// loop_affinity then records exactly the worker that started each
// sub-range (tbb-std; oneTBB's note_affinity).

}  // namespace locus::detail
