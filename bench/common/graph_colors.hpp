// The colors the task-graph benchmarks give their nodes (NabbitC, seed 004
// section V-D, tables II and III). A header of its own, without the
// harness's backends, so that the tests can check the colorings without
// compiling oneTBB and OpenMP.
#pragma once

#include <cstdint>

#include <locus/locus.hpp>

namespace bench {

// The worker that holds the node's data (good); a valid color of a worker
// on another place, so that colored steals prefer remote work (bad, table
// II); a color no worker has, so that every colored attempt misses
// (invalid, table III).
enum class graph_colors { good, bad, invalid };

// The colors of the graph being run (variant::colors), for block_color.
inline graph_colors g_colors = graph_colors::good;

// The color of block b of `blocks`: the worker a static partition of the
// rows gives it, as OpenMP static and bench::place_blocks place them. With
// bad colors (table II) it is the worker half the colors away, on another
// place whenever a place holds at most half the workers (the machine
// presets' sockets at 20 workers and more); with invalid colors (table III)
// a color no worker has.
inline int block_color(std::int64_t b, std::int64_t blocks) {
  const int colors = locus::num_colors();
  const int good = static_cast<int>(b * colors / blocks);
  switch (g_colors) {
    case graph_colors::good: return good;
    case graph_colors::bad: return (good + colors / 2) % colors;
    case graph_colors::invalid: return colors;
  }
  return good;
}

}  // namespace bench
