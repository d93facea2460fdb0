// What one run of each benchmark costs at its quick size, for the estimate
// of the time left (progress.hpp): seconds per run (prepare, run, verify;
// the mean over every variant that applies at 1 and 2 workers) and seconds
// to build its inputs. Measured with one round of every cell
// (locus-bench --suite all --reps 1 --warmup 0, the "benchmark" records of
// its results; 14:16 in all) on 2 AMD EPYC cores (KVM guest, family 25
// model 17) while other builds kept the machine loaded (load average 3 to
// 7): a quiet machine is faster, and the estimate scales the hints by how
// the benchmarks done so far compared with them. Remeasure when a
// benchmark's quick size changes.
#include "runner/progress.hpp"

namespace bench {

const std::map<std::string, cost_hint>& cost_hints() {
  static const std::map<std::string, cost_hint> hints = {
      {"arena", {0.00964, 3.37e-05}},  // 20,000 entries (2026-12-07, quiet host)
      {"cats-heat", {0.145, 0.112}},
      {"cats-heat-ub", {0.206, 0.0844}},
      {"cg", {1.74, 1.98}},
      {"cg-graph", {0.874, 1.19}},
      {"cilksort", {0.237, 0.337}},
      {"dtree", {0.501, 0.828}},
      {"enqueue", {0.0215, 6.93e-05}},
      {"fdtd-graph", {0.444, 0.678}},
      {"ferret", {0.766, 1.58}},
      {"fft", {0.174, 0.448}},
      {"fib", {0.0937, 0.00314}},
      {"fib-cutoff", {0.0497, 0.0637}},
      {"fluidanimate", {0.283, 0.391}},
      {"ga", {0.113, 0.145}},
      {"ge", {0.126, 0.0879}},
      {"ge-ub", {0.121, 0.0973}},
      {"graph-overhead", {0.0355, 0.000112}},
      {"heat", {1.45, 1.45}},
      {"heat-graph", {1.46, 1.24}},
      {"heat-l2", {0.698, 0.31}},
      {"hull1", {0.296, 0.65}},
      {"hull2", {0.446, 0.511}},
      {"kdtree", {0.657, 2.71}},
      {"knapsack", {0.549, 0.000468}},
      {"life-graph", {1.77, 2.01}},
      {"mandelbrot", {0.508, 0.0948}},
      {"matmul", {0.372, 0.912}},
      {"matmul-z", {0.291, 0.482}},
      {"mg-graph", {0.221, 0.226}},
      {"pagerank-graph", {0.66, 8.63}},
      {"pipeline", {0.057, 0.000229}},
      {"queens", {0.154, 0.0663}},
      {"quicksort", {0.795, 0.691}},
      {"rrm", {0.24, 0.444}},
      {"sor", {0.531, 0.0564}},
      {"sor-ub", {0.564, 0.0567}},
      {"sph", {1.61, 1.98}},
      {"strassen", {0.25, 0.773}},
      {"strassen-z", {0.238, 0.675}},
      {"streamcluster", {0.96, 0.798}},
      {"sw-graph", {0.957, 1.84}},
      {"sw3-graph", {1.54, 2.22}},
  };
  return hints;
}

}  // namespace bench
