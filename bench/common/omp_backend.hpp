// OpenMP (GCC's libgomp). Recursion: `run` opens a team and runs the kernel
// on one thread (parallel + single); fork2 makes f a task, runs g, and waits
// (taskwait). Loops: inside a `region` every thread of the team runs the
// region's code and a loop is a worksharing loop over chunks of `grain`
// iterations with schedule(runtime), which the runner sets to static,
// dynamic or guided from the variant. A loop met inside `run` (a loop nested
// in recursion, e.g. a parallel partition) is split into tasks instead.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace bench {

struct omp_backend {
  // True while a recursive kernel runs (set before its team starts, so every
  // thread sees it).
  static inline bool in_run = false;

  template <class F, class G>
  static void fork2(F&& f, G&& g) {
#pragma omp task default(shared)
    f();
    g();
#pragma omp taskwait
  }

  template <class Body>
  static void loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    if (lo >= hi) return;
    if (in_run) return split(lo, hi, grain, body);
    if (!omp_in_parallel()) {
#pragma omp parallel
      team_loop(lo, hi, grain, body);
      return;
    }
    team_loop(lo, hi, grain, body);
  }

  template <class Body>
  static double reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    if (lo >= hi) return 0.0;
    if (in_run) return split_reduce(lo, hi, grain, body);
    if (!omp_in_parallel()) {
      double total = 0.0;
#pragma omp parallel
      {
        const double t = team_reduce(lo, hi, grain, body);
#pragma omp master
        total = t;
      }
      return total;
    }
    return team_reduce(lo, hi, grain, body);
  }

  template <class Fn>
  static void region(Fn&& fn) {
    if (omp_in_parallel()) return fn();
#pragma omp parallel
    fn();
  }

  template <class Fn>
  static void single(Fn&& fn) {
    if (!omp_in_parallel()) return fn();
#pragma omp single
    fn();
  }

  template <class Fn>
  static void run(Fn&& fn) {
    in_run = true;
#pragma omp parallel
#pragma omp single
    fn();
    in_run = false;
  }

 private:
  static constexpr int max_threads = 1024;
  struct alignas(64) slot {
    double value;
  };
  static inline slot partial[max_threads];

  template <class Body>
  static void team_loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
    const std::int64_t chunks = (hi - lo + grain - 1) / grain;
#pragma omp for schedule(runtime)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t a = lo + c * grain;
      body(a, std::min(hi, a + grain));
    }
  }

  // Every thread of the team returns the same total (summed in thread order).
  template <class Body>
  static double team_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
    const std::int64_t chunks = (hi - lo + grain - 1) / grain;
    double mine = 0.0;
#pragma omp for schedule(runtime)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t a = lo + c * grain;
      mine += body(a, std::min(hi, a + grain));
    }
    partial[omp_get_thread_num()].value = mine;
#pragma omp barrier
    double total = 0.0;
    for (int t = 0; t < omp_get_num_threads(); ++t) total += partial[t].value;
#pragma omp barrier
    return total;
  }

  template <class Body>
  static void split(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
    if (hi - lo <= grain) return body(lo, hi);
    const std::int64_t mid = lo + (hi - lo) / 2;
    fork2([&] { split(lo, mid, grain, body); }, [&] { split(mid, hi, grain, body); });
  }

  template <class Body>
  static double split_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
    if (hi - lo <= grain) return body(lo, hi);
    const std::int64_t mid = lo + (hi - lo) / 2;
    double left = 0.0, right = 0.0;
    fork2([&] { left = split_reduce(lo, mid, grain, body); }, [&] { right = split_reduce(mid, hi, grain, body); });
    return left + right;
  }
};

}  // namespace bench
