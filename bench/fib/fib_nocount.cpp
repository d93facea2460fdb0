// The parallel kernel without the fast-path spawn counter, to measure what
// the counter costs.
#define LOCUS_NO_SPAWN_COUNTER
#define FIB_NAMESPACE fib_nocount
#include "fib_kernel.hpp"

long nocount_fib_fork_join(int n) { return fib_nocount::fib_fork_join(n); }
long nocount_fib_spawn(int n) { return fib_nocount::fib_spawn(n); }
