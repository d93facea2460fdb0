// A benchmark that rewrites one array in place (a sort, a repeated map): it
// keeps the input, restores the working copy before every run and compares
// it with the expected output after.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/harness.hpp"

namespace bench {

// n doubles uniform in [lo, hi) from a fixed seed: the same input every run.
inline std::vector<double> random_doubles(std::int64_t n, std::uint64_t seed, double lo, double hi) {
  std::vector<double> out(static_cast<std::size_t>(n));
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(lo, hi);
  for (auto& x : out) x = uniform(random);
  return out;
}

template <class T>
class array_instance : public instance {
 public:
  void prepare() override { std::copy(input_.begin(), input_.end(), data_.begin()); }

  // "" if the array equals the expected one, else its first difference.
  std::string verify() override {
    const auto [got, want] = std::mismatch(data_.begin(), data_.end(), expected_.begin());
    if (got == data_.end()) return "";
    std::ostringstream s;
    s.precision(17);
    s << "element " << got - data_.begin() << " is " << *got << ", " << reference_ << " " << *want;
    return s.str();
  }

 protected:
  // The derived constructor turns expected_ (a copy of the input) into the
  // expected output; `reference` names where it comes from in messages.
  array_instance(std::vector<T> input, const char* reference)
      : input_(std::move(input)), data_(input_), expected_(input_), reference_(reference) {}

  std::vector<T> input_, data_, expected_;

 private:
  const char* reference_;
};

}  // namespace bench
