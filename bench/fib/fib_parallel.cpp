#define FIB_NAMESPACE fib_parallel
#include "fib_kernel.hpp"

long parallel_fib_fork_join(int n) { return fib_parallel::fib_fork_join(n); }
long parallel_fib_spawn(int n) { return fib_parallel::fib_spawn(n); }
long parallel_fib_parent_first(int n) { return fib_parallel::fib_parent_first(n); }
