// locus-demo: what `make run` shows. A fork-join recursion (fib) and a
// parallel_for stencil (2D Jacobi heat), each checked against a serial run,
// then the per-worker counters.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include <locus/locus.hpp>

namespace {

long fib(int n) {
  if (n < 20) return n < 2 ? n : fib(n - 1) + fib(n - 2);  // cut-off
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

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

// The fastest of three runs: a demonstration on a possibly busy machine,
// not a measurement (locus-bench measures).
template <class Fn>
double best_of_three(Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto t = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  return best;
}

}  // namespace

int main() {
  std::printf("locus demo: %d workers, %d places, policy %s\n", locus::num_workers(), locus::num_places(),
              locus::policy_name().c_str());
  locus::reset_stats();

  const int n = 37;
  long expect = 0, got = 0;
  const double ts = best_of_three([&] { expect = serial_fib(n); });
  const double tp = best_of_three([&] { got = fib(n); });
  std::printf("fib(%d) = %ld  serial %.3f s  parallel %.3f s  speedup %.2f  %s  (best of 3)\n", n, got, ts, tp,
              ts / tp, got == expect ? "verified" : "WRONG");

  const int size = 1024, steps = 200;
  std::vector<double> hs, hp;
  const double hts = best_of_three([&] { hs = heat(size, steps, false); });
  const double htp = best_of_three([&] { hp = heat(size, steps, true); });
  const bool same = hs == hp;
  std::printf("heat %dx%d, %d steps  serial %.3f s  parallel %.3f s  speedup %.2f  %s  (best of 3)\n", size, size,
              steps, hts, htp, hts / htp, same ? "verified" : "WRONG");

  std::printf("\ncounters (seconds and events per worker):\n%s", locus::get_stats().summary().c_str());
  return got == expect && same ? 0 : 1;
}
