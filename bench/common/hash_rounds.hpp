// The synthetic work of the overhead benchmarks (pipeline, graph-overhead,
// enqueue, arena): `rounds` rounds of an integer hash of v, so that a stage,
// node or task does an exact, checkable amount of work (none with 0 rounds).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace bench {

inline std::uint64_t hash_rounds(std::uint64_t v, std::int64_t rounds) {
  for (std::int64_t r = 0; r < rounds; ++r) v = (v ^ (v >> 29)) * 0xbf58476d1ce4e5b9ULL + 0x9e3779b97f4a7c15ULL;
  return v;
}

// The checksum of `rounds` times `tasks` tasks, task i adding
// hash_rounds(i, work) from any thread, against the serial sum.
class task_checksum {
 public:
  task_checksum(std::int64_t tasks, std::int64_t rounds, std::int64_t work) : work_(work) {
    for (std::int64_t r = 0; r < rounds; ++r)
      for (std::int64_t i = 0; i < tasks; ++i) expected_ += hash_rounds(static_cast<std::uint64_t>(i), work_);
  }
  void reset() { sum_ = 0; }
  void add(std::int64_t i) { sum_.fetch_add(hash_rounds(static_cast<std::uint64_t>(i), work_), std::memory_order_relaxed); }
  // "" if the sum is the serial one, else what it is.
  std::string verify() const {
    const std::uint64_t got = sum_.load();
    return got == expected_ ? "" : "checksum " + std::to_string(got) + ", expected " + std::to_string(expected_);
  }

 private:
  std::int64_t work_;
  std::uint64_t expected_ = 0;
  std::atomic<std::uint64_t> sum_{0};
};

}  // namespace bench
