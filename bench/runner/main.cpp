// locus-bench: runs benchmarks x implementations x worker counts and writes
// one JSON object per measured cell to a results file (see --help), after
// one "run" record that says where the results come from (provenance.hpp).
//
// Measurements are interleaved: each round runs every cell of a benchmark
// once, so a drift of a shared machine hits every variant alike; the first
// `--warmup` rounds are not timed. Every run, timed or not, is verified
// against the serial result; a mismatch is reported and makes the exit code 1.
//
// Everything the command line and the LOCUS_* settings say is checked before
// anything runs; a usage or configuration error is one line on stderr and
// exit status 2 (locus_support/program.hpp).
#include <omp.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <locus_support/program.hpp>
#include <locus_support/settings.hpp>

#include "common/contender.hpp"
#include "common/harness.hpp"
#include "common/json.hpp"
#include "common/places.hpp"
#include "runner/provenance.hpp"

namespace bench {
void use_deterministic_heap();
}

// Named selections (--suite) and the progress lines' estimate of the time
// left (kept out of the include block above).
#include "runner/progress.hpp"
#include "runner/suites.hpp"

namespace {

using locus_program::setting;

struct options {
  std::vector<std::string> benchmarks;  // empty: all
  std::vector<bench::variant> variants; // empty: all that apply
  std::vector<int> workers;
  int reps = 5;
  int warmup = 1;
  bench::size_class size = bench::size_class::quick;
  std::map<std::string, std::string> params;
  std::string out = "results/bench.jsonl";
  bool quiet = false;
  bool simulate = false;          // --engine sim or LOCUS_ENGINE=sim
  std::string machine = "host";   // --machine or LOCUS_MACHINE, with the simulator
  std::string places;             // --places or LOCUS_PLACES, for the locus variants
  bool pack = false;              // --pack or LOCUS_PACK=1, for the locus variants
  std::string policy;             // LOCUS_POLICY: the one locus policy run by default
  std::string trace_dir;          // --trace: a Chrome trace of each locus cell's last timed run
  bool reps_given = false, warmup_given = false;
  bool workers_given = false;     // --workers or LOCUS_WORKERS
  std::string suite;              // --suite: a named selection (suites.hpp)
  std::map<std::string, std::vector<bench::variant>> suite_variants;  // its variants per benchmark
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

void usage() {
  const std::string text =
      std::string("usage: locus-bench [options]\n"
      "  --suite NAME          a named selection of benchmarks, variants, workers and rounds (below);\n"
      "                        --benchmarks and --variants narrow it; --workers, --reps, --warmup override it\n"
      "  --benchmarks a,b,...  benchmarks to run (default: all)\n"
      "  --variants v,w,...    implementations (default: all that apply)\n"
      "  --workers 1,2,...     worker counts (default: 1 up to the number of cores)\n"
      "  --reps N              timed runs per cell (default 5); --warmup N untimed rounds first (default 1)\n"
      "  --size tiny|quick|full  input sizes (default quick); --full is --size full\n"
      "  --param key=value     override a benchmark parameter (repeatable; --list shows them and their ranges)\n"
      "  --out FILE.jsonl      results file, appended to (default results/bench.jsonl); its directory is created;\n"
      "                        %r in FILE is the MPI rank\n"
      "  --quiet               no progress lines\n"
      "  --list                list benchmarks and their parameters\n"
      "  --engine threaded|sim run on this machine's threads (default) or on the simulator\n"
      "  --machine NAME|FILE   the simulated machine (with --engine sim; default host)\n"
      "  --list-machines       list the simulator's machine presets\n"
      "  --places KIND         places of the locus variants (numa, socket, l3, l2, core)\n"
      "  --pack                workers on the fewest places that hold them\n"
      "  --trace DIR           write a trace (docs/observability.md) of each locus cell's last timed\n"
      "                        run to DIR/<benchmark>_<variant>_P<workers>.json; created if needed\n"
      "  With --engine sim: variants serial and locus:<policy> only; times are simulated;\n"
      "  default --workers 1 and the machine's cores, --reps 1, --warmup 0 (runs repeat exactly)\n"
      "\nSettings: LOCUS_WORKERS (one count), LOCUS_ENGINE, LOCUS_MACHINE, LOCUS_PLACES and LOCUS_PACK\n"
      "stand for --workers, --engine, --machine, --places and --pack when the flag is not given;\n"
      "LOCUS_POLICY=p runs locus:p as the only locus variant. A flag and its variable that disagree\n"
      "are an error. Every other LOCUS_* setting applies to the locus variants as documented in\n"
      "docs/configuration.md; all are checked before anything runs, and the run record of the\n"
      "results lists them.\n"
      "Exit status: 0, 1 if a result was wrong, 2 for a bad option or setting.\n"
      "\nvariants: serial, locus:<policy> (policies: ") +
      join(locus::available_policies(), ", ") +
      "), locus:<policy>+affinity, locus:<policy>+static, locus:<policy>+nacs, locus:<policy>+noap,\n"
      "  locus:<policy>+ap, tbb, tbb:affinity, omp:static, omp:dynamic, omp:guided (+nacs: loops with a\n"
      "  block distribution of their range over the places, TBB-NUMA's NACS; +noap and +ap: no place\n"
      "  hints, plain loops or a loop_affinity, TBB-NUMA's standard-TBB configurations; the loop\n"
      "  modifiers, tbb:affinity and the OpenMP schedules other than static only\n"
      "  differ for benchmarks with loops); a locus variant's data: block p at place p, or with\n"
      "  +interleave (pages round-robin over the places), +first-touch (left where first written) or\n"
      "  +serial-init (all at place 0, where a serial initialization leaves them under first touch),\n"
      "  e.g. locus:ws+first-touch, locus:ws+affinity+interleave; then, for the task-graph\n"
      "  benchmarks, +bad-colors (valid colors of another place) or +invalid-colors (no worker's);\n"
      "  on a task-graph benchmark a loop modifier runs the loop version on locus, not the graph;\n"
      "  last, +contender runs the kernel beside a contender computation in a second arena (TBB-NUMA 5.3)\n";
  std::fputs(text.c_str(), stdout);
  std::puts("\nsuites (--suite NAME):");
  for (const auto& s : bench::suites()) {
    std::printf("  %-12s %s\n", s.name.c_str(), s.summary.c_str());
    for (const auto& e : s.entries) {
      std::string vs;
      for (const auto& v : e.variants) vs += (vs.empty() ? "" : ", ") + v;
      std::printf("  %-12s   %-14s %s\n", "", e.benchmark.c_str(), vs.c_str());
    }
    if (!s.entries.empty())
      std::printf("  %-12s   workers 1 and the number of cores, %d warm-up + %d timed rounds\n", "", s.warmup,
                  s.reps);
  }
  std::puts("\nbenchmarks:");
  for (const auto& b : bench::registry())
    std::printf("  %-12s %s\n  %-12s   from %s\n", b.name.c_str(), b.description.c_str(), "", b.source.c_str());
}

// Building a tiny instance is how a benchmark declares its parameters.
bench::params declared_params(const bench::benchmark& b) {
  bench::params declared;
  b.make(bench::size_class::tiny, declared);
  return declared;
}

// The options of the locus runtime for one cell. Under the simulator the
// serial variant runs as one task on one simulated worker, so that its time
// is simulated too.
locus::runtime_options runtime_options_for(const options& opt, const bench::variant& v, int workers,
                                          const std::string& trace = "") {
  locus::runtime_options o;
  o.trace = trace;
  if (opt.simulate) {
    o.engine = "sim";
    o.machine = opt.machine;
  }
  if (v.kind == bench::impl::serial) {
    o.workers = 1;
    return o;
  }
  o.workers = workers;
  o.policy = v.policy;
  if (!opt.places.empty()) o.places = opt.places;
  if (opt.pack) o.pack = 1;
  return o;
}

bench::variant checked_variant(const std::string& text, const options& o) {
  const bench::variant v = bench::parse_variant(text);
  if (o.simulate && v.kind != bench::impl::locus && v.kind != bench::impl::serial)
    throw std::invalid_argument("--variants " + v.name + ": the simulator runs serial and locus:<policy> only");
  if (v.kind == bench::impl::locus) {
    const auto policies = locus::available_policies();
    if (std::find(policies.begin(), policies.end(), v.policy) == policies.end())
      throw std::invalid_argument("--variants " + v.name + ": unknown locus policy; accepted: locus:" +
                                  join(policies, ", locus:"));
    if (!o.policy.empty() && v.policy != o.policy)
      throw std::invalid_argument("--variants " + v.name + " conflicts with LOCUS_POLICY=\"" + o.policy +
                                  "\": give one of them (unset the variable or drop the variant)");
  }
  return v;
}

options parse(int argc, char** argv) {
  using locus_program::flag_or_env;
  using locus_program::parse_integer;
  options o;
  std::optional<std::string> workers_flag, engine_flag, machine_flag, places_flag;
  std::vector<std::string> variant_names;
  bool pack_flag = false;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value (see --help)");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--benchmarks") o.benchmarks = split(need(i));
    else if (a == "--variants") variant_names = split(need(i));
    else if (a == "--suite") o.suite = need(i);
    else if (a == "--workers") workers_flag = need(i);
    else if (a == "--reps") {
      o.reps = static_cast<int>(parse_integer({a, need(i)}, 1, 1'000'000, "timed runs per cell"));
      o.reps_given = true;
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(parse_integer({a, need(i)}, 0, 1'000'000, "untimed rounds"));
      o.warmup_given = true;
    } else if (a == "--size") {
      const setting s{a, need(i)};
      if (s.value == "tiny") o.size = bench::size_class::tiny;
      else if (s.value == "quick") o.size = bench::size_class::quick;
      else if (s.value == "full") o.size = bench::size_class::full;
      else s.reject("accepted are tiny, quick, full");
    } else if (a == "--full") o.size = bench::size_class::full;
    else if (a == "--param") {
      const setting kv{a, need(i)};
      const auto eq = kv.value.find('=');
      if (eq == std::string::npos || eq == 0) kv.reject("expected key=value (--list shows the keys)");
      o.params[kv.value.substr(0, eq)] = kv.value.substr(eq + 1);
    } else if (a == "--out") o.out = locus_support::with_rank(need(i));  // %r: the MPI rank
    else if (a == "--engine") engine_flag = need(i);
    else if (a == "--machine") machine_flag = need(i);
    else if (a == "--places") places_flag = need(i);
    else if (a == "--pack") pack_flag = true;
    else if (a == "--trace") {
      o.trace_dir = need(i);
      std::error_code ec;
      std::filesystem::create_directories(o.trace_dir, ec);
      if (ec || !std::filesystem::is_directory(o.trace_dir))
        throw std::invalid_argument("--trace " + o.trace_dir + ": cannot create this directory (" +
                                    (ec ? ec.message() : std::string("not a directory")) +
                                    "); expected a directory for the trace files");
    }
    else if (a == "--list-machines") {
      for (const auto& m : locus::available_machines()) std::printf("%-24s %s\n", m.name.c_str(), m.summary.c_str());
      std::exit(0);
    }
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--list") {
      for (auto& b : bench::registry()) {
        std::printf("%s%s\n", b.name.c_str(), b.uses_loops ? " (loops)" : "");
        const bench::params declared = declared_params(b);
        for (const auto& [k, meaning] : declared.meanings())
          std::printf("  %-12s %s; %s\n", k.c_str(), meaning.c_str(), declared.ranges().at(k).c_str());
      }
      std::exit(0);
    } else throw std::invalid_argument("unknown option " + a + " (see --help)");
  }

  // The settings locus-bench sets per cell: a flag, else its variable.
  if (const auto e = flag_or_env("--engine", engine_flag, "LOCUS_ENGINE")) {
    if (e->value != "threaded" && e->value != "sim") e->reject("accepted are threaded, sim");
    o.simulate = e->value == "sim";
  }
  if (const auto m = flag_or_env("--machine", machine_flag, "LOCUS_MACHINE")) {
    if (!o.simulate) m->reject("a simulated machine needs the simulator: add --engine sim");
    locus_program::check_machine(*m);
    o.machine = m->value;
  }
  if (const auto w = flag_or_env("--workers", workers_flag, "LOCUS_WORKERS")) {
    o.workers_given = true;
    // The flag is a list; the variable is one count, as for every program.
    const auto counts = w->name == "--workers" ? split(w->value) : std::vector<std::string>{w->value};
    for (const auto& count : counts)
      o.workers.push_back(static_cast<int>(
          parse_integer({w->name, count}, 1, locus_program::max_workers, "the number of workers")));
    if (o.workers.empty()) w->reject("expected worker counts separated by commas, e.g. 1,2");
  }
  if (const auto p = flag_or_env("--places", places_flag, "LOCUS_PLACES")) {
    locus_support::check_place_kind(p->value, p->name);
    o.places = p->value;
  }
  if (const auto env = locus_program::from_env("LOCUS_PACK")) {
    const bool packed = parse_integer(*env, 0, 1, "1 to pack the workers or 0 to spread them") == 1;
    if (pack_flag && !packed)
      throw std::invalid_argument("--pack conflicts with " + env->quoted() +
                                  ": give one of them (unset the variable or drop the flag)");
    pack_flag = packed;
  }
  o.pack = pack_flag;
  if (const auto p = locus_program::from_env("LOCUS_POLICY")) {
    const auto policies = locus::available_policies();
    if (std::find(policies.begin(), policies.end(), p->value) == policies.end())
      p->reject("unknown scheduling policy; accepted: " + join(policies, ", "));
    o.policy = p->value;
  }
  for (const auto& name : variant_names) o.variants.push_back(checked_variant(name, o));

  if (o.simulate) {
    // A simulated run repeats exactly: one timed run, no warm-up.
    if (!o.reps_given) o.reps = 1;
    if (!o.warmup_given) o.warmup = 0;
  }
  // Every other LOCUS_* setting, checked as the runtime will read it (and,
  // under the simulator, the machine's core count for the default workers).
  const int most = o.workers.empty() ? 1 : *std::max_element(o.workers.begin(), o.workers.end());
  const auto cfg = locus_support::resolve_settings(
      runtime_options_for(o, bench::parse_variant("locus:" + (o.policy.empty() ? "ws" : o.policy)), most));
  if (o.workers.empty()) {
    if (o.simulate) o.workers = {1, cfg.cores};
    else
      for (int p = 1; p <= cfg.cores; ++p) o.workers.push_back(p);  // the cores this process may use
  }
  return o;
}

