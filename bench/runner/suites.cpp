#include "runner/suites.hpp"

namespace bench {

// "first": a newcomer's first run (make run). It answers two questions:
// what locus gives against oneTBB and OpenMP (locus:ws, tbb, omp:static
// against serial on every benchmark), and what each policy changes (each
// policy once or twice, on the benchmarks its paper measured: the hints,
// colors or work hints it reads are there). One program of each kind:
// recursive fork-join, loops, NUMA-hinted divide and conquer, work-hinted
// recursion, a task graph, a pipeline, tasks per partition. Workers 1 and
// the number of cores, 1 warm-up and 3 timed rounds (the rounds are what
// make the medians worth reading on a shared machine; fewer cells, not
// fewer rounds, keep it short). Chosen by measured cost: its four rounds
// took 2:39 on 2 loaded AMD EPYC cores (make run: 3:10 with the demo);
// cg keeps 5 of its variants (a run takes 1.2 s), and the pipeline drops
// OpenMP's ordered loop, whose run at 2 workers took 0.3 s in one round
// and 11.5 s in another there: under load its cost is anyone's guess
// (make bench-all has it).
//
// "all": every benchmark x every variant that applies x 1..cores workers
// (make bench-all).
const std::vector<suite>& suites() {
  static const std::vector<suite> all = {
      {"first",
       "a first look (make run): 10 benchmarks, locus:ws, oneTBB, OpenMP and each policy where it acts, "
       "workers 1 and all cores",
       {
           // Recursive fork-join without a cut-off: the cost of a spawn.
           {"fib", {"serial", "locus:ws", "tbb", "omp:static"}},
           // Recursive divide and conquer with NUMA-WS's place hints.
           {"cilksort", {"serial", "locus:ws", "locus:numa-ws", "tbb", "omp:static"}},
           {"matmul-z", {"serial", "locus:ws", "locus:numa-ws", "tbb", "omp:static"}},
           // Loops: partitioners, schedules and loop affinity.
           {"heat-l2", {"serial", "locus:ws", "locus:ws+affinity", "tbb", "tbb:affinity", "omp:static",
                        "omp:dynamic"}},
           // Work-hinted recursion: ADWS and the multi-level schedulers.
           {"kdtree", {"serial", "locus:ws", "locus:adws", "locus:ml-adws", "locus:ml-ws", "locus:sb", "tbb",
                       "omp:static"}},
           // CATS's benchmark: cache-aware subtrees.
           {"cats-heat", {"serial", "locus:ws", "locus:cats", "tbb", "omp:static"}},
           // A task graph: Nabbit (ws) and NabbitC's colors, against the
           // loop version under oneTBB and OpenMP.
           {"heat-graph", {"serial", "locus:ws", "locus:nabbitc", "tbb", "omp:static"}},
           // Tasks per partition with TBB-NUMA's affinities (NACS).
           {"streamcluster", {"serial", "locus:ws", "locus:tbb-numa", "locus:tbb-numa+nacs", "tbb", "omp:static"}},
           // Sparse loops and reductions (NUMA-WS's and TBB-NUMA's cg), with
           // TBB-NUMA's block distribution of the loops over the places.
           {"cg", {"serial", "locus:ws", "locus:tbb-numa+nacs", "tbb", "omp:static"}},
           // A serial-parallel-serial pipeline: locus::pipeline against
           // tbb::parallel_pipeline.
           {"pipeline", {"serial", "locus:ws", "tbb"}},
       },
       true, 3, 1},
      // "overheads": what each construct costs against oneTBB's, measured in
      // one run (issue 44; make bench-overheads): entering an arena from a
      // thread and from a task, task_group::enqueue, pipeline items, and a
      // fork through fork_join (fib) and through task_group::spawn
      // (fib-spawn), under ws and tbb-numa. The report's "Overheads against
      // oneTBB" table divides each locus median by oneTBB's.
      {"overheads",
       "each construct's cost against oneTBB's (make bench-overheads): arena entry, enqueue, pipeline, "
       "fork_join and spawn under ws and tbb-numa",
       {
           {"arena", {"locus:ws", "locus:tbb-numa", "tbb"}},
           {"arena-from-task", {"locus:ws", "locus:tbb-numa", "tbb"}},
           {"enqueue", {"locus:ws", "locus:tbb-numa", "tbb"}},
           {"pipeline", {"locus:ws", "locus:tbb-numa", "tbb"}},
           {"fib", {"serial", "locus:ws", "locus:tbb-numa", "tbb"}},
           {"fib-spawn", {"serial", "locus:ws", "locus:tbb-numa", "tbb"}},
       },
       true, 5, 1},
      {"all", "every benchmark x every variant that applies x workers 1, 2, ..., cores (make bench-all)", {}, false,
       5, 1},
  };
  return all;
}

const suite* find_suite(const std::string& name) {
  for (const auto& s : suites())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace bench
