// locus-mpi-bench: the hybrid benchmarks heat and cg (README.md) in four
// variants each, every run checked against a serial single-process
// computation of the same problem; results as locus-bench's JSON lines
// (bench/runner: a run record with the provenance, then one record per cell),
// written by rank 0.
//
//   mpirun -np R locus-mpi-bench --bench heat|cg [--variant V[,V...]|all]
//          [--size tiny|small|medium] [--reps N] [--warmup N] [--workers N]
//          [--out FILE.jsonl] [--launch TEXT] [--quiet]
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <locus/locus.hpp>
#include <locus_support/program.hpp>

#include "common/json.hpp"
#include "mpi/cg_mpi.hpp"
#include "mpi/common.hpp"
#include "mpi/heat_mpi.hpp"
#include "runner/provenance.hpp"

namespace {

using namespace mpi_bench;

struct options {
  std::string bench = "heat";
  std::vector<variant> variants;
  std::string size = "small";
  int reps = 5;
  int warmup = 1;
  int workers = 0;  // per rank, for omp and locus; 0: LOCUS_WORKERS, OMP_NUM_THREADS, else cores / ranks on the node
  std::string out;
  std::string launch;  // how the ranks were started, for the run record
  bool quiet = false;
  bool perturb = false;  // spoil every result a little: the check must fail (a test of the check)
};

const char* usage =
    "usage: mpirun -np R locus-mpi-bench [options]\n"
    "  --bench heat|cg        the program (default heat)\n"
    "  --variant LIST         comma-separated: mpi, mpi+omp, mpi+locus-bsp, mpi+locus-tasks, mpi+locus-bsp-aware,\n"
    "                         or all (default all);\n"
    "                         several variants take turns rep by rep\n"
    "  --size tiny|small|medium  problem size (default small)\n"
    "  --reps N               timed runs per variant (default 5); --warmup N untimed first (default 1)\n"
    "  --workers N            threads or locus workers per rank (default: LOCUS_WORKERS, else OMP_NUM_THREADS,\n"
    "                         else the cores divided by the ranks on this node)\n"
    "  --out FILE.jsonl       results, appended to by rank 0 (default: none)\n"
    "  --launch TEXT          how the ranks were started (e.g. the mpirun line), kept in the run record\n"
    "  --quiet                no progress on stderr\n"
    "  --perturb              spoil each result slightly before the check, which must then fail (exit 1):\n"
    "                         a test of the check\n";

int parse_int(const std::string& flag, const std::string& value, int lo) {
  int v = 0;
  std::size_t used = 0;
  try {
    v = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || v < lo)
    throw std::invalid_argument(flag + " " + value + ": expected an integer of at least " + std::to_string(lo));
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + ": needs a value");
      return argv[++i];
    };
    if (a == "--bench") {
      o.bench = value();
      if (o.bench != "heat" && o.bench != "cg") throw std::invalid_argument("--bench " + o.bench + ": expected heat or cg");
    } else if (a == "--variant" || a == "--variants") {
      const std::string list = value();
      o.variants.clear();
      if (list == "all") continue;
      std::stringstream s(list);
      for (std::string name; std::getline(s, name, ',');) o.variants.push_back(parse_variant(name));
    } else if (a == "--size") {
      o.size = value();
      if (o.size != "tiny" && o.size != "small" && o.size != "medium")
        throw std::invalid_argument("--size " + o.size + ": expected tiny, small or medium");
    } else if (a == "--reps") {
      o.reps = parse_int(a, value(), 1);
    } else if (a == "--warmup") {
      o.warmup = parse_int(a, value(), 0);
    } else if (a == "--workers") {
      o.workers = parse_int(a, value(), 1);
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--launch") {
      o.launch = value();
    } else if (a == "--perturb") {
      o.perturb = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else {
      throw std::invalid_argument(a + ": unknown option\n" + usage);
    }
  }
  if (o.variants.empty())
    for (const auto& name : variant_names()) o.variants.push_back(parse_variant(name));
  return o;
}

int workers_per_rank(const options& o) {
  if (o.workers > 0) return o.workers;
  for (const char* var : {"LOCUS_WORKERS", "OMP_NUM_THREADS"})
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return parse_int(var, v, 1);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / local);
}

// The problems' sizes: tiny for the tests, small and medium for measurements
// (README.md: small takes about 0.2 to 2 s per run on 2 cores).
heat_params heat_size(const std::string& size) {
  if (size == "tiny") return {64, 20, 4};
  if (size == "small") return {2048, 100, 8};
  return {4096, 200, 8};
}

