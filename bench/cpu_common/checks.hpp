// Verification shared by the CPU-bound controls (queens, knapsack, ga,
// mandelbrot, fft): a run's result against the serial one (or a known
// value), exactly, and the instance whose result is one value.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <sstream>
#include <string>

#include "common/harness.hpp"

namespace cpu_common {

// "" if got and want hold the same bytes element for element (bit for bit:
// for doubles, -0.0 differs from 0.0 and a NaN equals itself), else the
// first element that differs. T must print with <<.
template <class T>
std::string first_difference(std::span<const T> got, std::span<const T> want, const char* reference) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " elements, " + reference + " " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
    std::ostringstream s;
    s.precision(17);
    s << "element " << i << " is " << got[i] << ", " << reference << " " << want[i];
    return s.str();
  }
  return "";
}

// A benchmark whose result is one value (a count, an optimum, a fitness),
// verified by equality with the expected one, in every round of a run
// (record() after each). prepare() forgets the previous run's results, so
// a run that records none fails.
template <class T>
class value_instance : public bench::instance {
 public:
  void prepare() override {
    result_.reset();
    wrong_.reset();
  }
  std::string verify() override {
    if (!problem_.empty()) return problem_;
    std::ostringstream s;
    s.precision(17);
    if (!result_) s << "the run recorded no " << what_;
    else if (wrong_) s << what_ << " = " << *wrong_ << " in a round, " << reference_ << " " << expected_;
    return s.str();
  }
  std::string summary() override {
    std::ostringstream s;
    s.precision(17);
    s << what_ << " " << (result_ ? *result_ : expected_);
    return s.str();
  }

 protected:
  // what: the result's name in messages ("solutions"); reference: where the
  // expected value comes from ("serial gives").
  value_instance(const char* what, const char* reference) : what_(what), reference_(reference) {}

  // A round's result: kept for the summary, and the first wrong one for
  // verify().
  void record(const T& value) {
    result_ = value;
    if (!(value == expected_) && !wrong_) wrong_ = value;
  }

  T expected_{};
  // Set by a constructor whose own check of the reference failed (e.g. the
  // serial count against a published one): every run then reports it.
  std::string problem_;

 private:
  std::optional<T> result_, wrong_;
  const char* what_;
  const char* reference_;
};

}  // namespace cpu_common
