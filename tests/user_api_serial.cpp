// The user-API programs as their serial elision (LOCUS_SERIAL_ELISION):
// plain calls, beside the parallel versions (test_user_api.cpp).
#define LOCUS_SERIAL_ELISION
#include "user_api_kernels.hpp"
#include "user_api_serial.hpp"

namespace user_api::serial {

long fib_by_join(int n) { return user_api::fib_by_join(n); }
std::vector<int> invoke_slots() { return user_api::invoke_slots(); }
std::string invoke_error() { return user_api::invoke_error(); }
std::string join_error() { return user_api::join_error(); }
std::string sort_problems() { return user_api::sort_problems(); }
std::string scan_problems() { return user_api::scan_problems(); }
user_api::cancel_counts cancellation_counts() { return user_api::cancellation_counts(); }
double deterministic_sum() { return user_api::deterministic_sum(); }
std::vector<long> combinable_counts() { return user_api::combinable_counts(); }
std::vector<long> loops_over_containers() { return user_api::loops_over_containers(); }
std::vector<long> loop_2d(long rows, long cols, long row_grain, long col_grain) {
  return user_api::loop_2d(rows, cols, row_grain, col_grain);
}

}  // namespace user_api::serial