cg_params cg_size(const std::string& size) {
  if (size == "tiny") return {48, 60, 256, 0.05};
  if (size == "small") return {512, 400, 1024, 0.05};
  return {1024, 400, 2048, 0.05};
}

std::string params_json(const options& o) {
  json::object p;
  if (o.bench == "heat") {
    const auto h = heat_size(o.size);
    p.add("n", std::to_string(h.n)).add("steps", std::to_string(h.steps)).add("grain", std::to_string(h.grain));
  } else {
    const auto c = cg_size(o.size);
    p.add("m", std::to_string(c.m))
        .add("iterations", std::to_string(c.iterations))
        .add("grain", std::to_string(c.grain))
        .add("shift", std::to_string(c.shift));
  }
  return p.str();
}

std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<std::size_t>(length));
  if (const auto end = v.find_first_of(",\n"); end != std::string::npos) v.resize(end);
  return v;
}

// /proc/loadavg's first three fields: how busy the machine was (other
// programs share the cores; the report shows it beside the times).
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct cell {
  variant v;
  std::vector<double> seconds;
  bool verified = true;
  std::string failure, summary;
  int workers = 1;  // per rank
  // locus::mpi's counters over the timed reps, summed over the ranks
  // (requests waited, waits that suspended a task, polls that tested).
  double requests_waited = 0, tasks_suspended = 0, polls = 0;
};

// The pool of a locus variant, started before its run and stopped after,
// as locus-bench does per cell: no variant runs next to another's spinning
// workers. Workers are not pinned unless LOCUS_PIN says so: ranks started
// without a binding would each pin their worker k to the same core k.
locus::runtime_options pool_options(int workers) {
  locus::runtime_options o;
  o.workers = workers;
  if (const char* pin = std::getenv("LOCUS_PIN"); pin == nullptr || *pin == '\0') o.pin = 0;
  return o;
}

