// The serial elision's versions of user_api_kernels.hpp's programs
// (user_api_serial.cpp), callable from a parallel translation unit.
#pragma once

#include <string>
#include <vector>

namespace user_api {
struct cancel_counts;
}

namespace user_api::serial {

long fib_by_join(int n);
std::vector<int> invoke_slots();
std::string invoke_error();
std::string join_error();
std::vector<long> loops_over_containers();
std::vector<long> combinable_counts();
double deterministic_sum();
user_api::cancel_counts cancellation_counts();
std::string sort_problems();
std::string scan_problems();
std::vector<long> loop_2d(long rows, long cols, long row_grain, long col_grain);

}  // namespace user_api::serial
