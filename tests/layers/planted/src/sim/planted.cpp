// A back-arrow planted for the layering test's own test (tests/CMakeLists.txt,
// layering_catches_back_arrow): the simulator's models may not include the core.
#include "sim/planted.hpp"
#include "core/worker.hpp"
