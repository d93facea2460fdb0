// build/bin/fib [n] [--reps R] [--workers 1,2]
// Reports T_S (serial elision), T_1, T_P, T_1/T_S, T_1/T_P and nanoseconds
// per fork, for fork_join and task_group::spawn. Medians of R runs; every
// result is checked against the serial one.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <locus/locus.hpp>
#include <locus_support/program.hpp>

long parallel_fib_fork_join(int n);
long parallel_fib_spawn(int n);
long serial_fib_fork_join(int n);
long serial_fib_spawn(int n);
long plain_fib(int n);
long nocount_fib_fork_join(int n);
long parallel_fib_parent_first(int n);
long serial_fib_parent_first(int n);
long nocount_fib_spawn(int n);

namespace {

// Every measurement is repeated in rounds; each round runs every variant once
// (all worker counts, all constructs), so slow drifts of a shared machine hit
// every variant alike. Reported: the median over rounds.
struct series {
  std::vector<double> seconds;
  double median() {
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
  }
};

void time_once(series& s, long expected, const std::function<long()>& run) {
  const auto start = std::chrono::steady_clock::now();
  const long got = run();
  s.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (got != expected) {
    std::fprintf(stderr, "fib: wrong result %ld, expected %ld\n", got, expected);
    std::exit(1);
  }
}

// --workers 1,2, or LOCUS_WORKERS=2: one count.
std::vector<int> parse_workers(const locus_program::setting& s) {
  std::vector<std::string> counts = {s.value};
  if (s.name == "--workers") {
    counts.clear();
    std::stringstream in(s.value);
    for (std::string item; std::getline(in, item, ',');) counts.push_back(item);
  }
  std::vector<int> out;
  for (const auto& count : counts)
    out.push_back(static_cast<int>(
        locus_program::parse_integer({s.name, count}, 1, locus_program::max_workers, "the number of workers")));
  if (out.empty()) s.reject("expected worker counts separated by commas, e.g. 1,2");
  return out;
}

struct construct {
  const char* name;
  long (*parallel)(int);
  double* serial_elision;
  const char* spawn_switch;  // runtime option it needs, or "" for the default
};

int run(int argc, char** argv) {
  using locus_program::parse_integer;
  int n = 35, reps = 7;
  std::vector<int> workers = {1, 2};
  std::optional<std::string> workers_flag;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value (see --help)");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps") reps = static_cast<int>(parse_integer({a, need(i)}, 1, 1'000'000, "rounds"));
    else if (a == "--workers") workers_flag = need(i);
    else if (a == "--help" || a == "-h") {
      std::puts("usage: fib [n=35] [--reps R=7] [--workers 1,2]\n"
                "T_S: the serial elision of the same kernel, and the plain serial function.\n"
                "ns/fork: (T_1 - T_S(plain)) / forks, on one worker.\n"
                "LOCUS_WORKERS=P stands for --workers P; other LOCUS_* settings apply as documented.\n"
                "Exit status: 0, 1 for a wrong result, 2 for a bad option or setting.");
      return 0;
    } else if (a.rfind("-", 0) == 0) {
      throw std::invalid_argument("unknown option " + a + " (see --help)");
    } else {
      // fib(46) and up take minutes per round without coarsening.
      n = static_cast<int>(parse_integer({"n", a}, 2, 45, "the argument of fib(n)"));
    }
  }
  if (const auto w = locus_program::flag_or_env("--workers", workers_flag, "LOCUS_WORKERS")) workers = parse_workers(*w);
  const long expected = plain_fib(n);
  // fib(n) forks once per internal node of its call tree: fib(n+1) - 1 times.
  const double forks = static_cast<double>(plain_fib(n + 1) - 1);

  double ts_fj = 0, ts_sp = 0, ts_pf = 0;
  construct constructs[] = {{"fork_join", parallel_fib_fork_join, &ts_fj, ""},
                            {"task_group::spawn", parallel_fib_spawn, &ts_sp, ""},
                            {"fork_join, no counter", nocount_fib_fork_join, &ts_fj, ""},
                            {"spawn, fiber switches", parallel_fib_spawn, &ts_sp, "fiber"},
                            {"spawn, parent_first", parallel_fib_parent_first, &ts_pf, ""}};
  constexpr int num_constructs = 5;
  series plain, elision_fj, elision_sp, elision_pf, plain_pair;
  std::vector<std::vector<series>> parallel(workers.size(), std::vector<series>(num_constructs));
  std::vector<locus::worker_stats> totals(workers.size());

  for (int round = 0; round < reps; ++round) {
    time_once(plain, expected, [&] { return plain_fib(n); });
    // The machine's own ceiling for two cores: two plain threads, each the
    // whole serial function (a shared VM may give less than 2).
    time_once(plain_pair, expected, [&] {
      long other = 0;
      std::thread t([&] { other = plain_fib(n); });
      const long mine = plain_fib(n);
      t.join();
      return other == mine ? mine : -1;
    });
    time_once(elision_fj, expected, [&] { return serial_fib_fork_join(n); });
    time_once(elision_sp, expected, [&] { return serial_fib_spawn(n); });
    time_once(elision_pf, expected, [&] { return serial_fib_parent_first(n); });
    for (std::size_t w = 0; w < workers.size(); ++w) {
      for (const char* spawn_switch : {"", "fiber"}) {
        locus::runtime_options options;
        options.workers = workers[w];
        options.spawn_switch = spawn_switch;
        locus::runtime rt(options);
        locus::reset_stats();
        for (int k = 0; k < num_constructs; ++k) {
          if (std::strcmp(constructs[k].spawn_switch, spawn_switch) != 0) continue;
          time_once(parallel[w][k], expected, [&] {
            long r = 0;
            locus::fork_join([&] { r = constructs[k].parallel(n); }, [] {});
            return r;
          });
        }
        const locus::worker_stats t = locus::get_stats().total();
        totals[w].steals += t.steals;
        totals[w].steal_attempts += t.steal_attempts;
        totals[w].sleeps += t.sleeps;
      }
    }
  }

  const double t_plain = plain.median();
  ts_fj = elision_fj.median();
  ts_sp = elision_sp.median();
  ts_pf = elision_pf.median();
  std::printf("fib(%d), no coarsening: %.0f forks; medians of %d interleaved rounds\n", n, forks, reps);
  std::printf("T_S plain serial function %.4f s; serial elision: fork_join %.4f s, spawn %.4f s\n", t_plain,
              ts_fj, ts_sp);
  std::printf("machine ceiling for 2 workers: two threads each running the plain function take %.4f s "
              "(speedup %.2f)\n\n",
              plain_pair.median(), 2 * t_plain / plain_pair.median());
  std::printf("%-22s %7s %9s %10s %11s %8s %8s\n", "construct", "workers", "T_P s", "T_P/plain", "T_P/elision",
              "T_1/T_P", "ns/fork");
  std::vector<double> t1(num_constructs, 0.0);
  for (std::size_t w = 0; w < workers.size(); ++w) {
    for (int k = 0; k < num_constructs; ++k) {
      const double t = parallel[w][k].median();
      if (workers[w] == 1) t1[static_cast<std::size_t>(k)] = t;
      const double base = t1[static_cast<std::size_t>(k)];
      char per_fork[32] = "-";
      if (workers[w] == 1) std::snprintf(per_fork, sizeof per_fork, "%.2f", (t - t_plain) * 1e9 / forks);
      char scaling[32] = "-";  // without a run on one worker (--workers 2) there is no T_1
      if (base > 0) std::snprintf(scaling, sizeof scaling, "%.2f", base / t);
      std::printf("%-22s %7d %9.4f %10.2f %11.2f %8s %8s\n", constructs[k].name, workers[w], t, t / t_plain,
                  t / *constructs[k].serial_elision, scaling, per_fork);
    }
    std::printf("%-22s %7d steals %llu of %llu attempts, %llu sleeps (all rounds)\n", "  scheduler", workers[w],
                static_cast<unsigned long long>(totals[w].steals),
                static_cast<unsigned long long>(totals[w].steal_attempts),
                static_cast<unsigned long long>(totals[w].sleeps));
  }
  if (t1[0] > 0 && t1[2] > 0)
    std::printf("\nspawn counter overhead on fork_join T_1: %+.1f%% (with %.4f s, without %.4f s)\n",
                (t1[0] / t1[2] - 1) * 100, t1[0], t1[2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return locus_program::run("fib", [&] { return run(argc, argv); });
}
