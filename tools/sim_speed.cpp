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
// Then the same sweeps on the memory model alone (no scheduler, no engine):
// each core takes a fixed block of the pages, the cores' accesses
// interleaved page by page, one read and one write access per page as the
// engine issues them. This is the per-line access path by itself; the rows
// above add what the simulated runtime costs around it.
//
//   locus-sim-speed [--machine NAME|FILE] [--workers P] [--mib N]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.hpp>
#include <locus_support/memory_model_sweep.hpp>
#include <locus_support/program.hpp>

namespace {

struct result {
  double accesses = 0;
  double wall_s = 0;
  double cpu_s = 0;
  double simulated_s = 0;
  std::size_t block_bytes = 0;
  double host_mib = 0;  // what the simulator keeps in host memory (below)
};

// The process's resident memory now, from /proc/self/statm (0 where it
// cannot be read).
double resident_mib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return read == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20) : 0;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

result sweep(const std::string& machine, int workers, std::size_t bytes, int passes) {
  // The program's arrays first (written, so resident): what the process
  // holds beyond them at the end is the simulator's (its caches,
  // directory, page map and the runtime).
  std::vector<double> in(bytes / 2 / sizeof(double), 1.0), out(in.size());
  const double resident_before = resident_mib();
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = machine;
  o.workers = workers;
  locus::runtime rt(o);
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
  // The engine's first counters are the accesses by where they were
  // served; after them come the coherence traffic they caused and the
  // accesses beyond the private caches by home, which count no new access.
  r.accesses = 0;
  for (const char* level : {"l1_hits", "l2_hits", "l3_hits", "remote_l3_hits", "local_dram", "remote_dram"})
    r.accesses += static_cast<double>(t.counter(level));
  r.simulated_s = s.elapsed_s;
  r.block_bytes = s.block_bytes;
  r.host_mib = resident_mib() - resident_before;
  return r;
}

result sweep_model(const std::string& machine, int workers, std::size_t bytes, int passes) {
  const double resident_before = resident_mib();
  locus_support::memory_model_sweep model(machine, workers, bytes);
  const double cpu_start = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const double accesses = model.run(passes);
  result r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_s = process_cpu_seconds() - cpu_start;
  r.accesses = accesses;
  r.block_bytes = model.block_bytes();
  r.simulated_s = model.simulated_seconds();
  r.host_mib = resident_mib() - resident_before;
  return r;
}

constexpr const char* usage =
    "usage: locus-sim-speed [--machine NAME|FILE] [--workers P] [--mib N]\n"
    "  defaults: --machine numa-ws-4x8 (or LOCUS_MACHINE), --workers 32 (or LOCUS_WORKERS), --mib 256\n"
    "  (the streaming array's size); exit status 2 for a bad option or setting.\n";

int run(int argc, char** argv) {
  using locus_program::flag_or_env;
  std::optional<std::string> machine_flag, workers_flag;
  std::size_t big_mib = 256;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value (see --help)");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--machine") machine_flag = need(i);
    else if (a == "--workers") workers_flag = need(i);
    else if (a == "--mib")
      big_mib = static_cast<std::size_t>(
          locus_program::parse_integer({a, need(i)}, 1, 1 << 20, "MiB of the array that streams from DRAM"));
    else if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else {
      throw std::invalid_argument("unknown option " + a + " (see --help)");
    }
  }
  // This program always simulates: LOCUS_ENGINE can only agree.
  if (const auto engine = locus_program::from_env("LOCUS_ENGINE"); engine && engine->value != "sim")
    engine->reject("locus-sim-speed always runs the simulator; unset it or set it to sim");
  std::string machine = "numa-ws-4x8";
  if (const auto m = flag_or_env("--machine", machine_flag, "LOCUS_MACHINE")) {
    locus_program::check_machine(*m);
    machine = m->value;
  }
  int workers = 32;
  if (const auto w = flag_or_env("--workers", workers_flag, "LOCUS_WORKERS"))
    workers = static_cast<int>(locus_program::parse_integer(*w, 1, locus_program::max_workers, "the number of workers"));
  std::printf("simulator speed on %s, %d workers; the simulation runs on one thread. accesses/s is per\n"
              "second of this process's CPU time (the machine may be shared), wall_s for reference;\n"
              "host_MiB: what the simulator holds in host memory at the end (resident, beyond the\n"
              "program's own arrays): caches, directory, page homes and, for the whole simulation,\n"
              "the page map and the runtime\n",
              machine.c_str(), workers);
  std::printf("%-22s %6s %12s %8s %8s %12s %12s %9s\n", "workload", "block", "accesses", "wall_s", "cpu_s",
              "simulated_s", "accesses/s", "host_MiB");
  const struct {
    const char* name;
    std::size_t bytes;
    int passes;
  } cases[] = {{"fits in caches (4 MiB)", std::size_t{4} << 20, 20}, {"streams from DRAM", big_mib << 20, 2}};
  const auto print = [](const char* name, const result& r) {
    std::printf("%-22s %6zu %12.0f %8.3f %8.3f %12.6f %12.3e %9.1f\n", name, r.block_bytes, r.accesses, r.wall_s,
                r.cpu_s, r.simulated_s, r.accesses / r.cpu_s, r.host_mib);
  };
  std::printf("the whole simulation (runtime, scheduler, engine, memory model):\n");
  for (const auto& c : cases) print(c.name, sweep(machine, workers, c.bytes, c.passes));
  std::printf("the memory model alone (simulated_s: the busiest core's cycles):\n");
  for (const auto& c : cases) print(c.name, sweep_model(machine, workers, c.bytes, c.passes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return locus_program::run("locus-sim-speed", [&] { return run(argc, argv); });
}
