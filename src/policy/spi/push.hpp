// How a frame goes on a worker's own deque, for the core and the policies
// alike: tagged when the policy asked for deque tags (hook_tag_frames), so
// that thieves can peek at the oldest frame's tag (work_deque::steal_if).
#pragma once

#include <cstdint>

#include "policy/spi/hooks.hpp"

namespace locus::detail {

// Pushes f on w's own deque: its tag is the frame's place + 1 with
// hook_tag_place (tbb-numa), else its context's first policy word.
inline void push_own(worker_view& w, frame* f) {
  if (w.hooks & hook_tag_frames) [[unlikely]]
    w.deque.push_tagged(f, (w.hooks & hook_tag_place) ? static_cast<std::uint32_t>(f->ctx.place + 1) : f->ctx.policy[0]);
  else
    w.deque.push(f);
}

}  // namespace locus::detail
