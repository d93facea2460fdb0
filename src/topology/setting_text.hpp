// Text helpers of the topology settings' parsers (LOCUS_TOPOLOGY,
// LOCUS_PLACES): trimming, splitting, whole-string numbers, and the one
// shape every rejection takes.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "locus/errors.hpp"

namespace locus::detail::setting_text {

// Every config_error reads `SETTING="value": what is wrong / accepted`, so a
// user can find the variable to fix and see what to put there instead.
[[noreturn]] inline void reject(std::string_view setting, std::string_view value,
                         std::string_view message) {
  std::string text;
  text.append(setting).append("=\"").append(value).append("\": ").append(message);
  throw config_error(text);
}

inline std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = s.find(separator);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// The whole of `s` must be digits: from_chars stops quietly at the first
// non-digit, and "16x" or "4abc" must be reported, not read as 16 and 4.
inline bool parse_unsigned(std::string_view s, std::uint64_t& value) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
}

inline bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace locus::detail::setting_text
