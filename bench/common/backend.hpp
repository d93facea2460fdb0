// The parallel constructs a benchmark kernel may use, one backend per
// implementation. A kernel is a template over its backend `P` and is written
// once; only these constructs differ between serial, locus, oneTBB and
// OpenMP, so the comparison is fair.
//
//   P::fork2(f, g)                     run f and g, possibly in parallel (recursion)
//   P::loop(lo, hi, grain, body)       body(lo', hi') over pieces of [lo, hi)
//   P::reduce(lo, hi, grain, body)     sum of body(lo', hi') over pieces (double)
//   P::region(fn)                      a region in which loops run: every
//                                      loop kernel puts its time-step loop in
//                                      one. OpenMP runs fn on every thread of
//                                      a team (SPMD) and loops are worksharing
//                                      loops; the others run fn once.
//   P::single(fn)                      inside a region: fn runs once, then all
//                                      threads continue (OpenMP: single + barrier)
//   P::run(fn)                         the entry of a recursive kernel. OpenMP
//                                      runs fn on one thread of a team, whose
//                                      other threads execute its tasks.
//
// Loop bodies must not depend on which thread runs them, and anything a
// region's threads all read after single() must be written in single().
#pragma once

#include <cstdint>
#include <utility>

namespace bench {

// region, single and run for implementations whose constructs need no team
// set up around them: each runs its function once, in place.
struct runs_in_place {
  template <class Fn>
  static void region(Fn&& fn) {
    fn();
  }
  template <class Fn>
  static void single(Fn&& fn) {
    fn();
  }
  template <class Fn>
  static void run(Fn&& fn) {
    fn();
  }
};

struct serial_backend : runs_in_place {
  template <class F, class G>
  static void fork2(F&& f, G&& g) {
    f();
    g();
  }
  template <class Body>
  static void loop(std::int64_t lo, std::int64_t hi, std::int64_t, Body&& body) {
    if (lo < hi) body(lo, hi);
  }
  template <class Body>
  static double reduce(std::int64_t lo, std::int64_t hi, std::int64_t, Body&& body) {
    return lo < hi ? body(lo, hi) : 0.0;
  }
};

}  // namespace bench
