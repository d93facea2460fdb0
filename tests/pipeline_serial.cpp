// A pipeline compiled as its serial elision (LOCUS_SERIAL_ELISION): a plain
// loop, beside the parallel version of the same code (test_pipeline).
#define LOCUS_SERIAL_ELISION
#include <string>
#include <vector>

#include "locus/locus.hpp"

// Every stage's calls in the order they happened: item i passes every
// stage before item i + 1 is made.
std::vector<std::string> serial_elision_pipeline_log() {
  std::vector<std::string> log;
  int next = 0;
  locus::pipeline(4, locus::make_stage<void, int>(locus::stage_mode::serial_in_order,
                                                  [&](locus::flow_control& fc) {
                                                    if (next == 3) fc.stop();
                                                    log.push_back("make " + std::to_string(next));
                                                    return next++;
                                                  }) &
                         locus::make_stage<int, int>(locus::stage_mode::parallel,
                                                     [&](int v) {
                                                       log.push_back("double " + std::to_string(v));
                                                       return 2 * v;
                                                     }) &
                         locus::make_stage<int, void>(locus::stage_mode::serial_in_order, [&](int v) {
                           log.push_back("take " + std::to_string(v));
                         }));
  return log;
}
