// What the task-graph benchmarks (NabbitC, seed 004 section V: heat-graph,
// life-graph, fdtd-graph, sw-graph, pagerank-graph) share: which
// implementation runs what, the locality measure in the summary, and the
// row-block stencil graph of heat and life.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <locus/locus.hpp>

#include "common/graph_colors.hpp"  // block_color, g_colors
#include "common/harness.hpp"

namespace bench {

// Runs variant v of task-graph benchmark b: serial runs the nodes in their
// serial order (b.run_serial()), locus the task graph (b.run_graph(),
// Nabbit under ws, NabbitC under nabbitc, returning its section V-B
// measure) with v's colors, oneTBB and OpenMP the loop version
// (b.run_baseline<P>()), and so does locus with a loop modifier: with
// +static it is OpenMP static's partition and with +guided its guided schedule,
// which the simulator can run.
// Returns the measure if the run was the graph's.
template <class B>
std::optional<locus::graph_locality> run_graph_variant(const variant& v, B& b) {
  std::optional<locus::graph_locality> measured;
  dispatch(v, [&]<class P>() {
    if constexpr (std::is_same_v<P, serial_backend>) {
      b.run_serial();
    } else if constexpr (std::is_same_v<P, locus_backend>) {
      if (v.loops != locus_loops::plain) return b.template run_baseline<P>();
      g_colors = v.colors;
      struct restore {
        ~restore() { g_colors = graph_colors::good; }
      } on_exit;
      measured = b.run_graph();
    } else {
      b.template run_baseline<P>();
    }
  });
  return measured;
}

// The end of a graph benchmark's summary: "; remote nodes and predecessors
// (NabbitC V-B) x% of N; nodes by readier a (b remote), after colored
// steal c (d), after random steal e (f), handed off g (h)", or nothing after a run that was
// not a graph's.
inline std::string locality_note(const std::optional<locus::graph_locality>& l) {
  if (!l) return "";
  std::ostringstream s;
  s.precision(3);
  s << "; remote nodes and predecessors (NabbitC V-B) " << 100 * l->remote_share() << "% of "
    << l->nodes + l->predecessors << "; nodes by readier " << l->by_readier << " (" << l->by_readier_remote
    << " remote), after colored steal " << l->after_colored << " (" << l->after_colored_remote
    << "), after random steal " << l->after_random << " (" << l->after_random_remote << "), handed off "
    << l->handed << " (" << l->handed_remote << ")";
  return s.str();
}

// The stencil over blocks of rows as a task graph computed on demand from
// its sink: node (t, b), key t * blocks + b, runs update(t, b) once blocks
// b - 1, b and b + 1 of step t - 1 are done (the rows it reads and, two
// steps on, the readers of the block it overwrites); the sink, key
// steps * blocks, needs every block of the last step. `measure` false
// leaves the locality measure off (graph-overhead times the library alone).
template <class Update>
locus::graph_locality run_row_stencil_graph(std::int64_t steps, std::int64_t blocks, Update&& update,
                                            bool measure = true) {
  const std::int64_t sink = steps * blocks;
  auto preds = [=](std::int64_t key) {
    std::vector<std::int64_t> p;
    if (key == sink) {
      if (steps > 0)
        for (std::int64_t b = 0; b < blocks; ++b) p.push_back((steps - 1) * blocks + b);
      return p;
    }
    const std::int64_t t = key / blocks, b = key % blocks;
    if (t > 0)
      for (std::int64_t d = -1; d <= 1; ++d)
        if (b + d >= 0 && b + d < blocks) p.push_back((t - 1) * blocks + b + d);
    return p;
  };
  auto compute = [&](std::int64_t key) {
    if (key != sink) update(key / blocks, key % blocks);
  };
  auto color = [=](std::int64_t key) { return block_color(key == sink ? 0 : key % blocks, blocks); };
  auto g = locus::make_task_graph<std::int64_t>(preds, compute, color);
  if (measure) g.measure_locality();
  g.run(sink);
  return g.locality();
}

}  // namespace bench
