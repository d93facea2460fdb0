// fib with no coarsening: every call above the leaves forks. This measures
// the cost of a fork and a join (NUMA-WS T_1/T_S), through fork_join and
// through task_group::spawn. Included by fib_parallel.cpp and, with
// LOCUS_SERIAL_ELISION, by fib_serial.cpp.
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

}  // namespace FIB_NAMESPACE
