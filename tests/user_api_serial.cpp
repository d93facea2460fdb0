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

}  // namespace user_api::serial
