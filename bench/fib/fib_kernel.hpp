// fib with no coarsening: every call above the leaves forks. This measures
// the cost of a fork and a join (NUMA-WS T_1/T_S), through fork_join, through
// task_group::spawn and through a parent-first spawn. Included by
// fib_parallel.cpp, fib_nocount.cpp, by fib_serial.cpp with
// LOCUS_SERIAL_ELISION, and by the tests (tests/support/fib.hpp); each names
// its own FIB_NAMESPACE.
#pragma once

#include <locus/locus.hpp>

namespace FIB_NAMESPACE {

inline long fib_fork_join(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib_fork_join(n - 1); }, [&] { b = fib_fork_join(n - 2); });
  return a + b;
}

inline long fib_spawn(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::task_group g;
  g.spawn([&] { a = fib_spawn(n - 1); });
  b = fib_spawn(n - 2);
  g.sync();
  return a + b;
}

inline long fib_parent_first(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::task_group g;
  g.spawn([&] { a = fib_parent_first(n - 1); }, locus::parent_first);
  b = fib_parent_first(n - 2);
  g.sync();
  return a + b;
}

}  // namespace FIB_NAMESPACE
