// The user-API constructs' test programs (issue 45), written once and
// compiled twice: by test_user_api.cpp as they are, and by
// user_api_serial.cpp under LOCUS_SERIAL_ELISION, where each construct is
// plain calls. Each returns what the test compares with a serial answer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "locus/locus.hpp"

namespace user_api {
// Named after how the constructs compile (par or serial_elision), so the two
// translation units' inline functions are different functions (no ODR clash).
inline namespace LOCUS_CONSTRUCTS_NS {

inline long fib_by_join(int n) {
  if (n < 2) return n;
  auto [a, b] = locus::join([n] { return fib_by_join(n - 1); }, [n] { return fib_by_join(n - 2); });
  return a + b;
}

// parallel_invoke over 1..7 callables: each writes its own slot.
inline std::vector<int> invoke_slots() {
  std::vector<int> slots(28, 0);
  auto mark = [&](int first, int count) {
    for (int i = 0; i < count; ++i) slots[static_cast<std::size_t>(first + i)] = first + i + 1;
  };
  locus::parallel_invoke([&] { mark(0, 1); });
  locus::parallel_invoke([&] { mark(1, 1); }, [&] { mark(2, 1); });
  locus::parallel_invoke([&] { mark(3, 1); }, [&] { mark(4, 1); }, [&] { mark(5, 1); });
  locus::parallel_invoke([&] { mark(6, 1); }, [&] { mark(7, 1); }, [&] { mark(8, 1); }, [&] { mark(9, 1); },
                         [&] { mark(10, 1); }, [&] { mark(11, 1); }, [&] { mark(12, 1); });
  // Nested, with a callable that is an lvalue and one that is mutable.
  auto lvalue = [&] { mark(13, 5); };
  int calls = 0;
  locus::parallel_invoke(lvalue, [&, calls]() mutable { mark(18, 5 + calls++); },
                         [&] { locus::parallel_invoke([&] { mark(23, 2); }, [&] { mark(25, 3); }); });
  return slots;
}

// Which exception parallel_invoke and join rethrow: the leftmost's.
inline std::string invoke_error() {
  try {
    locus::parallel_invoke([] {}, [] { throw std::runtime_error("second"); }, [] {},
                           [] { throw std::runtime_error("fourth"); });
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "nothing thrown";
}

inline std::string join_error() {
  try {
    auto r = locus::join([]() -> int { throw std::runtime_error("left"); }, []() -> int { throw std::runtime_error("right"); });
    (void)r;
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "nothing thrown";
}

// join of move-only and non-default-constructible results.
struct no_default {
  explicit no_default(int v) : value(v) {}
  int value;
};

inline std::pair<std::string, int> join_kinds() {
  auto [text, nd] = locus::join([] { return std::string(100, 'x'); }, [] { return no_default{7}; });
  return {text, nd.value};
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace user_api
