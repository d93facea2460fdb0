// Prefix sums with the std:: signatures (oneTBB's tbb::parallel_scan, as a
// function):
//
//   locus::inclusive_scan(first, last, d_first, op);        // d[i] = x[0] op ... op x[i]
//   locus::exclusive_scan(first, last, d_first, init, op);  // d[i] = init op x[0] op ... op x[i-1]
//
// op must be associative, not necessarily commutative: elements are always
// combined in their order. Both return d_first + (last - first); d_first
// may be first (in place). Random-access iterators.
//
// The work is divided for P workers into P + 1 blocks (Blelloch's
// reduce-then-scan, cut to what P workers need): block 0 is scanned while
// blocks 1..P-1 are reduced to their sums, the prefixes before each block
// follow in order (P steps), then blocks 1..P are scanned from their
// prefixes. That reads the input about twice, for a time of about
// 2n / (P + 1) element steps: 1.5x a serial scan at 2 workers, at best.
// Short ranges (fewer than serial_below elements per block) run serially.
//
// Under LOCUS_SERIAL_ELISION, and on one worker, a plain serial scan.
// An exception thrown by op propagates (the output is then unspecified).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "locus/parallel.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_scan {

inline constexpr std::ptrdiff_t serial_below = 4096;  // elements per block, at least

// Scans [first, last) into out from `carry` (the sum of everything before;
// none for the start of an inclusive scan), returns the carry after.
template <bool Inclusive, class In, class Out, class T, class Op>
T scan_block(In first, In last, Out out, std::optional<T> carry, Op& op) {
  for (; first != last; ++first, ++out) {
    if constexpr (Inclusive) {
      carry = carry ? op(std::move(*carry), *first) : T(*first);
      *out = *carry;
    } else {
      *out = *carry;
      carry = op(std::move(*carry), *first);
    }
  }
  return std::move(*carry);
}

template <class In, class T, class Op>
T reduce_block(In first, In last, Op& op) {
  T sum(*first);
  for (++first; first != last; ++first) sum = op(std::move(sum), *first);
  return sum;
}

template <bool Inclusive, class In, class Out, class T, class Op>
Out scan(In first, In last, Out d_first, std::optional<T> init, Op& op) {
  static_assert(std::random_access_iterator<In> && std::random_access_iterator<Out>,
                "locus::inclusive_scan and exclusive_scan need random-access iterators");
  const std::ptrdiff_t n = last - first;
  if (n <= 0) return d_first;
#ifdef LOCUS_SERIAL_ELISION
  const std::ptrdiff_t workers = 1;
#else
  const std::ptrdiff_t workers = num_workers();
#endif
  const std::ptrdiff_t blocks = std::min<std::ptrdiff_t>(workers + 1, n / serial_below);
  if (workers == 1 || blocks < 3) {
    scan_block<Inclusive>(first, last, d_first, std::move(init), op);
    return d_first + n;
  }
  auto start = [&](std::ptrdiff_t b) { return b * n / blocks; };
  // Block 0 scanned, blocks 1..blocks-2 reduced, side by side.
  std::vector<std::optional<T>> sums(static_cast<std::size_t>(blocks));
  parallel_for(std::ptrdiff_t{0}, blocks - 1, 1, [&](std::int64_t b) {
    auto& slot = sums[static_cast<std::size_t>(b)];
    if (b == 0)
      slot = scan_block<Inclusive>(first, first + start(1), d_first, init, op);  // the carry after block 0
    else
      slot = reduce_block<In, T>(first + start(b), first + start(b + 1), op);
  });
  // sums[b] becomes the carry before block b + 1, in order.
  for (std::size_t b = 1; b + 1 < sums.size(); ++b) sums[b] = op(std::move(*sums[b - 1]), std::move(*sums[b]));
  parallel_for(std::ptrdiff_t{1}, blocks, 1, [&](std::int64_t b) {
    scan_block<Inclusive>(first + start(b), first + start(b + 1), d_first + start(b),
                          std::optional<T>(*sums[static_cast<std::size_t>(b - 1)]), op);
  });
  return d_first + n;
}

}  // namespace detail_scan

template <class In, class Out, class Op = std::plus<>>
Out inclusive_scan(In first, In last, Out d_first, Op op = Op{}) {
  using T = std::iter_value_t<In>;
  return detail_scan::scan<true>(first, last, d_first, std::optional<T>(), op);
}

template <class In, class Out, class T, class Op = std::plus<>>
Out exclusive_scan(In first, In last, Out d_first, T init, Op op = Op{}) {
  return detail_scan::scan<false>(first, last, d_first, std::optional<T>(std::move(init)), op);
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
