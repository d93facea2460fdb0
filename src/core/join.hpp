// Internal entry points of the join protocols (join.cpp) used by the
// scheduler when a fresh fiber starts with a message.
#pragma once

#include "fiber/fiber.hpp"
#include "locus/detail/worker_view.hpp"

namespace locus::detail {

// Where every pooled fiber starts (join.cpp): it acts on the message it was
// started with (run a spawned child, finish a parent's suspension, ...) and
// then runs the scheduling loop.
void fiber_main(transfer t);

// The scheduling loop (scheduler.cpp): resumes `ready` if not null, else
// finds work. Never returns.
[[noreturn]] void run_scheduler(frame* ready);
// The same, with `job` run first as a frame a search found (a thread that
// entered an arena as one of its workers starts its root so: roots.cpp).
[[noreturn]] void run_scheduler_from(frame* job);

// Whether work-first spawns use locus_call_on_stack (x86-64) or two fiber
// switches; set when the pool starts (LOCUS_SPAWN_SWITCH).
extern bool g_spawn_on_stack;

// Handles the message a resumed fiber receives (release of the fiber that
// switched to it).
void after_resume(switch_msg* msg) noexcept;

}  // namespace locus::detail
