// The simulator's fatal error: a misuse it cannot simulate (a touch that
// wraps around the address space, a wait off a virtual worker) ends the
// program with one line, "locus: simulator: <what>".
#pragma once

#include <cstdio>
#include <cstdlib>

namespace locus::detail::sim {

[[noreturn]] inline void fatal(const char* what) {
  std::fprintf(stderr, "locus: simulator: %s\n", what);
  std::abort();
}

}  // namespace locus::detail::sim
