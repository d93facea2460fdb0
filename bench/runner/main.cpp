// locus-bench: runs benchmarks x implementations x worker counts and writes
// one JSON object per measured cell to a results file (see --help).
//
// Measurements are interleaved: each round runs every cell of a benchmark
// once, so a drift of a shared machine hits every variant alike; the first
// `--warmup` rounds are not timed. Every run, timed or not, is verified
// against the serial result; a mismatch is reported and makes the exit code 1.
#include <omp.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/harness.hpp"
#include "common/json.hpp"
#include "common/places.hpp"

namespace bench {
void use_deterministic_heap();
}

namespace {

struct options {
  std::vector<std::string> benchmarks;  // empty: all
  std::vector<std::string> variants;    // empty: all that apply
  std::vector<int> workers;
  int reps = 5;
  int warmup = 1;
  bench::size_class size = bench::size_class::quick;
  std::map<std::string, std::string> params;
  std::string out = "results/bench.jsonl";
  bool quiet = false;
  bool simulate = false;          // --engine sim
  std::string machine = "host";   // --machine, with --engine sim
  std::string places;             // --places: LOCUS_PLACES for the locus variants
  bool pack = false;              // --pack: LOCUS_PACK=1 for the locus variants
  bool reps_given = false, warmup_given = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void usage() {
  std::string policies;
  for (const auto& p : locus::available_policies()) policies += (policies.empty() ? "" : ", ") + p;
  const std::string text =
      std::string("usage: locus-bench [options]\n"
      "  --benchmarks a,b,...  benchmarks to run (default: all)\n"
      "  --variants v,w,...    implementations (default: all that apply)\n"
      "  --workers 1,2,...     worker counts (default: 1 up to the number of cores)\n"
      "  --reps N              timed runs per cell (default 5); --warmup N untimed rounds first (default 1)\n"
      "  --size tiny|quick|full  input sizes (default quick); --full is --size full\n"
      "  --param key=value     override a benchmark parameter (repeatable)\n"
      "  --out FILE.jsonl      results file, appended to (default results/bench.jsonl)\n"
      "  --quiet               no progress lines\n"
      "  --list                list benchmarks and their parameters\n"
      "  --engine threaded|sim run on this machine's threads (default) or on the simulator\n"
      "  --machine NAME|FILE   the simulated machine (with --engine sim; default host)\n"
      "  --list-machines       list the simulator's machine presets\n"
      "  --places KIND         places of the locus variants (numa, socket, l3, l2, core; LOCUS_PLACES)\n"
      "  --pack                workers on the fewest places that hold them (LOCUS_PACK=1)\n"
      "  With --engine sim: variants serial and locus:<policy> only; times are simulated;\n"
      "  default --workers 1 and the machine's cores, --reps 1, --warmup 0 (runs repeat exactly)\n"
      "\nvariants: serial, locus:<policy> (policies: ") +
      policies +
      "), tbb, tbb:affinity, omp:static, omp:dynamic, omp:guided\n"
      "  (tbb:affinity and the OpenMP schedules other than static only differ for benchmarks with loops)\n";
  std::fputs(text.c_str(), stdout);
  std::puts("benchmarks:");
  for (const auto& b : bench::registry())
    std::printf("  %-12s %s\n  %-12s   from %s\n", b.name.c_str(), b.description.c_str(), "", b.source.c_str());
}

locus::runtime_options simulated(const std::string& machine, int workers, const std::string& policy) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = machine;
  o.workers = workers;
  o.policy = policy;
  return o;
}

// The simulated machine's core count (starting a pool on it checks the name).
int simulated_cores(const std::string& machine) {
  locus::runtime probe(simulated(machine, 0, ""));
  return locus::num_workers();
}

options parse(int argc, char** argv) {
  options o;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto positive = [](const std::string& flag, const std::string& v) {
    const int n = std::atoi(v.c_str());
    if (n < 0 || std::to_string(n) != v) throw std::invalid_argument(flag + " " + v + ": expected a whole number");
    return n;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--benchmarks") o.benchmarks = split(need(i));
    else if (a == "--variants") o.variants = split(need(i));
    else if (a == "--workers") {
      for (const auto& w : split(need(i))) {
        const int n = positive("--workers", w);
        if (n < 1) throw std::invalid_argument("--workers " + w + ": expected counts of at least 1");
        o.workers.push_back(n);
      }
    } else if (a == "--reps") {
      o.reps = positive("--reps", need(i));
      if (o.reps < 1) throw std::invalid_argument("--reps must be at least 1");
      o.reps_given = true;
    } else if (a == "--warmup") {
      o.warmup = positive("--warmup", need(i));
      o.warmup_given = true;
    }
    else if (a == "--size") {
      const std::string s = need(i);
      if (s == "tiny") o.size = bench::size_class::tiny;
      else if (s == "quick") o.size = bench::size_class::quick;
      else if (s == "full") o.size = bench::size_class::full;
      else throw std::invalid_argument("--size " + s + ": accepted are tiny, quick, full");
    } else if (a == "--full") o.size = bench::size_class::full;
    else if (a == "--param") {
      const std::string kv = need(i);
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--param " + kv + ": expected key=value");
      o.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    } else if (a == "--out") o.out = need(i);
    else if (a == "--engine") {
      const std::string e = need(i);
      if (e != "threaded" && e != "sim") throw std::invalid_argument("--engine " + e + ": accepted are threaded, sim");
      o.simulate = e == "sim";
    } else if (a == "--machine") o.machine = need(i);
    else if (a == "--places") o.places = need(i);
    else if (a == "--pack") o.pack = true;
    else if (a == "--list-machines") {
      for (const auto& m : locus::available_machines()) std::printf("%-24s %s\n", m.name.c_str(), m.summary.c_str());
      std::exit(0);
    }
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--list") {
      // Building a tiny instance is how a benchmark declares its parameters.
      for (auto& b : bench::registry()) {
        std::printf("%s%s\n", b.name.c_str(), b.uses_loops ? " (loops)" : "");
        bench::params declared;
        b.make(bench::size_class::tiny, declared);
        for (const auto& [k, meaning] : declared.meanings()) std::printf("  %-12s %s\n", k.c_str(), meaning.c_str());
      }
      std::exit(0);
    } else throw std::invalid_argument("unknown option " + a + " (see --help)");
  }
  if (o.simulate) {
    // A simulated run repeats exactly: one timed run, no warm-up.
    if (!o.reps_given) o.reps = 1;
    if (!o.warmup_given) o.warmup = 0;
    if (o.workers.empty()) o.workers = {1, simulated_cores(o.machine)};
  } else if (o.machine != "host") {
    throw std::invalid_argument("--machine " + o.machine + " needs --engine sim");
  }
  if (o.workers.empty())
    for (unsigned p = 1; p <= std::max(1u, std::thread::hardware_concurrency()); ++p) o.workers.push_back(static_cast<int>(p));
  return o;
}