// Checks every --param against the ranges the chosen benchmarks declare,
// before anything runs; a key none of them reads is a typo.
void check_params(const options& opt, const std::vector<const bench::benchmark*>& chosen) {
  std::map<std::string, bool> read;
  for (const auto* b : chosen) {
    const bench::params declared = declared_params(*b);
    for (const auto& [key, value] : opt.params)
      if (declared.meanings().count(key)) {
        read[key] = true;
        try {
          declared.check(key, value);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(b->name + ": " + e.what());
        }
      }
  }
  for (const auto& [key, value] : opt.params)
    if (!read.count(key)) {
      std::vector<std::string> names;
      for (const auto* b : chosen) names.push_back(b->name);
      throw std::invalid_argument("--param " + key + "=" + value + ": not a parameter of " + join(names, ", ") +
                                  " (--list shows each benchmark's parameters)");
    }
}

// The variants that apply to a benchmark when none were named: for a
// benchmark without loops, partitioners and schedules make no difference.
// LOCUS_POLICY, when set, is the one locus policy.
std::vector<bench::variant> default_variants(const bench::benchmark& b, const options& opt) {
  const bool simulate = opt.simulate;
  std::vector<std::string> names = {"serial"};
  for (const auto& p : locus::available_policies()) {
    if (!opt.policy.empty() && p != opt.policy) continue;
    names.push_back("locus:" + p);
    if (b.uses_loops) names.push_back("locus:" + p + "+affinity");
  }
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

// --suite NAME: its benchmarks and its variants per benchmark (narrowed by
// --benchmarks and --variants), workers 1 and the number of cores, its
// rounds; what the command line or the settings give instead wins. Under the simulator only
// serial and locus variants are kept, and with LOCUS_POLICY=p only the
// locus variants of p, as without a suite.
options apply_suite(options o) {
  if (o.suite.empty()) return o;
  const bench::suite* s = bench::find_suite(o.suite);
  if (!s) {
    std::vector<std::string> names;
    for (const auto& known : bench::suites()) names.push_back(known.name);
    throw std::invalid_argument("--suite " + o.suite + ": unknown suite; known: " + join(names, ", "));
  }
  const std::vector<bench::variant> named = std::move(o.variants);
  o.variants.clear();
  auto is_named = [&](const bench::variant& v) {
    return named.empty() ||
           std::any_of(named.begin(), named.end(), [&](const bench::variant& n) { return n.name == v.name; });
  };
  if (!s->entries.empty()) {
    std::vector<std::string> in_suite;
    for (const auto& e : s->entries) in_suite.push_back(e.benchmark);
    for (const auto& name : o.benchmarks)
      if (std::find(in_suite.begin(), in_suite.end(), name) == in_suite.end())
        throw std::invalid_argument("--benchmarks " + name + ": not in --suite " + s->name + " (" +
                                    join(in_suite, ", ") + ")");
    if (o.benchmarks.empty()) o.benchmarks = in_suite;
    for (const auto& e : s->entries) {
      auto& vs = o.suite_variants[e.benchmark];
      for (const auto& name : e.variants) {
        const bench::variant v = bench::parse_variant(name);
        if (o.simulate && v.kind != bench::impl::locus && v.kind != bench::impl::serial) continue;
        if (v.kind == bench::impl::locus && !o.policy.empty() && v.policy != o.policy) continue;
        if (is_named(v)) vs.push_back(checked_variant(name, o));
      }
    }
    for (const auto& n : named)
      if (std::none_of(o.suite_variants.begin(), o.suite_variants.end(), [&](const auto& entry) {
            return std::any_of(entry.second.begin(), entry.second.end(),
                               [&](const bench::variant& v) { return v.name == n.name; });
          }))
        throw std::invalid_argument("--variants " + n.name + ": not a variant of --suite " + s->name +
                                    " (--help lists them)");
  } else {
    o.variants = named;
  }
  if (s->one_and_most && !o.workers_given && !o.simulate && o.workers.size() > 2)
    o.workers = {o.workers.front(), o.workers.back()};
  if (!o.simulate) {
    if (!o.reps_given) o.reps = s->reps;
    if (!o.warmup_given) o.warmup = s->warmup;
  }
  return o;
}

// The variants of a benchmark's cells: the suite's, else those named, else
// all that apply.
std::vector<bench::variant> variants_for(const bench::benchmark& b, const options& opt) {
  if (const auto it = opt.suite_variants.find(b.name); it != opt.suite_variants.end()) return it->second;
  return opt.variants.empty() ? default_variants(b, opt) : opt.variants;
}

// Sets up an implementation for one run and runs a function inside it.
class environment {
 public:
  environment(const bench::variant& v, int workers, const options& opt, const std::string& trace)
      : v_(v), simulate_(opt.simulate) {
    switch (v.kind) {
      case bench::impl::serial:
        if (simulate_) locus_ = std::make_unique<locus::runtime>(runtime_options_for(opt, v, 1, trace));
        break;
      case bench::impl::locus:
        locus_ = std::make_unique<locus::runtime>(runtime_options_for(opt, v, workers, trace));
        bench::g_data = v.data;  // prepare() moves block p of the data to place p, or interleaves
        bench::locus_backend::loops = v.loops;
        break;
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
  ~environment() { bench::g_data = bench::data_layout::first_touch; }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  template <class Fn>
  void run(Fn&& fn) {
    if (arena_) arena_->execute(fn);
    else if (simulate_ && v_.kind == bench::impl::serial) locus::fork_join(fn, [] {});
    else if (v_.contender) locus::fork_join([&] { bench::contender::beside(fn); }, [] {});  // TBB-NUMA 5.3
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
  // Under the simulator, summed over timed runs: accesses served beyond the
  // private caches by [worker's place][home node] (access_matrix).
  std::vector<std::vector<double>> access_matrix;
  std::string trace;             // --trace: the file of its last timed run
  // LOCUS_SPAN=1: work (T_1), span (T_inf) and burdened span, summed over
  // timed runs (docs/observability.md).
  bool span_measured = false;
  double span_work_s = 0, span_s = 0, burdened_span_s = 0;
};

// The simulator's counters of accesses served beyond the private caches by
// home node (beyond_private_home_<node>): written as access_matrix, by
// place, not among the cell's totals.
constexpr std::string_view access_matrix_prefix = "beyond_private_home_";
bool is_access_matrix_counter(const std::string& name) {
  return name.compare(0, access_matrix_prefix.size(), access_matrix_prefix) == 0;
}
void add_access_matrix(std::vector<std::vector<double>>& m, const std::vector<locus::worker_stats>& workers) {
  for (const auto& w : workers)
    for (const auto& c : w.engine_counters) {
      if (!is_access_matrix_counter(c.name) || w.place < 0) continue;
      const auto node = static_cast<std::size_t>(std::stoul(c.name.substr(access_matrix_prefix.size())));
      const auto place = static_cast<std::size_t>(w.place);
      if (m.size() <= place) m.resize(place + 1);
      for (auto& row : m)
        if (row.size() <= node) row.resize(node + 1, 0.0);
      m[place][node] += static_cast<double>(c.value);
    }
  std::size_t width = 0;
  for (const auto& row : m) width = std::max(width, row.size());
  for (auto& row : m) row.resize(width, 0.0);
}

// The trace file of a cell: DIR/<benchmark>_<variant>_P<workers>.json, the
// variant's ':' and '+' turned into '-'.
std::string trace_file(const std::string& dir, const std::string& benchmark, const cell& c) {
  std::string variant = c.v.name;
  for (char& ch : variant)
    if (ch == ':' || ch == '+') ch = '-';
  return (std::filesystem::path(dir) / (benchmark + "_" + variant + "_P" + std::to_string(c.workers) + ".json"))
      .string();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The results file, appended to; its directory is created if missing.
std::ofstream open_results(const std::string& path) {
  const std::filesystem::path file(path);
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::invalid_argument("--out " + path + ": cannot create the directory " + file.parent_path().string() +
                                  ": " + ec.message());
  }
  std::ofstream out(path, std::ios::app);
  if (!out)
    throw std::invalid_argument("--out " + path + ": cannot open this file for appending: " + std::strerror(errno));
  return out;
}

// The run record: provenance, then what the command line and the settings
// chose.
std::string run_record(const options& opt, const std::vector<const bench::benchmark*>& chosen) {
  json::object o = bench::provenance();
  auto list = [](const std::vector<std::string>& items) {
    std::string raw;
    for (const auto& i : items) raw += (raw.empty() ? "" : ",") + json::quote(i);
    return "[" + raw + "]";
  };
  std::vector<std::string> names, variants, workers;
  for (const auto* b : chosen) names.push_back(b->name);
  for (const auto& v : opt.variants) variants.push_back(v.name);
  for (int w : opt.workers) workers.push_back(std::to_string(w));
  json::object params;
  for (const auto& [k, v] : opt.params) params.add(k, v);
  o.add("size", bench::to_string(opt.size))
      .add("reps", opt.reps)
      .add("warmup", opt.warmup)
      .add("engine", opt.simulate ? "sim" : "threaded")
      .add("machine", opt.simulate ? opt.machine : bench::machine_name())
      .add_raw("benchmarks", list(names))
      .add_raw("variants", opt.variants.empty() ? "\"all that apply\"" : list(variants))
      .add("suite", opt.suite)
      .add_raw("workers", "[" + join(workers, ",") + "]")
      .add_raw("params", params.str());
  return o.str();
}

int run(int argc, char** argv) {
  const options opt = apply_suite(parse(argc, argv));

  // Resolve and check everything before running anything.
  std::vector<const bench::benchmark*> chosen;
  for (const auto& b : bench::registry()) {
    const bool named = std::find(opt.benchmarks.begin(), opt.benchmarks.end(), b.name) != opt.benchmarks.end();
    if (opt.simulate && !b.simulated && named)
      throw std::invalid_argument("--benchmarks " + b.name +
                                  ": not run under the simulator (it times a library's own code, which has no memory "
                                  "annotations for the model); run it on threads");
    if (opt.benchmarks.empty() ? !opt.simulate || b.simulated : named) chosen.push_back(&b);
  }
  for (const auto& name : opt.benchmarks)
    if (std::none_of(chosen.begin(), chosen.end(), [&](const auto* b) { return b->name == name; })) {
      std::vector<std::string> known;
      for (const auto& b : bench::registry()) known.push_back(b.name);
      throw std::invalid_argument("--benchmarks " + name + ": unknown benchmark; known: " + join(known, ", "));
    }
  check_params(opt, chosen);
  std::ofstream out = open_results(opt.out);
  out << run_record(opt, chosen) << '\n';
  const std::string machine = bench::machine_name();
  bool all_verified = true;
  std::size_t done_cells = 0, total_cells = 0;
  std::vector<bench::progress::planned> plan;
  for (const auto* b : chosen) {
    std::size_t cells = 0;
    for (const auto& v : variants_for(*b, opt)) cells += v.kind == bench::impl::serial ? 1 : opt.workers.size();
    total_cells += cells;
    plan.push_back({b->name, cells * static_cast<std::size_t>(opt.warmup + opt.reps)});
  }
  // The estimate of the time left: cost hints exist for the quick sizes on
  // threads.
  bench::progress progress(plan, opt.size == bench::size_class::quick && !opt.simulate
                                     ? bench::cost_hints()
                                     : std::map<std::string, bench::cost_hint>{});
  if (!opt.quiet) {
    const double planned = progress.planned_s();
    std::fprintf(stderr, "%zu benchmarks, %zu cells, %d rounds each%s\n", chosen.size(), total_cells,
                 opt.warmup + opt.reps,
                 planned > 0 ? ("; about " + bench::progress::clock(planned) +
                                " by the costs measured on 2 AMD EPYC cores (adjusted as cells run)")
                                   .c_str()
                             : "");
  }
  // The simulator's heap from here on (large_blocks.cpp), and not before:
  // then what the benchmarks allocate does not depend on what the setup
  // above allocated (the length of --out, the host's name, the run record).
  if (opt.simulate) bench::use_deterministic_heap();

  for (std::size_t bi = 0; bi < chosen.size(); ++bi) {
    const auto* b = chosen[bi];
    progress.benchmark_started(bi);
    bench::params p(opt.params);
    std::unique_ptr<bench::instance> inst;
    try {
      inst = b->make(opt.size, p);
    } catch (const std::exception& e) {
      // Parameters that do not go together, or too little memory for this
      // size: one line and exit status 2, as for any bad parameter.
      throw std::invalid_argument(b->name + ": " + e.what());
    }
    progress.setup_done();
    std::vector<cell> cells;
    for (const auto& v : variants_for(*b, opt)) {
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
        // The last timed run of a cell that runs on locus is traced.
        const bool traced = !opt.trace_dir.empty() && round == opt.warmup + opt.reps - 1 &&
                            (c.v.kind == bench::impl::locus || (opt.simulate && c.v.kind == bench::impl::serial));
        if (traced) c.trace = trace_file(opt.trace_dir, b->name, c);
        environment env(c.v, c.workers, opt, traced ? c.trace : std::string());
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
          if (timed && opt.simulate) add_access_matrix(c.access_matrix, stats.workers);
          if (timed && stats.span_measured) {
            c.span_measured = true;
            c.span_work_s += stats.work_s;
            c.span_s += stats.span_s;
            c.burdened_span_s += stats.burdened_span_s;
          }
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
      progress.round_done(cells.size());
      if (!opt.quiet)
        std::fprintf(stderr, "  round %d/%d done (%s); %s\n", round + 1, opt.warmup + opt.reps,
                     timed ? "timed" : "warm-up", progress.status().c_str());
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
          .add("time", bench::now_iso())
          .add("summary", c.summary)
          .add("uses_loops", b->uses_loops);
      if (!c.verified) o.add("failure", c.failure);
      if (!c.trace.empty()) o.add("trace", c.trace);
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
      if (c.span_measured && c.span_s > 0) {
        o.add("t1_work_s", c.span_work_s / n)
            .add("tinf_span_s", c.span_s / n)
            .add("burdened_span_s", c.burdened_span_s / n)
            .add("parallelism", c.span_work_s / c.span_s)
            .add("burdened_parallelism", c.span_work_s / c.burdened_span_s);
      }
      if (opt.simulate) {
        // The engine's counters: cache blocks by where the memory model
        // served them, under the simulator's names (l1_hits, ...).
        json::object accesses;
        for (const auto& ec : c.counters.engine_counters)
          if (!is_access_matrix_counter(ec.name)) accesses.add(ec.name, static_cast<double>(ec.value) / n);
        o.add_raw("accesses", accesses.str());
        if (!c.access_matrix.empty()) {
          std::string rows = "[";
          for (std::size_t place = 0; place < c.access_matrix.size(); ++place) {
            rows += place ? ",[" : "[";
            for (std::size_t node = 0; node < c.access_matrix[place].size(); ++node) {
              char number[32];
              std::snprintf(number, sizeof number, "%s%.17g", node ? "," : "", c.access_matrix[place][node] / n);
              rows += number;
            }
            rows += ']';
          }
          o.add_raw("access_matrix", rows + "]");
        }
        o.add("block_bytes", static_cast<double>(c.block_bytes));
      }
      out << o.str() << '\n';
    }
    // The benchmark's wall time on threads, for estimates of what a
    // selection costs (runner/cost_hints.cpp); reports skip records. Not
    // under the simulator, whose results repeat byte for byte.
    if (!opt.simulate) {
      json::object record;
      record.add("record", "benchmark")
          .add("benchmark", b->name)
          .add("cells", static_cast<int>(cells.size()))
          .add("rounds", opt.warmup + opt.reps)
          .add("setup_s", progress.setup_s(bi))
          .add("rounds_s", progress.rounds_s(bi));
      out << record.str() << '\n';
    }
    for (const auto& k : p.unused())
      std::fprintf(stderr, "locus-bench: warning: --param %s is not a parameter of %s\n", k.c_str(), b->name.c_str());
  }
  if (!opt.quiet)
    std::fprintf(stderr, "results appended to %s (%s in all)\n", opt.out.c_str(),
                 bench::progress::clock(progress.elapsed_s()).c_str());
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return locus_program::run("locus-bench", [&] { return run(argc, argv); });
}
