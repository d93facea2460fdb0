// The check both heat benchmarks (heat, heat-graph) make against the serial
// grid: the stencil has no reductions and every cell is computed by the same
// expression whichever worker runs it, so the result must equal the serial
// one bit for bit. Returns "" or what differs.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace heat {

inline std::string grid_mismatch(const double* result, const std::vector<double>& reference, std::int64_t n) {
  if (result == nullptr) return "no result";
  const std::int64_t cells = n * n;
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t c = 0; c < cells; ++c)
    if (result[c] != reference[static_cast<std::size_t>(c)]) {
      if (first < 0) first = c;
      ++wrong;
    }
  if (wrong == 0) return "";
  std::ostringstream why;
  why.precision(17);
  why << wrong << " of " << cells << " cells differ from the serial result; first at row " << first / n
      << ", column " << first % n << ": " << result[first] << ", expected "
      << reference[static_cast<std::size_t>(first)];
  return why.str();
}

}  // namespace heat
