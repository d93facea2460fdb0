// locus-demo: what `make run` shows. A fork-join recursion (fib) and a
// parallel_for stencil (2D Jacobi heat), each checked against a serial run
// and timed three ways: T_S, the serial program; T_1, the parallel program
// on one worker; T_P, the same on the P workers the settings give. The
// speedup is T_1 / T_P. Then a check of what the machine gives P threads
// right now, and where the workers' time went.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <locus/locus.hpp>
#include <locus_support/program.hpp>

namespace {

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

long fib(int n) {
  if (n < 20) return serial_fib(n);  // cut-off: the serial program below it
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

// One Jacobi step of the five-point stencil on an n x n grid with fixed edges.
template <class RowLoop>
void heat_step(const std::vector<double>& in, std::vector<double>& out, int n, RowLoop rows) {
  rows(1, n - 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i)
      for (int j = 1; j < n - 1; ++j)
        out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
  });
}

std::vector<double> heat(int n, int steps, bool parallel) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0), b;
  for (int j = 0; j < n; ++j) a[j] = 100.0;  // a hot top edge
  b = a;
  auto rows = [&](std::int64_t lo, std::int64_t hi, auto body) {
    if (parallel) locus::parallel_for(lo, hi, 16, body);
    else body(lo, hi);
  };
  for (int s = 0; s < steps; ++s) {
    heat_step(a, b, n, rows);
    std::swap(a, b);
  }
  return a;
}

// Runs fn on the pool as one computation. Each call of parallel_for from a
// thread that is not a worker hands the loop to the pool and waits for it
// (docs/usage.md); the 200 steps of heat then start from a worker instead,
// so the handover is paid once.
template <class Fn>
void on_pool(Fn&& fn) {
  locus::fork_join(fn, [] {});
}