// The variants that apply to a benchmark when none were named: for a
// benchmark without loops, partitioners and schedules make no difference.
std::vector<bench::variant> default_variants(const bench::benchmark& b, bool simulate) {
  std::vector<std::string> names = {"serial"};
  for (const auto& p : locus::available_policies()) names.push_back("locus:" + p);
  if (simulate) {  // oneTBB and OpenMP run on real threads only
    std::vector<bench::variant> out;
    for (const auto& n : names) out.push_back(bench::parse_variant(n));
    return out;
  }
  names.push_back("tbb");
  if (b.uses_loops) names.push_back("tbb:affinity");
  names.push_back("omp:static");
  if (b.uses_loops) {
    names.push_back("omp:dynamic");
    names.push_back("omp:guided");
  }
  std::vector<bench::variant> out;
  for (const auto& n : names) out.push_back(bench::parse_variant(n));
  return out;
}

// Sets up an implementation for one run and runs a function inside it.
// Under the simulator the serial variant runs as one task on one simulated
// worker, so that its time is simulated too.
class environment {
 public:
  environment(const bench::variant& v, int workers, const options& opt) : v_(v), simulate_(opt.simulate) {
    switch (v.kind) {
      case bench::impl::serial:
        if (simulate_) locus_ = std::make_unique<locus::runtime>(simulated(opt.machine, 1, ""));
        break;
      case bench::impl::locus: {
        locus::runtime_options o = simulate_ ? simulated(opt.machine, workers, v.policy) : locus::runtime_options{};
        o.workers = workers;
        o.policy = v.policy;
        if (!opt.places.empty()) o.places = opt.places;
        if (opt.pack) o.pack = 1;
        locus_ = std::make_unique<locus::runtime>(o);
        bench::g_place_data = true;  // prepare() moves block p of the data to place p
        break;
      }
      case bench::impl::tbb:
        control_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<std::size_t>(workers));
        arena_ = std::make_unique<tbb::task_arena>(workers);
        bench::tbb_backend::affinity = v.tbb_affinity;
        break;
      case bench::impl::omp:
        omp_set_dynamic(0);
        omp_set_num_threads(workers);
        omp_set_schedule(v.schedule == bench::omp_schedule::static_schedule    ? omp_sched_static
                         : v.schedule == bench::omp_schedule::dynamic_schedule ? omp_sched_dynamic
                                                                                : omp_sched_guided,
                         v.schedule == bench::omp_schedule::static_schedule ? 0 : 1);
        break;
    }
  }
  ~environment() { bench::g_place_data = false; }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  template <class Fn>
  void run(Fn&& fn) {
    if (arena_) arena_->execute(fn);
    else if (simulate_ && v_.kind == bench::impl::serial) locus::fork_join(fn, [] {});
    else fn();
  }

 private:
  bench::variant v_;
  bool simulate_;
  std::unique_ptr<locus::runtime> locus_;
  std::unique_ptr<tbb::global_control> control_;
  std::unique_ptr<tbb::task_arena> arena_;
};

