// Parsing a setting's value (an environment variable, a runtime_options
// field, a policy option): integers, real numbers and byte sizes. Each error is a
// locus::config_error that names the setting, the value and what is
// accepted, e.g. LOCUS_STACK_SIZE="12Q": expected a size in bytes ...
// Shared by the settings (core/config.cpp), the policies' options and the
// tools.
#pragma once

#include <cstddef>
#include <string_view>

namespace locus::detail {

// Throws config_error: `<setting>="<value>": <accepted>`.
[[noreturn]] void reject_setting(std::string_view setting, std::string_view value, std::string_view accepted);

// An integer from min to max, both included; `meaning` says what it counts.
long long parse_integer(std::string_view setting, std::string_view text, long long min, long long max,
                        std::string_view meaning);
// A finite number from min to max, both included; `accepted` says what is.
double parse_real(std::string_view setting, std::string_view text, double min, double max,
                  std::string_view accepted);
// A size in bytes with an optional K, M or G suffix (binary), from min to max.
std::size_t parse_byte_size(std::string_view setting, std::string_view text, std::size_t min,
                            std::size_t max);

}  // namespace locus::detail
