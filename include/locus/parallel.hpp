// Loops built on fork_join.
//
//   locus::parallel_for(0, n, 1024, [&](std::int64_t i) { a[i] = f(i); });
//   locus::parallel_for(0, n, 1024, [&](std::int64_t lo, std::int64_t hi) { ... });
//   double s = locus::parallel_reduce(0, n, 1024, 0.0,
//       [&](std::int64_t lo, std::int64_t hi, double acc) { ... return acc; },
//       std::plus<>());
//
// The range [begin, end) is split in halves until a piece has at most `grain`
// iterations; pieces run left to right in the serial elision. An empty or
// reversed range runs nothing. grain must be at least 1.
//
// The reduce body takes (lo, hi, acc) and returns acc folded with the
// sub-range; combine(left, right) joins two partial results and must be
// associative; identity must be its neutral element.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/fork_join.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_loop {

inline void check_grain(std::int64_t grain, const char* who) {
  if (grain < 1)
    throw std::invalid_argument(std::string(who) + ": grain must be >= 1 (iterations per leaf), got " +
                                std::to_string(grain));
}

template <class Body>
void run_leaf(Body& body, std::int64_t lo, std::int64_t hi) {
  if constexpr (std::is_invocable_v<Body&, std::int64_t, std::int64_t>) {
    body(lo, hi);
  } else {
    static_assert(std::is_invocable_v<Body&, std::int64_t>,
                  "locus::parallel_for body must take (index) or (lo, hi)");
    for (std::int64_t i = lo; i < hi; ++i) body(i);
  }
}

template <class Body>
void split_for(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body& body) {
  if (hi - lo <= grain) return run_leaf(body, lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
  fork_join([&] { split_for(lo, mid, grain, body); }, [&] { split_for(mid, hi, grain, body); });
}

template <class T, class Body, class Combine>
T split_reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, const T& identity, Body& body,
               Combine& combine) {
  if (hi - lo <= grain) return body(lo, hi, T(identity));
  const std::int64_t mid = lo + (hi - lo) / 2;
  T left = identity;
  T right = identity;
  fork_join([&] { left = split_reduce(lo, mid, grain, identity, body, combine); },
            [&] { right = split_reduce(mid, hi, grain, identity, body, combine); });
  return combine(std::move(left), std::move(right));
}

}  // namespace detail_loop

template <class Index, class Body>
void parallel_for(Index begin, Index end, std::int64_t grain, Body&& body) {
  static_assert(std::is_integral_v<Index>, "locus::parallel_for takes an integer range");
  detail_loop::check_grain(grain, "locus::parallel_for");
  const auto lo = static_cast<std::int64_t>(begin);
  const auto hi = static_cast<std::int64_t>(end);
  if (hi <= lo) return;
  detail_loop::split_for(lo, hi, grain, body);
}

template <class Index, class T, class Body, class Combine>
T parallel_reduce(Index begin, Index end, std::int64_t grain, T identity, Body&& body, Combine&& combine) {
  static_assert(std::is_integral_v<Index>, "locus::parallel_reduce takes an integer range");
  static_assert(std::is_invocable_r_v<T, Body&, std::int64_t, std::int64_t, T>,
                "locus::parallel_reduce body must be T(lo, hi, T acc)");
  detail_loop::check_grain(grain, "locus::parallel_reduce");
  const auto lo = static_cast<std::int64_t>(begin);
  const auto hi = static_cast<std::int64_t>(end);
  if (hi <= lo) return identity;
  return detail_loop::split_reduce(lo, hi, grain, identity, body, combine);
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
