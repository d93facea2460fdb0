// locus: fork_join for recursion, parallel_for / parallel_reduce for loops.
#pragma once

#include <cstdint>
#include <functional>

#include <locus/locus.hpp>

namespace bench {

struct locus_backend {
  template <class F, class G>
  static void fork2(F&& f, G&& g) {
    locus::fork_join(std::forward<F>(f), std::forward<G>(g));
  }
  template <class Body>
  static void loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    locus::parallel_for(lo, hi, grain, [&](std::int64_t a, std::int64_t b) { body(a, b); });
  }
  template <class Body>
  static double reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    return locus::parallel_reduce(
        lo, hi, grain, 0.0, [&](std::int64_t a, std::int64_t b, double acc) { return acc + body(a, b); },
        std::plus<>());
  }
  // Enter the pool once, so the kernel's own constructs run on workers
  // rather than each being submitted from the runner's thread.
  template <class Fn>
  static void region(Fn&& fn) {
    if (locus::worker_id() >= 0) return fn();
    locus::fork_join(fn, [] {});
  }
  template <class Fn>
  static void single(Fn&& fn) {
    fn();
  }
  template <class Fn>
  static void run(Fn&& fn) {
    region(std::forward<Fn>(fn));
  }
};

}  // namespace bench
