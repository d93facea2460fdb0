// What the programs shipped with locus share (locus-bench, fib, locus-demo,
// locus-topo, locus-sim-speed): a configuration or usage error becomes one
// line on stderr, "<program>: <what was wrong>", and exit status 2, never
// std::terminate. Part of locus::support (the programs' library, not the
// runtime's); header-only, over the public API.
//
// Usage errors are std::invalid_argument, the base class of
// locus::config_error, and their messages follow the library's: they name
// the flag or variable, the value and what is accepted, e.g.
//   --workers 100000: expected the number of workers, an integer from 1 to 4096
//   LOCUS_WORKERS="abc": expected the number of workers, an integer from 1 to 4096
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include <locus/errors.hpp>
#include <locus/runtime.hpp>

namespace locus_program {

// The runtime's largest worker count (LOCUS_WORKERS, docs/configuration.md),
// for the programs' own --workers flags.
inline constexpr int max_workers = 4096;

// Runs a program's main body. A locus::config_error (a bad LOCUS_* setting,
// thrown when the pool starts) or another std::invalid_argument (a bad flag)
// that escapes it is printed as one line and the program exits with 2.
// Anything else propagates, so a genuine failure still aborts with its
// diagnostics.
template <class Body>
int run(const char* program, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  }
}

// A value and where it came from: a flag ("--workers") or an environment
// variable ("LOCUS_WORKERS").
struct setting {
  std::string name;
  std::string value;

  // How the user wrote it: `--workers 3` or `LOCUS_WORKERS="3"`.
  std::string quoted() const {
    return name.rfind("--", 0) == 0 ? name + " " + value : name + "=\"" + value + "\"";
  }
  [[noreturn]] void reject(const std::string& accepted) const {
    throw std::invalid_argument(quoted() + ": " + accepted);
  }
};

// An environment variable, or nothing when it is unset or empty (as
// `LOCUS_X= prog` usually means).
inline std::optional<setting> from_env(const char* variable) {
  const char* v = std::getenv(variable);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return setting{variable, v};
}

// A flag that stands for a LOCUS_* variable the program would otherwise
// override: the flag if given, else the variable if set (so the variable is
// honoured, not silently dropped), else nothing. Both given with different
// values is a usage error naming both.
inline std::optional<setting> flag_or_env(const char* flag, const std::optional<std::string>& flag_value,
                                          const char* variable) {
  std::optional<setting> env = from_env(variable);
  if (!flag_value) return env;
  setting given{flag, *flag_value};
  if (env && env->value != given.value)
    throw std::invalid_argument(given.quoted() + " conflicts with " + env->quoted() +
                                ": give one of them (unset the variable or drop the flag)");
  return given;
}

// An integer from min to max, both included.
inline std::int64_t parse_integer(const setting& s, std::int64_t min, std::int64_t max, const std::string& meaning) {
  std::int64_t v = 0;
  const char* end = s.value.data() + s.value.size();
  const auto [ptr, ec] = std::from_chars(s.value.data(), end, v);
  if (s.value.empty() || ec != std::errc() || ptr != end || v < min || v > max)
    s.reject("expected " + meaning + ", an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return v;
}

// LOCUS_MACHINE or a --machine flag: a simulator preset or a readable
// machine file, checked here so that the error names what the user wrote.
inline void check_machine(const setting& m) {
  std::string names;
  for (const auto& preset : locus::available_machines()) {
    if (preset.name == m.value) return;
    names += (names.empty() ? "" : ", ") + preset.name;
  }
  std::error_code ignored;
  if (std::filesystem::is_regular_file(m.value, ignored)) return;
  m.reject("neither a machine preset nor a readable machine file; presets: " + names +
           ", or the path of a machine file (format in src/sim/README.md)");
}

}  // namespace locus_program