template <class Problem>
int measure(const options& o, Problem& problem, int rank, int ranks) {
  const int threads = workers_per_rank(o);
  const std::string load_at_start = load_average();
  std::vector<cell> cells;
  for (variant v : o.variants) cells.push_back({v, {}, true, "", "", v == variant::mpi ? 1 : threads});
  for (int round = 0; round < o.warmup + o.reps; ++round) {
    const bool timed = round >= o.warmup;
    for (auto& c : cells) {
      if (c.v == variant::omp) omp_set_num_threads(c.workers);
      std::optional<locus::runtime> pool;
      if (uses_locus(c.v)) pool.emplace(pool_options(c.workers));
      problem.prepare();
      // Let the previous variant's threads settle (OpenMP's spin before
      // sleeping, a pool's stop), then start together.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      const auto counters_before = locus::mpi::get_counters();
      const double start = MPI_Wtime();
      problem.run(c.v);
      const double mine = MPI_Wtime() - start;
      const auto counters_after = locus::mpi::get_counters();
      double counted[3] = {static_cast<double>(counters_after.requests_waited - counters_before.requests_waited),
                           static_cast<double>(counters_after.tasks_suspended - counters_before.tasks_suspended),
                           static_cast<double>(counters_after.polls - counters_before.polls)};
      double counted_sum[3] = {0, 0, 0};
      check(MPI_Reduce(counted, counted_sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      if (timed) {
        c.requests_waited += counted_sum[0];
        c.tasks_suspended += counted_sum[1];
        c.polls += counted_sum[2];
      }
      double slowest = 0.0;
      check(MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
      pool.reset();
      if (o.perturb) problem.perturb();
      const std::string why = problem.verify();
      if (rank == 0) {
        if (!why.empty() && c.verified) {
          c.verified = false;
          c.failure = why;
          std::fprintf(stderr, "locus-mpi-bench: %s %s, %d ranks x %d: WRONG RESULT (tolerance: %s): %s\n",
                       o.bench.c_str(), name_of(c.v).c_str(), ranks, c.workers, problem.tolerance().c_str(),
                       why.c_str());
        }
        c.summary = problem.summary();
        if (timed) c.seconds.push_back(slowest);
        if (!o.quiet)
          std::fprintf(stderr, "  %s %-16s round %d/%d%s: %.4f s %s\n", o.bench.c_str(), name_of(c.v).c_str(),
                       round + 1, o.warmup + o.reps, timed ? "" : " (warm-up)", slowest,
                       why.empty() ? "verified" : "WRONG");
      }
    }
  }
  int all_verified = 1;
  if (rank == 0) {
    for (const auto& c : cells) all_verified = all_verified && c.verified;
    std::ofstream out;
    if (!o.out.empty()) {
      const std::filesystem::path file(o.out);
      if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
      out.open(o.out, std::ios::app);
      if (!out) throw std::invalid_argument("--out " + o.out + ": cannot open this file for appending");
    }
    // The run record: locus-bench's provenance, then what this run chose.
    json::object run = bench::provenance();
    std::string names;
    for (const auto& c : cells) names += (names.empty() ? "" : ",") + json::quote(name_of(c.v));
    run.add("size", o.size)
        .add("reps", o.reps)
        .add("warmup", o.warmup)
        .add("engine", "threaded")
        .add("machine", bench::machine_name())
        .add_raw("benchmarks", "[" + json::quote(o.bench + "-mpi") + "]")
        .add_raw("variants", "[" + names + "]")
        .add("suite", "mpi")
        .add("ranks", ranks)
        .add("workers_per_rank", threads)
        .add("mpi_library", mpi_library())
        .add("launch", o.launch.empty() ? std::string("not given") : o.launch)
        .add("load_average", load_at_start + " at the start, " + load_average() + " at the end")
        .add_raw("params", params_json(o));
    if (out.is_open()) out << run.str() << '\n';
    const std::string machine = bench::machine_name();
    for (const auto& c : cells) {
      const double med = median(c.seconds);
      const auto [mn, mx] = std::minmax_element(c.seconds.begin(), c.seconds.end());
      if (!o.quiet)
        std::fprintf(stderr, "%s %-16s %d ranks x %d: median %.4f s (min %.4f, max %.4f) %s%s\n", o.bench.c_str(),
                     name_of(c.v).c_str(), ranks, c.workers, med, *mn, *mx, c.verified ? "verified" : "WRONG",
                     c.v == variant::locus_tasks || c.v == variant::locus_bsp_aware
                         ? (", per rep: " + std::to_string(static_cast<long>(c.requests_waited / o.reps)) +
                            " requests waited, " + std::to_string(static_cast<long>(c.tasks_suspended / o.reps)) +
                            " tasks suspended")
                               .c_str()
                         : "");
      json::object cell_record;
      // locus-bench's cell record; "workers" is the cores' worth of threads
      // in all (ranks x workers_per_rank), "ranks" marks a hybrid cell.
      cell_record.add("benchmark", o.bench + "-mpi")
          .add("variant", name_of(c.v))
          .add("workers", ranks * c.workers)
          .add("ranks", ranks)
          .add("workers_per_rank", c.workers)
          .add("reps", o.reps)
          .add("median_s", med)
          .add("min_s", *mn)
          .add("max_s", *mx)
          .add("verified", c.verified)
          .add("size", o.size)
          .add("engine", "threaded")
          .add("placement", "default")
          .add("machine", machine)
          .add("time", bench::now_iso())
          .add("summary", c.summary)
          .add("uses_loops", true)
          .add("tolerance", problem.tolerance());
      if (c.v == variant::locus_tasks || c.v == variant::locus_bsp_aware)
        // Per rep, summed over the ranks: how often the task-aware waits
        // were used and how often a task really suspended.
        cell_record.add("mpi_requests_waited", c.requests_waited / o.reps)
            .add("mpi_tasks_suspended", c.tasks_suspended / o.reps)
            .add("mpi_polls", c.polls / o.reps);
      if (!c.verified) cell_record.add("failure", c.failure);
      cell_record.add_raw("params", params_json(o));
      if (out.is_open()) out << cell_record.str() << '\n';
    }
  }
  check(MPI_Bcast(&all_verified, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return all_verified ? 0 : 1;
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const options o = parse(argc, argv);
  if (o.bench == "heat") {
    heat_problem problem(heat_size(o.size), rank, ranks);
    return measure(o, problem, rank, ranks);
  }
  cg_problem problem(cg_size(o.size), rank, ranks);
  return measure(o, problem, rank, ranks);
}

}  // namespace

int main(int argc, char** argv) {
  // MPI_THREAD_MULTIPLE: the tasks variant's workers post, test and wait
  // on requests while other workers compute.
  try {
    locus::mpi::init(argc, argv);
  } catch (const locus::mpi::error& e) {
    std::fprintf(stderr, "locus-mpi-bench: %s\n", e.what());
    return 2;
  }
  // A bad option or size is the same on every rank: rank 0 says so and all
  // exit with 2.
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int status = locus_program::run("locus-mpi-bench", [&] {
    try {
      return run(argc, argv);
    } catch (const std::invalid_argument& e) {
      if (rank == 0) throw;
      return 2;
    }
  });
  locus::mpi::finalize();
  return status;
}