struct cell {
  bench::variant v;
  int workers;
  std::vector<double> seconds;
  bool verified = true;
  std::string failure;
  std::string summary;
  locus::worker_stats counters;  // summed over timed runs (locus only)
  std::size_t block_bytes = 0;   // the simulator's unit of memory access
};

std::string machine_name() {
  char host[256] = "?";
  gethostname(host, sizeof host);
  std::string cpu = "?";
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return std::string(host) + " (" + std::to_string(std::thread::hardware_concurrency()) + " cpus, " + cpu + ")";
}

std::string now_iso() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  try {
    opt = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus-bench: %s\n", e.what());
    return 2;
  }
  if (opt.simulate) bench::use_deterministic_heap();  // large_blocks.cpp

  // Resolve benchmarks and variants before running anything.
  std::vector<const bench::benchmark*> chosen;
  for (const auto& b : bench::registry())
    if (opt.benchmarks.empty() || std::find(opt.benchmarks.begin(), opt.benchmarks.end(), b.name) != opt.benchmarks.end())
      chosen.push_back(&b);
  for (const auto& name : opt.benchmarks)
    if (std::none_of(chosen.begin(), chosen.end(), [&](const auto* b) { return b->name == name; })) {
      std::string known;
      for (const auto& b : bench::registry()) known += " " + b.name;
      std::fprintf(stderr, "locus-bench: unknown benchmark \"%s\"; known:%s\n", name.c_str(), known.c_str());
      return 2;
    }
  std::vector<bench::variant> named;
  try {
    for (const auto& v : opt.variants) named.push_back(bench::parse_variant(v));
    for (const auto& v : named) {
      if (opt.simulate && v.kind != bench::impl::locus && v.kind != bench::impl::serial)
        throw std::invalid_argument("variant \"" + v.name + "\": the simulator runs serial and locus:<policy> only");
      if (v.kind != bench::impl::locus) continue;
      const auto policies = locus::available_policies();
      if (std::find(policies.begin(), policies.end(), v.policy) == policies.end()) {
        std::string accepted;
        for (const auto& p : policies) accepted += " locus:" + p;
        throw std::invalid_argument("variant \"" + v.name + "\": unknown locus policy; accepted:" + accepted);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus-bench: %s\n", e.what());
    return 2;
  }

  if (const auto slash = opt.out.rfind('/'); slash != std::string::npos)
    std::system(("mkdir -p '" + opt.out.substr(0, slash) + "'").c_str());
  std::ofstream out(opt.out, std::ios::app);
  if (!out) {
    std::fprintf(stderr, "locus-bench: cannot write %s\n", opt.out.c_str());
    return 2;
  }
  const std::string machine = machine_name();
  bool all_verified = true;
  std::size_t done_cells = 0, total_cells = 0;
  for (const auto* b : chosen) {
    const auto vs = named.empty() ? default_variants(*b, opt.simulate) : named;
    for (const auto& v : vs) total_cells += v.kind == bench::impl::serial ? 1 : opt.workers.size();
  }

  for (const auto* b : chosen) {
    bench::params p(opt.params);
    std::unique_ptr<bench::instance> inst;
    try {
      inst = b->make(opt.size, p);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "locus-bench: %s: %s\n", b->name.c_str(), e.what());
      return 2;
    }
    std::vector<cell> cells;
    for (const auto& v : named.empty() ? default_variants(*b, opt.simulate) : named) {
      if (v.kind == bench::impl::serial) cells.push_back({v, 1, {}});
      else
        for (int w : opt.workers) cells.push_back({v, w, {}});
    }
    if (!opt.quiet)
      std::fprintf(stderr, "%s (%s): %zu cells x %d rounds\n", b->name.c_str(), bench::to_string(opt.size),
                   cells.size(), opt.warmup + opt.reps);
    for (int round = 0; round < opt.warmup + opt.reps; ++round) {
      const bool timed = round >= opt.warmup;
      for (auto& c : cells) {
        environment env(c.v, c.workers, opt);
        const bool counted = c.v.kind == bench::impl::locus || opt.simulate;
        // Under the simulator, let the new pool settle (every worker asleep)
        // before this thread allocates again: the heap then sees the same
        // sequence of allocations every run.
        if (opt.simulate) locus::reset_stats();
        inst->prepare();
        if (counted) locus::reset_stats();
        const auto start = std::chrono::steady_clock::now();
        env.run([&] { inst->run(c.v); });
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (counted) {
          const auto stats = locus::get_stats();
          if (opt.simulate) {
            s = stats.elapsed_s;  // the simulated T_P
            c.block_bytes = stats.block_bytes;
          }
          if (timed) c.counters += stats.total();
        }
        const std::string why = inst->verify();
        if (!why.empty() && c.verified) {
          c.verified = false;
          c.failure = why;
          std::fprintf(stderr, "locus-bench: %s %s P=%d: WRONG RESULT: %s\n", b->name.c_str(), c.v.name.c_str(),
                       c.workers, why.c_str());
        }
        c.summary = inst->summary();
        if (timed) c.seconds.push_back(s);
      }
      if (!opt.quiet)
        std::fprintf(stderr, "  round %d/%d done (%s)\n", round + 1, opt.warmup + opt.reps,
                     timed ? "timed" : "warm-up");
    }
    for (auto& c : cells) {
      all_verified = all_verified && c.verified;
      const double med = median(c.seconds);
      const auto [mn, mx] = std::minmax_element(c.seconds.begin(), c.seconds.end());
      ++done_cells;
      if (!opt.quiet)
        std::fprintf(stderr, "  [%zu/%zu] %-12s %-13s P=%-2d median %.4f s (min %.4f, max %.4f) %s\n", done_cells,
                     total_cells, b->name.c_str(), c.v.name.c_str(), c.workers, med, *mn, *mx,
                     c.verified ? "verified" : "WRONG");
      json::object o;
      o.add("benchmark", b->name)
          .add("variant", c.v.name)
          .add("workers", c.workers)
          .add("reps", opt.reps)
          .add("median_s", med)
          .add("min_s", *mn)
          .add("max_s", *mx)
          .add("verified", c.verified)
          .add("size", bench::to_string(opt.size))
          .add("engine", opt.simulate ? "sim" : "threaded")
          .add("placement", (opt.places.empty() ? std::string("default") : opt.places) + (opt.pack ? ", packed" : ""))
          .add("machine", opt.simulate ? opt.machine : machine)
          .add("time", now_iso())
          .add("summary", c.summary)
          .add("uses_loops", b->uses_loops);
      if (!c.verified) o.add("failure", c.failure);
      json::object params;
      for (const auto& [k, v] : p.used()) params.add(k, v);
      o.add_raw("params", params.str());
      const double n = static_cast<double>(c.seconds.size());
      if (c.v.kind == bench::impl::locus || opt.simulate) {
        o.add("work_s", c.counters.work_s / n)
            .add("sched_s", c.counters.sched_s / n)
            .add("idle_s", c.counters.idle_s / n)
            .add("spawns", static_cast<double>(c.counters.spawns) / n)
            .add("steals", static_cast<double>(c.counters.steals) / n)
            .add("steal_attempts", static_cast<double>(c.counters.steal_attempts) / n);
        // The policy's own counters, under the names its registry entry gives.
        for (const auto& pc : c.counters.policy_counters) o.add(pc.name, static_cast<double>(pc.value) / n);
      }
      if (opt.simulate) {
        // The engine's counters: cache blocks by where the memory model
        // served them, under the simulator's names (l1_hits, ...).
        json::object accesses;
        for (const auto& ec : c.counters.engine_counters) accesses.add(ec.name, static_cast<double>(ec.value) / n);
        o.add_raw("accesses", accesses.str());
        o.add("block_bytes", static_cast<double>(c.block_bytes));
      }
      out << o.str() << '\n';
    }
    for (const auto& k : p.unused())
      std::fprintf(stderr, "locus-bench: warning: --param %s is not a parameter of %s\n", k.c_str(), b->name.c_str());
  }
  if (!opt.quiet) std::fprintf(stderr, "results appended to %s\n", opt.out.c_str());
  return all_verified ? 0 : 1;
}