template <class Fn>
double seconds(Fn&& fn) {
  const auto t = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The fastest of the rounds: a demonstration on a possibly busy machine,
// not a measurement (locus-bench measures).
struct best {
  double serial = 1e30, one = 1e30, all = 1e30;
  bool verified = true;
};

constexpr int fib_n = 37, heat_size = 1024, heat_steps = 200, rounds = 3;

// One round: the serial programs, then the parallel ones in a pool of one
// worker and in a pool of P (one pool if P is 1), interleaved so that a
// busy spell of a shared machine hits all three alike. The P-worker pool's
// counters are added up.
void round(int p, best& f, best& h, locus::worker_stats& counters, double& elapsed) {
  long fib_expected = 0;
  std::vector<double> heat_expected;
  f.serial = std::min(f.serial, seconds([&] { fib_expected = serial_fib(fib_n); }));
  h.serial = std::min(h.serial, seconds([&] { heat_expected = heat(heat_size, heat_steps, false); }));
  for (const bool all : {false, true}) {
    if (all && p == 1) continue;
    locus::runtime_options o;  // fields left unset come from LOCUS_* settings
    if (!all) o.workers = 1;
    locus::runtime rt(o);
    locus::reset_stats();
    long got = 0;
    std::vector<double> grid;
    const double tf = seconds([&] { got = fib(fib_n); });
    const double th = seconds([&] { on_pool([&] { grid = heat(heat_size, heat_steps, true); }); });
    f.verified = f.verified && got == fib_expected;
    h.verified = h.verified && grid == heat_expected;
    (all ? f.all : f.one) = std::min(all ? f.all : f.one, tf);
    (all ? h.all : h.one) = std::min(all ? h.all : h.one, th);
    if (all || p == 1) {
      const locus::stats s = locus::get_stats();
      counters += s.total();
      elapsed += s.elapsed_s;
    }
  }
}

// What the machine gives P threads right now: P copies of the serial fib,
// one per thread, against one copy alone; P on an idle machine with P
// cores, less when other programs share the cores. Measured in every round,
// beside the runs it explains. The results are kept and compared, so that
// no copy can be optimized away.
struct ceiling {
  double alone = 1e30, together = 1e30;
  bool agree = true;
  double value(int p) const { return agree ? p * alone / together : 0.0; }
};

void measure(ceiling& c, int p) {
  long one = 0;
  std::vector<long> copies(static_cast<std::size_t>(p));
  c.alone = std::min(c.alone, seconds([&] { one = serial_fib(fib_n - 2); }));
  c.together = std::min(c.together, seconds([&] {
    std::vector<std::thread> threads;
    for (auto& copy : copies) threads.emplace_back([&copy] { copy = serial_fib(fib_n - 2); });
    for (auto& t : threads) t.join();
  }));
  c.agree = c.agree && std::count(copies.begin(), copies.end(), one) == p;
}

void print(const char* what, const best& b, int p) {
  std::printf("%-28s T_S %6.3f s  T_1 %6.3f s", what, b.serial, b.one);
  if (p > 1) std::printf("  T_%d %6.3f s  speedup T_1/T_%d %5.2f", p, b.all, p, b.one / b.all);
  std::printf("  %s\n", b.verified ? "verified" : "WRONG");
}

int demo() {
  int p = 0;
  {
    locus::runtime rt;  // the settings are checked here; a bad one throws locus::config_error
    p = locus::num_workers();
    std::printf("locus demo: policy %s, engine %s, %d worker%s over %d place%s (settings: docs/configuration.md)\n",
                locus::policy_name().c_str(), locus::engine_name().c_str(), p, p == 1 ? "" : "s",
                locus::num_places(), locus::num_places() == 1 ? "" : "s");
    if (locus::engine_name() == "sim") {
      std::printf("the demo's kernels declare no costs to the simulator (locus/annotate.hpp), so simulated times\n"
                  "would mean nothing here: locus-bench --engine sim runs benchmarks that do.\n");
      return 0;
    }
  }
  if (p == 1)
    std::printf("T_S: the serial program; T_1: the parallel program on 1 worker; best of %d.\n\n", rounds);
  else
    std::printf("T_S: the serial program; T_1 and T_%d: the parallel program on 1 and on %d workers; best of %d.\n\n",
                p, p, rounds);
  best f, h;
  ceiling machine;
  locus::worker_stats counters;
  double elapsed = 0;
  for (int r = 0; r < rounds; ++r) {
    round(p, f, h, counters, elapsed);
    if (p > 1) measure(machine, p);
  }
  const std::string fib_label = "fib(" + std::to_string(fib_n) + ")";
  const std::string heat_label =
      "heat " + std::to_string(heat_size) + "x" + std::to_string(heat_size) + ", " + std::to_string(heat_steps) + " steps";
  print(fib_label.c_str(), f, p);
  print(heat_label.c_str(), h, p);

  if (p == 1) {
    std::printf("\none worker: nothing to speed up (a machine with one core, or LOCUS_WORKERS=1)\n");
  } else {
    const double ceiling = machine.value(p);
    std::printf("\nthis machine now: %d threads, each running the serial fib, get through %.2f times the work of one\n"
                "thread (%d on %d idle cores)",
                p, ceiling, p, p);
    if (ceiling < 0.75 * p)
      std::printf(":\nother programs are using the cores, so a speedup much above %.2f is not available now, and the\n"
                  "times above say more about the other programs than about locus",
                  ceiling);
    if (static_cast<unsigned>(p) > std::thread::hardware_concurrency())
      std::printf("; %d workers share %u cpus", p, std::thread::hardware_concurrency());
    std::printf("\n");
  }

  const double total = counters.work_s + counters.sched_s + counters.idle_s;
  auto share = [total](double s) { return total > 0 ? 100 * s / total : 0.0; };
  std::printf("\nwhere the workers' time went in the %d-worker runs (%.3f s elapsed):\n"
              "  work %.3f s (%.0f%%), scheduling %.3f s (%.0f%%), idle %.3f s (%.0f%%)\n"
              "  %llu spawns, %llu steals of %llu attempts, %llu sleeps\n",
              p, elapsed, counters.work_s, share(counters.work_s), counters.sched_s, share(counters.sched_s),
              counters.idle_s, share(counters.idle_s), static_cast<unsigned long long>(counters.spawns),
              static_cast<unsigned long long>(counters.steals),
              static_cast<unsigned long long>(counters.steal_attempts),
              static_cast<unsigned long long>(counters.sleeps));
  return f.verified && h.verified ? 0 : 1;
}

}  // namespace

int main() { return locus_program::run("locus-demo", demo); }
