// fib through each construct, shared by the tests: the benchmark's kernel.
#pragma once

#define FIB_NAMESPACE test_support
#include "fib/fib_kernel.hpp"
#undef FIB_NAMESPACE
