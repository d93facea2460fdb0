// Rounds: each CPU-bound control runs its computation `rounds` times per
// timed run, each round one root task tree submitted from the calling
// thread (P::run), of the same shape every round: an iterative program as
// CATS (seed 002, section 3.2) sees one, whose first tree it profiles and
// whose later trees it recognizes by their spawn paths and schedules from
// the profile (a CPU-bound program: as plain work stealing, section 3.5).
// bench/common/row_tree.hpp's time steps do the same for the memory-bound
// benchmarks. With one round a program never leaves CATS's profiling.
#pragma once

#include <cstdint>

#include "common/harness.hpp"

namespace cpu_common {

inline std::int64_t rounds(bench::size_class s, bench::params& p, std::int64_t max = 1'000'000) {
  return p.get("rounds", 2, 4, 4, s,
               "times the computation runs per timed run, each time as one root task tree (CATS profiles the "
               "first)",
               {1, max});
}

}  // namespace cpu_common
