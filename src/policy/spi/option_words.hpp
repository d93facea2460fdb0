// Policy settings that take one of two words (on/off, place/worker): one
// parser, so that every policy's error reads the same way.
#pragma once

#include <string>
#include <string_view>

#include "locus/errors.hpp"

namespace locus::detail {

// True for `yes`, false for `no`; anything else is a config_error naming
// the setting, the value and the two words accepted.
inline bool parse_either(std::string_view setting, std::string_view value, std::string_view yes,
                         std::string_view no) {
  if (value == yes) return true;
  if (value == no) return false;
  throw config_error(std::string(setting) + "=\"" + std::string(value) + "\": expected " + std::string(yes) + " or " +
                     std::string(no));
}

inline bool parse_on_off(std::string_view setting, std::string_view value) {
  return parse_either(setting, value, "on", "off");
}

}  // namespace locus::detail
