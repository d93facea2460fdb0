// Parsing a setting's value (parse_setting.hpp).
#include "util/parse_setting.hpp"

#include <charconv>
#include <cmath>
#include <exception>
#include <sstream>
#include <string>

#include "locus/errors.hpp"

namespace locus::detail {

void reject_setting(std::string_view setting, std::string_view value, std::string_view accepted) {
  std::ostringstream msg;
  msg << setting << "=\"" << value << "\": " << accepted;
  throw config_error(msg.str());
}

long long parse_integer(std::string_view setting, std::string_view text, long long min, long long max,
                        std::string_view meaning) {
  long long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  std::ostringstream accepted;
  accepted << "expected " << meaning << ", an integer from " << min << " to " << max;
  if (text.empty() || ec != std::errc() || ptr != end || v < min || v > max)
    reject_setting(setting, text, accepted.str());
  return v;
}

double parse_real(std::string_view setting, std::string_view text, double min, double max,
                  std::string_view accepted) {
  const std::string s(text);
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(v) || v < min || v > max) reject_setting(setting, text, accepted);
  return v;
}

std::size_t parse_byte_size(std::string_view setting, std::string_view text, std::size_t min,
                            std::size_t max) {
  std::ostringstream accepted;
  accepted << "expected a size in bytes with an optional K, M or G suffix (binary), from " << min << " to "
           << max << ", e.g. 512K";
  if (text.empty()) reject_setting(setting, text, accepted.str());
  std::size_t scale = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 'k': case 'K': scale = std::size_t{1} << 10; digits.remove_suffix(1); break;
    case 'm': case 'M': scale = std::size_t{1} << 20; digits.remove_suffix(1); break;
    case 'g': case 'G': scale = std::size_t{1} << 30; digits.remove_suffix(1); break;
    default: break;
  }
  unsigned long long v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
      v > max / scale || v * scale < min || v * scale > max)
    reject_setting(setting, text, accepted.str());
  return static_cast<std::size_t>(v * scale);
}

}  // namespace locus::detail
