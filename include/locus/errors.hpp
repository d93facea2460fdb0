// Errors the runtime reports to the program.
#pragma once

#include <stdexcept>

namespace locus {

// A setting (environment variable or runtime option) has a value locus does
// not accept. what() names the setting, the value, and what is accepted.
struct config_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace locus
