// ADWS distribution ranges (seed 003, section 3.1) as adws keeps them in a
// task's context, and the steal range word of section 3.2.
//
// Context words: policy[0] is the depth + 1, exact up to
// steal_word::max_depth (0: a root task, whose range
// is [0, P) and depth 0; also the deque tag, so thieves see the depth),
// policy[1] and policy[2] are x and y in fixed point with `frac` bits after
// the point, the most a 32-bit word holds for P workers (31 - floor(log2
// P): 30 for 2 workers, 25 for 56). The arithmetic is integer after one
// rounding per share, so the mapping is a pure function of the hints and P.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>

#include "locus/detail/frame.hpp"

namespace locus::detail {

struct range {
  std::uint64_t x, y;  // fixed point
  std::uint32_t depth;
};

class range_codec {
 public:
  explicit range_codec(int workers)
      : workers_(static_cast<std::uint32_t>(workers)),
        frac_(31u - static_cast<std::uint32_t>(std::bit_width(static_cast<std::uint32_t>(workers)) - 1)) {}

  range of(const task_context& c) const {
    if (c.policy[0] == 0) return whole();
    return {c.policy[1], c.policy[2], c.policy[0] - 1};
  }
  void store(task_context& c, const range& r) const {
    c.policy[0] = r.depth + 1;
    c.policy[1] = static_cast<std::uint32_t>(r.x);
    c.policy[2] = static_cast<std::uint32_t>(r.y);
  }
  // The whole range [0, P) at depth 0 (a root task's; ml-adws: a tied
  // group's, over the node's children).
  range whole() const { return {0, std::uint64_t{workers_} << frac_, 0}; }
  // floor of a fixed-point position: a worker (floor(y) may be P).
  std::uint32_t floor(std::uint64_t v) const { return static_cast<std::uint32_t>(v >> frac_); }
  // The worker a range belongs to: floor(x), within 0..P-1 (a zero-work
  // share at the very top has x = P).
  int owner(const range& r) const { return static_cast<int>(std::min(floor(r.x), workers_ - 1)); }
  bool cross_worker(const range& r) const { return floor(r.x) != floor(r.y); }
  // The part [lo, hi) (fractions of 0..1) of r.
  range part(const range& r, double lo, double hi) const {
    const double width = static_cast<double>(r.y - r.x);
    auto at = [&](double f) {
      return r.x + std::min(r.y - r.x, static_cast<std::uint64_t>(std::max(0.0, f) * width));
    };
    return {at(lo), at(hi), r.depth};
  }

 private:
  std::uint32_t workers_;
  std::uint32_t frac_;
};

// A worker's steal range (figure 11 lines 39-41): the integer bounds
// floor(x), floor(y) and the depth of the topmost dominant group that
// dominates it, in one word so thieves read it with one load: bounds in
// 16 bits each, the depth exact in 31 (max_depth; a policy refuses to go
// deeper rather than let two groups share a word, whose release by one
// would clear the other's).
struct steal_word {
  static constexpr std::uint32_t max_depth = 0x7fffffff;
  bool valid = false;
  std::uint32_t lo = 0, hi = 0, depth = 0;

  static steal_word from(std::uint64_t v) {
    return {(v >> 63) != 0, static_cast<std::uint32_t>(v & 0xffff), static_cast<std::uint32_t>((v >> 16) & 0xffff),
            static_cast<std::uint32_t>((v >> 32) & max_depth)};
  }
  // Gives `slot` this range unless it holds one of a group at most as
  // deep (the topmost dominant group wins, figure 11); whether it did.
  bool widen(std::atomic<std::uint64_t>& slot) const {
    const std::uint64_t word = pack();
    std::uint64_t cur = slot.load(std::memory_order_acquire);
    while (true) {
      const steal_word c = from(cur);
      if (c.valid && c.depth <= depth) return false;
      if (slot.compare_exchange_weak(cur, word, std::memory_order_acq_rel)) return true;
    }
  }
  std::uint64_t pack() const {
    return (std::uint64_t{1} << 63) | (std::uint64_t{depth & max_depth} << 32) | (std::uint64_t{hi & 0xffff} << 16) |
           (lo & 0xffff);
  }
};

}  // namespace locus::detail
