// The serial elision's versions of user_api_kernels.hpp's programs
// (user_api_serial.cpp), callable from a parallel translation unit.
#pragma once

#include <string>
#include <vector>

namespace user_api::serial {

long fib_by_join(int n);
std::vector<int> invoke_slots();
std::string invoke_error();
std::string join_error();

}  // namespace user_api::serial
