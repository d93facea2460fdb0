// Internal entry points of the join protocols (join.cpp) used by the
// scheduler when a fresh fiber starts with a message.
#pragma once

#include "core/fiber.hpp"
#include "locus/detail/worker_view.hpp"

namespace locus::detail {

// A work-first child starts on this fiber; `parent` is the fiber it left.
// Returns a continuation to resume next, or nullptr for the scheduling loop
// (only if the parent was stolen; otherwise it switches straight back).
frame* run_spawned_child(spawn_request& req, fiber* parent);

// A parent fiber has just switched away to wait at a join; finish its
// suspension. Returns the parent if it is ready to resume here.
frame* finish_suspension(switch_msg& msg);

// Handles the message a resumed fiber receives (release of the fiber that
// switched to it).
void after_resume(switch_msg* msg) noexcept;

}  // namespace locus::detail
