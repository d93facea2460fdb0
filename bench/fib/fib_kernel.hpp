// fib with no coarsening: every call above the leaves forks. This measures
// the cost of a fork and a join (NUMA-WS T_1/T_S), through fork_join, through
// task_group::spawn and through a parent-first spawn. Included by
// fib_parallel.cpp, fib_nocount.cpp, by fib_serial.cpp with
// LOCUS_SERIAL_ELISION, and by the tests (tests/support/fib.hpp); each names
// its own FIB_NAMESPACE.
//
// For the simulator (fib_cost.hpp) a call at or above fib_cost::bulk
// declares its own cycles, and a call below it the cycles of its whole
// subtree, which then runs as the `declared` instance: the calls in it
// declare nothing.
//
// The serial elision declares nothing. Without side effects it is a pure
// function, which GCC unrolls and whose calls with equal arguments it merges
// (so it makes fewer calls than the tree has, and runs 2 to 3 times faster
// than the plain function); any declaration in it, even one at the root,
// changes what GCC makes of it, by 20% to 100% in instructions in either
// direction. It runs on the calling thread, off the pool, where declarations
// are ignored anyway; the suite's serial variant (case.cpp) declares.
#pragma once

#include <locus/locus.hpp>

#include "fib_cost.hpp"

namespace FIB_NAMESPACE {

#ifdef LOCUS_SERIAL_ELISION
inline constexpr bool declares = false;
#else
inline constexpr bool declares = true;
#endif

template <bool declared = false>
inline long fib_fork_join(int n) {
  if constexpr (declares && !declared) {
    if (n < fib_cost::bulk) {
      locus::compute(fib_cost::tree_cycles(n));
      return fib_fork_join<true>(n);
    }
    locus::compute(fib_cost::cycles_per_call);
  }
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib_fork_join<declared>(n - 1); }, [&] { b = fib_fork_join<declared>(n - 2); });
  return a + b;
}

template <bool declared = false>
inline long fib_spawn(int n) {
  if constexpr (declares && !declared) {
    if (n < fib_cost::bulk) {
      locus::compute(fib_cost::tree_cycles(n));
      return fib_spawn<true>(n);
    }
    locus::compute(fib_cost::cycles_per_call);
  }
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::task_group g;
  g.spawn([&] { a = fib_spawn<declared>(n - 1); });
  b = fib_spawn<declared>(n - 2);
  g.sync();
  return a + b;
}

template <bool declared = false>
inline long fib_parent_first(int n) {
  if constexpr (declares && !declared) {
    if (n < fib_cost::bulk) {
      locus::compute(fib_cost::tree_cycles(n));
      return fib_parent_first<true>(n);
    }
    locus::compute(fib_cost::cycles_per_call);
  }
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::task_group g;
  g.spawn([&] { a = fib_parent_first<declared>(n - 1); }, locus::parent_first);
  b = fib_parent_first<declared>(n - 2);
  g.sync();
  return a + b;
}

}  // namespace FIB_NAMESPACE
