// What one run of each benchmark costs at its quick size on the reference
// machine, for the estimate of the time left (progress.hpp). Measured with
// PLACEHOLDER.
#include "runner/progress.hpp"

namespace bench {

const std::map<std::string, cost_hint>& cost_hints() {
  static const std::map<std::string, cost_hint> hints = {
  };
  return hints;
}

}  // namespace bench
