// The message of the exception that `call` throws, or a test failure if it
// throws none: for tests that check what an error says.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace test_support {

template <class Exception = std::exception, class Fn>
std::string message_of(Fn call) {
  try {
    call();
  } catch (const Exception& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace test_support
