#define LOCUS_SERIAL_ELISION
#define FIB_NAMESPACE fib_serial
#include "fib_kernel.hpp"

long serial_fib_fork_join(int n) { return fib_serial::fib_fork_join(n); }
long serial_fib_spawn(int n) { return fib_serial::fib_spawn(n); }

// The plain function a programmer would write, for reference.
long plain_fib(int n) { return n < 2 ? n : plain_fib(n - 1) + plain_fib(n - 2); }
long serial_fib_parent_first(int n) { return fib_serial::fib_parent_first(n); }
