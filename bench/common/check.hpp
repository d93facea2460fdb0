// Comparing a benchmark's output with its reference.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

// "" if got equals want element by element, else the first difference.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want, const char* reference) {
  if (got.size() != want.size())
    return "output has " + std::to_string(got.size()) + " elements, " + reference + " " + std::to_string(want.size());
  const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin());
  if (g == got.end()) return "";
  std::ostringstream s;
  s.precision(17);
  s << "element " << g - got.begin() << " is " << *g << ", " << reference << " " << *w;
  return s.str();
}

}  // namespace bench
