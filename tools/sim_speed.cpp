// locus-sim-speed: how fast the simulator runs, in simulated line accesses
// per second of wall-clock time on one core.
//
// A streaming workload on the simulated machine: P workers sweep an array
// with parallel_for, each chunk declaring a read of its input and a write of
// its output (locus::touch), for several passes; the simulator's
// memory-access counters give the number of line accesses, a steady clock
// the wall time. Two array sizes: one that fits the machine's caches (hits)
// and one that does not (misses to DRAM, the slower path of the model).
//
//   locus-sim-speed [--machine NAME] [--workers P] [--mib N]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "locus/locus.hpp"

namespace {

struct result {
  double accesses = 0;
  double wall_s = 0;
  double cpu_s = 0;
  double simulated_s = 0;
  std::size_t block_bytes = 0;
};

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

result sweep(const std::string& machine, int workers, std::size_t bytes, int passes) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = machine;
  o.workers = workers;
  locus::runtime rt(o);
  std::vector<double> in(bytes / 2 / sizeof(double), 1.0), out(in.size());
  const std::int64_t chunk = 4096 / sizeof(double);  // one page per chunk
  locus::reset_stats();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  for (int pass = 0; pass < passes; ++pass)
    locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(in.size()), chunk,
                        [&](std::int64_t lo, std::int64_t hi) {
                          const auto n = static_cast<std::size_t>(hi - lo);
                          locus::touch(&in[static_cast<std::size_t>(lo)], n * sizeof(double));
                          locus::touch(&out[static_cast<std::size_t>(lo)], n * sizeof(double), locus::access::write);
                          for (std::int64_t i = lo; i < hi; ++i)
                            out[static_cast<std::size_t>(i)] = in[static_cast<std::size_t>(i)] * 2;
                        });
  result r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_s = process_cpu_seconds() - cpu_start;
  const auto s = locus::get_stats();
  const auto t = s.total();
  r.accesses = 0;
  for (const auto& c : t.engine_counters) r.accesses += static_cast<double>(c.value);
  r.simulated_s = s.elapsed_s;
  r.block_bytes = s.block_bytes;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string machine = "numa-ws-4x8";
  int workers = 32;
  std::size_t big_mib = 256;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--machine" && i + 1 < argc) machine = argv[++i];
    else if (a == "--workers" && i + 1 < argc) workers = std::atoi(argv[++i]);
    else if (a == "--mib" && i + 1 < argc) big_mib = static_cast<std::size_t>(std::atoll(argv[++i]));
    else {
      std::fprintf(stderr, "usage: locus-sim-speed [--machine NAME] [--workers P] [--mib N]\n");
      return 2;
    }
  }
  try {
    std::printf("simulator speed on %s, %d workers; the simulation runs on one thread. accesses/s is per\n"
                "second of this process's CPU time (the machine may be shared), wall_s for reference\n",
                machine.c_str(), workers);
    std::printf("%-22s %6s %12s %8s %8s %12s %12s\n", "workload", "block", "accesses", "wall_s", "cpu_s",
                "simulated_s", "accesses/s");
    const struct {
      const char* name;
      std::size_t bytes;
      int passes;
    } cases[] = {{"fits in caches (4 MiB)", std::size_t{4} << 20, 20}, {"streams from DRAM", big_mib << 20, 2}};
    for (const auto& c : cases) {
      const result r = sweep(machine, workers, c.bytes, c.passes);
      std::printf("%-22s %6zu %12.0f %8.3f %8.3f %12.6f %12.3e\n", c.name, r.block_bytes, r.accesses, r.wall_s,
                  r.cpu_s, r.simulated_s, r.accesses / r.cpu_s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus-sim-speed: %s\n", e.what());
    return 2;
  }
}
