// A task graph compiled as its serial elision (LOCUS_SERIAL_ELISION): every
// construct is a plain call, so one program can hold it beside the
// parallel version of the same code (test_task_graph).
#define LOCUS_SERIAL_ELISION
#include <vector>

#include "locus/locus.hpp"

namespace {
std::vector<int> g_order;
}

std::vector<int> serial_elision_order() {
  g_order.clear();
  auto g = locus::make_task_graph<int>(
      [](int k) { return k >= 2 ? std::vector<int>{k - 1, k - 2} : std::vector<int>{}; },
      [](int k) { g_order.push_back(k); }, [](int k) { return k % 2; });
  g.run(10);
  return g_order;
}
