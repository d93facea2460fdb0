// Locality hints (NUMA-WS section III-A): say at which place a spawned task
// should run. A place is a group of workers (LOCUS_PLACES: a NUMA node by
// default); locus::num_places() says how many there are, so a program can
// partition its data portably and run unchanged on 1, 2 or 4 places.
//
//   locus::task_group g;
//   for (int p = 1; p < locus::num_places(); ++p)
//     g.spawn([&, p] { sort_part(p); }, locus::at(p));
//   sort_part(0);
//   g.sync();
//
// A hinted task's descendants inherit its place unless they say otherwise
// (locus::any unsets it; set_hint changes the running task's). Hints are
// hints: the scheduler may run a task elsewhere to balance load. The
// numa-ws and tbb-numa policies act on them; the others record them and
// ignore them.
//
// A place outside 0..num_places()-1 is an error at the spawn
// (std::out_of_range naming the place and the range), unless
// LOCUS_HINT_RANGE=wrap, which takes it modulo num_places() (for programs
// written for a fixed number of places).
#pragma once

#include <cstdint>

namespace locus {

struct place_hint {
  std::int32_t place;
};

// Run at place p (checked at the spawn).
constexpr place_hint at(int p) noexcept { return {p}; }
// No place: the task and its descendants may run anywhere.
inline constexpr place_hint any{-1};

// The hint of the calling task (any off the pool or when unset), and a way
// to change it for the rest of the task and what it spawns from now on.
place_hint current_hint() noexcept;
void set_hint(place_hint hint);

namespace detail {
// The hint's place if it is valid (or wrapped into range), else throws
// std::out_of_range. `any` stays any.
std::int32_t checked_place(place_hint hint);
}  // namespace detail

}  // namespace locus
