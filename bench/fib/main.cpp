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
      std::puts("usage: fib [n=35] [--reps R=5] [--workers 1,2]");
      return 0;
    } else n = std::atoi(argv[i]);
  }
  if (n < 2 || n > 45 || reps < 1 || workers.empty()) {
    std::fprintf(stderr, "fib: n must be 2..45, reps >= 1, workers a list like 1,2\n");
    return 2;
  }
  const long expected = plain_fib(n);
  // fib(n) makes fib(n+1) - 1 forks: one per internal node of the call tree.
  const double forks = static_cast<double>(plain_fib(n + 1) - 1);

  const double t_plain = median_seconds(reps, expected, [&] { return plain_fib(n); });
  const double ts_fj = median_seconds(reps, expected, [&] { return serial_fib_fork_join(n); });
  const double ts_sp = median_seconds(reps, expected, [&] { return serial_fib_spawn(n); });
  std::printf("fib(%d), no coarsening, %.0f forks, median of %d\n", n, forks, reps);
  std::printf("  plain serial function      %.4f s\n", t_plain);
  std::printf("  T_S serial elision         %.4f s (fork_join)  %.4f s (spawn)\n", ts_fj, ts_sp);

  double t1_fj = 0, t1_sp = 0;
  std::printf("  %-8s %-10s %10s %8s %8s %10s\n", "workers", "construct", "T_P s", "T_P/T_S", "T_1/T_P",
              "ns/fork");
  for (int p : workers) {
    locus::runtime rt(locus::runtime_options{.workers = p});
    const double t_fj = median_seconds(reps, expected, [&] {
      long r = 0;
      locus::fork_join([&] { r = parallel_fib_fork_join(n); }, [] {});
      return r;
    });
    const double t_sp = median_seconds(reps, expected, [&] {
      long r = 0;
      locus::fork_join([&] { r = parallel_fib_spawn(n); }, [] {});
      return r;
    });
    if (p == 1) t1_fj = t_fj, t1_sp = t_sp;
    auto row = [&](const char* what, double t, double ts, double t1) {
      std::printf("  %-8d %-10s %10.4f %8.2f %8.2f %10.2f\n", p, what, t, t / ts, t1 > 0 ? t1 / t : 0.0,
                  (t - ts) * 1e9 / forks * p);
    };
    row("fork_join", t_fj, ts_fj, t1_fj);
    row("spawn", t_sp, ts_sp, t1_sp);
    const locus::worker_stats tot = locus::get_stats().total();
    std::printf("  %-8s steals %llu of %llu attempts\n", "", static_cast<unsigned long long>(tot.steals),
                static_cast<unsigned long long>(tot.steal_attempts));
  }
  return 0;
}
