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
#include <string>
#include <vector>

#include <locus/locus.hpp>

long parallel_fib_fork_join(int n);
long parallel_fib_spawn(int n);
long serial_fib_fork_join(int n);
long serial_fib_spawn(int n);
long plain_fib(int n);
long nocount_fib_fork_join(int n);
long nocount_fib_spawn(int n);

namespace {

double median_seconds(int reps, long expected, const std::function<long()>& run) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const long got = run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (got != expected) {
      std::fprintf(stderr, "fib: wrong result %ld, expected %ld\n", got, expected);
      std::exit(1);
    }
    t.push_back(s);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> out;
  for (const char* p = s; *p;) {
    out.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 35, reps = 5;
  std::vector<int> workers = {1, 2};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--workers") && i + 1 < argc) workers = parse_list(argv[++i]);
    else if (!std::strcmp(argv[i], "--help")) {
      std::puts("usage: fib [n=35] [--reps R=5] [--workers 1,2]\n"
                "T_S: the serial elision of the same kernel, and the plain serial function.\n"
                "ns/fork: (T_1 - T_S(plain)) / forks, on one worker.");
      return 0;
    } else n = std::atoi(argv[i]);
  }
  if (n < 2 || n > 45 || reps < 1 || workers.empty()) {
    std::fprintf(stderr, "fib: n must be 2..45, reps >= 1, workers a list like 1,2\n");
    return 2;
  }
  const long expected = plain_fib(n);
  // fib(n) forks once per internal node of its call tree: fib(n+1) - 1 times.
  const double forks = static_cast<double>(plain_fib(n + 1) - 1);

  const double t_plain = median_seconds(reps, expected, [&] { return plain_fib(n); });
  const double ts_fj = median_seconds(reps, expected, [&] { return serial_fib_fork_join(n); });
  const double ts_sp = median_seconds(reps, expected, [&] { return serial_fib_spawn(n); });
  std::printf("fib(%d), no coarsening: %.0f forks; median of %d runs\n", n, forks, reps);
  std::printf("T_S plain serial function %.4f s; serial elision: fork_join %.4f s, spawn %.4f s\n\n", t_plain,
              ts_fj, ts_sp);
  std::printf("%-22s %7s %9s %10s %10s %8s %8s\n", "construct", "workers", "T_P s", "T_P/plain", "T_P/elision",
              "T_1/T_P", "ns/fork");

  double t1[3] = {0, 0, 0};
  for (int p : workers) {
    locus::runtime_options options;
    options.workers = p;
    locus::runtime rt(options);
    auto on_pool = [&](long (*kernel)(int)) {
      return median_seconds(reps, expected, [&] {
        long r = 0;
        locus::fork_join([&] { r = kernel(n); }, [] {});
        return r;
      });
    };
    locus::reset_stats();
    const double t[3] = {on_pool(parallel_fib_fork_join), on_pool(parallel_fib_spawn),
                         p == 1 ? on_pool(nocount_fib_fork_join) : 0.0};
    const locus::worker_stats tot = locus::get_stats().total();
    const char* names[3] = {"fork_join", "task_group::spawn", "fork_join, no counter"};
    const double ts[3] = {ts_fj, ts_sp, ts_fj};
    for (int k = 0; k < 3; ++k) {
      if (t[k] == 0.0) continue;
      if (p == 1) t1[k] = t[k];
      char per_fork[32] = "-";
      if (p == 1) std::snprintf(per_fork, sizeof per_fork, "%.2f", (t[k] - t_plain) * 1e9 / forks);
      std::printf("%-22s %7d %9.4f %10.2f %10.2f %8.2f %8s\n", names[k], p, t[k], t[k] / t_plain, t[k] / ts[k],
                  t1[k] > 0 ? t1[k] / t[k] : 0.0, per_fork);
    }
    std::printf("%-22s %7d steals %llu of %llu attempts, %llu sleeps; work %.3f s sched %.4f s idle %.3f s\n",
                "  counters", p, static_cast<unsigned long long>(tot.steals),
                static_cast<unsigned long long>(tot.steal_attempts), static_cast<unsigned long long>(tot.sleeps),
                tot.work_s, tot.sched_s, tot.idle_s);
  }
  if (t1[2] > 0) std::printf("\ncounter overhead on fork_join T_1: %+.1f%%\n", (t1[0] / t1[2] - 1) * 100);
  return 0;
}
