// Named selections of cells (locus-bench --suite NAME): which benchmarks,
// which variants of each, which worker counts and how many rounds.
#pragma once

#include <string>
#include <vector>

namespace bench {

struct suite {
  struct entry {
    std::string benchmark;
    std::vector<std::string> variants;  // as --variants takes them
  };
  std::string name;
  std::string summary;         // one line for --help
  std::vector<entry> entries;  // empty: every benchmark, every variant that applies
  bool one_and_most = false;   // workers 1 and the number of cores (else 1, 2, ..., cores)
  int reps = 5, warmup = 1;    // unless --reps and --warmup are given
};

// The presets, in the order --help lists them.
const std::vector<suite>& suites();
// The preset called `name`, or nullptr.
const suite* find_suite(const std::string& name);

}  // namespace bench
