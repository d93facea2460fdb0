// One task per partition: how TBB-NUMA's ports of streamcluster and
// fluidanimate use the task scheduler directly, without a loop template
// (seed 001, table 2: "none"; figure 13). The data is split into `parts`
// partitions, each phase of the program runs one task per partition, and
// the program waits for all of them before its next step:
//
//   bench::partition_program<P>([&] {             // once, around the phases
//     for (...) bench::partition_tasks<P>(parts, [&](int part) { phase(part); });
//   });
//
// Partition i of n items is place_block(n, i, parts), and it belongs to place
// bench::partition_place<P>(i, parts): with `parts` a multiple of the
// places, that is the place whose block bench::place_blocks put its items
// in (otherwise a partition can straddle two places' blocks by a few items).
//
// Per backend:
//   serial  a loop over the partitions.
//   locus   a task_group with one parent-first spawn per partition: all
//           of them queued, then the spawner syncs (and runs those nobody
//           took), as figure 13's launcher spawns its task list. With +nacs
//           (locus_backend::loops == distributed, which for these programs
//           means "the program gives its tasks place affinities"), each
//           spawn carries locus::at(place of the partition), as figure 13's
//           set_affinity(grid.affinity_for_partition(i)), and the
//           partitions of other places are spawned before those of the
//           spawner's own place (section 4.4.3, submission order: the
//           spawner takes its own deque's tasks back last in, first out, so
//           the ones spawned first are the likeliest to reach their place
//           before it could revoke them).
//   tbb     a tbb::task_group, one run() per partition.
//   omp     a worksharing loop over the partitions (schedule(runtime), set
//           from the variant): under omp:static thread t gets the same
//           partitions in every phase, as in PARSEC's pthreads versions,
//           where thread t owns partition t.
#pragma once

#include <oneapi/tbb/task_group.h>

#include <cstdint>
#include <type_traits>

#include <locus/locus.hpp>

#include "common/backend.hpp"
#include "common/locus_backend.hpp"
#include "common/omp_backend.hpp"
#include "common/places.hpp"
#include "common/tbb_backend.hpp"

namespace bench {

// Whether the locus variant runs with place affinities (+nacs).
template <class P>
bool partition_affinity() {
  if constexpr (hints_apply<P>) return P::loops == locus_loops::distributed;
  else return false;
}

template <class P>
int partition_place(int part, int parts) {
  return part_place(part, parts, places<P>());
}

// Items [begin, end) of partition `part` of n items (locus::place_block).
struct partition_range {
  std::int64_t begin;
  std::int64_t end;
  partition_range(std::int64_t n, int part, int parts) {
    const auto block = locus::place_block(static_cast<std::size_t>(n), part, parts);
    begin = static_cast<std::int64_t>(block.begin);
    end = static_cast<std::int64_t>(block.end);
  }
};

// Runs fn, the program's sequence of phases. On locus it runs as one task on
// the pool, so that each phase's spawns come from a worker (and under +nacs
// from a worker whose place decides the submission order) rather than being
// submitted from the runner's thread; OpenMP opens its team per phase.
template <class P, class Fn>
void partition_program(Fn&& fn) {
  if constexpr (std::is_same_v<P, locus_backend>) P::region(fn);
  else fn();
}

template <class P, class Body>
void partition_tasks(int parts, Body&& body) {
  if constexpr (std::is_same_v<P, locus_backend>) {
    locus::task_group group;
    if (!partition_affinity<P>()) {
      for (int i = 0; i < parts; ++i) group.spawn([&body, i] { body(i); }, locus::parent_first);
    } else {
      const int here = locus::current_place();
      for (const bool own : {false, true})
        for (int i = 0; i < parts; ++i) {
          const int place = partition_place<P>(i, parts);
          if ((place == here) == own) group.spawn([&body, i] { body(i); }, locus::parent_first, locus::at(place));
        }
    }
    group.sync();
  } else if constexpr (std::is_same_v<P, tbb_backend>) {
    tbb::task_group group;
    for (int i = 0; i < parts; ++i) group.run([&body, i] { body(i); });
    group.wait();
  } else if constexpr (std::is_same_v<P, omp_backend>) {
    P::loop(0, parts, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) body(static_cast<int>(i));
    });
  } else {
    for (int i = 0; i < parts; ++i) body(i);
  }
}

}  // namespace bench
