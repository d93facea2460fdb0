// graph-overhead in the suite: what the task-graph library costs per node
// (issue 16 asks for it against a hand-written fork-join version of heat and
// against oneTBB's flow graph, measured in one run).
//
// The graph is heat-graph's (graph_bench.hpp, run_row_stencil_graph): node
// (t, b) needs blocks b - 1, b, b + 1 of step t - 1. Its body is `work`
// rounds of an integer hash of those three values, so with work=0 the time
// is the scheduling alone. Variants:
//   serial              the nodes in step order;
//   locus:<policy>      the task graph, computed on demand from its sink
//                       (ws: Nabbit, nabbitc: NabbitC), locality measure off;
//   locus:<policy>+static, +affinity
//                       the fork-join version a programmer would write by
//                       hand: per step a parallel_for over the blocks, which
//                       joins before the next step (heat's loop version);
//   tbb                 oneTBB's flow graph: one continue_node per node, the
//                       same edges, built and run in the timed region as
//                       locus builds its nodes on demand in the run;
//   omp:*               the fork-join version in one parallel region.
// Every variant's last step is compared with the serial one's, so a node
// that ran before its predecessors fails verification.
#include <oneapi/tbb/flow_graph.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.hpp>

#include "common/graph_bench.hpp"
#include "common/harness.hpp"
#include "common/hash_rounds.hpp"

namespace {

using bench::hash_rounds;

class graph_overhead_instance final : public bench::instance {
 public:
  graph_overhead_instance(std::int64_t steps, std::int64_t blocks, std::int64_t work)
      : steps_(steps), blocks_(blocks), work_(work), values_(static_cast<std::size_t>((steps + 1) * blocks)) {
    run_serial();
    expected_.assign(values_.end() - blocks_, values_.end());
  }

  void run(const bench::variant& v) override {
    for (std::int64_t b = 0; b < blocks_; ++b) at(-1, b) = static_cast<std::uint64_t>(b + 1);
    switch (v.kind) {
      case bench::impl::serial: run_serial(); break;
      case bench::impl::tbb: run_flow_graph(); break;
      case bench::impl::locus:
        if (v.loops == bench::locus_loops::plain) {
          bench::run_row_stencil_graph(steps_, blocks_, [this](std::int64_t t, std::int64_t b) { update(t, b); },
                                       /*measure=*/false);
          break;
        }
        [[fallthrough]];
      case bench::impl::omp: bench::dispatch(v, [&]<class P>() { run_fork_join<P>(); }); break;
    }
  }
  std::string verify() override {
    for (std::int64_t b = 0; b < blocks_; ++b)
      if (at(steps_ - 1, b) != expected_[static_cast<std::size_t>(b)])
        return "block " + std::to_string(b) + " of the last step differs from the serial run's";
    return "";
  }
  std::string summary() override {
    return std::to_string(steps_ * blocks_) + " nodes (" + std::to_string(steps_) + " steps x " +
           std::to_string(blocks_) + " blocks), " + std::to_string(work_) + " hash rounds each";
  }

 private:
  // Step -1 holds the initial values.
  std::uint64_t& at(std::int64_t t, std::int64_t b) { return values_[static_cast<std::size_t>((t + 1) * blocks_ + b)]; }

  void update(std::int64_t t, std::int64_t b) {
    const std::uint64_t left = b > 0 ? at(t - 1, b - 1) : 0, right = b + 1 < blocks_ ? at(t - 1, b + 1) : 0;
    at(t, b) = hash_rounds(left + 3 * at(t - 1, b) + 7 * right + static_cast<std::uint64_t>(t), work_);
  }

  void run_serial() {
    for (std::int64_t b = 0; b < blocks_; ++b) at(-1, b) = static_cast<std::uint64_t>(b + 1);
    for (std::int64_t t = 0; t < steps_; ++t)
      for (std::int64_t b = 0; b < blocks_; ++b) update(t, b);
  }

  template <class P>
  void run_fork_join() {
    P::region([&] {
      for (std::int64_t t = 0; t < steps_; ++t)
        P::loop(0, blocks_, 1, [&](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t b = lo; b < hi; ++b) update(t, b);
        });
    });
  }

  void run_flow_graph() {
    using node = tbb::flow::continue_node<tbb::flow::continue_msg>;
    tbb::flow::graph g;
    std::vector<std::unique_ptr<node>> nodes;
    nodes.reserve(static_cast<std::size_t>(steps_ * blocks_));
    for (std::int64_t t = 0; t < steps_; ++t)
      for (std::int64_t b = 0; b < blocks_; ++b) {
        nodes.push_back(std::make_unique<node>(g, [this, t, b](const tbb::flow::continue_msg&) { update(t, b); }));
        if (t == 0) continue;
        for (std::int64_t d = -1; d <= 1; ++d)
          if (b + d >= 0 && b + d < blocks_)
            tbb::flow::make_edge(*nodes[static_cast<std::size_t>((t - 1) * blocks_ + b + d)], *nodes.back());
      }
    for (std::int64_t b = 0; b < blocks_ && steps_ > 0; ++b)
      nodes[static_cast<std::size_t>(b)]->try_put(tbb::flow::continue_msg());
    g.wait_for_all();
  }

  std::int64_t steps_, blocks_, work_;
  std::vector<std::uint64_t> values_, expected_;
};

const bench::registrar graph_overhead{{
    "graph-overhead",
    "NabbitC (seed 004): the task-graph library's cost per node",
    "heat-graph's DAG (node (t, b) after blocks b-1, b, b+1 of step t-1) with `work` hash rounds per node: the "
    "task graph (locus), oneTBB's flow graph (tbb) and the fork-join version with a join per step "
    "(locus:<policy>+static or +affinity, omp). work=0 times the scheduling alone.",
    true,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto steps = p.get("steps", 8, 200, 1000, s, "steps of the DAG", {1, 1 << 20});
      const auto blocks = p.get("blocks", 16, 256, 256, s, "nodes per step", {1, 1 << 20});
      const auto work = p.get("work", 0, 0, 0, s, "hash rounds per node (0: empty nodes)", {0, 1 << 30});
      if (steps * blocks > (std::int64_t{1} << 26))
        throw std::invalid_argument("graph-overhead: steps x blocks = " + std::to_string(steps * blocks) +
                                    " nodes; accepted: at most 2^26");
      return std::make_unique<graph_overhead_instance>(steps, blocks, work);
    }}};

}  // namespace
