// oneTBB: parallel_invoke for recursion, parallel_for / parallel_reduce with
// auto_partitioner (variant "tbb") or affinity_partitioner ("tbb:affinity")
// for loops. The runner runs every call inside a task_arena of the chosen
// size.
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>

#include <cstdint>
#include <functional>

#include "common/backend.hpp"

namespace bench {

struct tbb_backend : runs_in_place {
  // Set by the runner from the variant.
  static inline bool affinity = false;

  template <class F, class G>
  static void fork2(F&& f, G&& g) {
    tbb::parallel_invoke(f, g);
  }
  template <class Body>
  static void loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    if (lo >= hi) return;
    const tbb::blocked_range<std::int64_t> range(lo, hi, static_cast<std::size_t>(grain));
    auto piece = [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); };
    if (affinity) {
      // One partitioner per loop (per body type), kept across calls: that is
      // how it replays the previous iteration's placement.
      static tbb::affinity_partitioner partitioner;
      tbb::parallel_for(range, piece, partitioner);
    } else {
      tbb::parallel_for(range, piece, tbb::auto_partitioner());
    }
  }
  template <class Body>
  static double reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    if (lo >= hi) return 0.0;
    const tbb::blocked_range<std::int64_t> range(lo, hi, static_cast<std::size_t>(grain));
    auto piece = [&](const tbb::blocked_range<std::int64_t>& r, double acc) { return acc + body(r.begin(), r.end()); };
    if (affinity) {
      static tbb::affinity_partitioner partitioner;
      return tbb::parallel_reduce(range, 0.0, piece, std::plus<>(), partitioner);
    }
    return tbb::parallel_reduce(range, 0.0, piece, std::plus<>(), tbb::auto_partitioner());
  }
};

}  // namespace bench
