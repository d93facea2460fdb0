// Work hints (ADWS, figure 2b): how much work a task group's
// children carry, and how much data the group touches.
//
//   locus::task_group g(locus::work(total));            // total work of the children
//   g.spawn(left, locus::work(w_left));                  // each child's share
//   g.spawn(right, locus::work(w_right));
//   g.sync();
//
//   locus::fork_join(locus::with(f, locus::work(a)), locus::with(g, locus::work(b)));
//
//   locus::task_group h(locus::work(total), locus::footprint(bytes));
//
// Only the ratios matter (w_i / total), not the unit. The adws policy maps
// children onto workers in proportion to them (docs/usage.md, "Work
// hints"); every other policy ignores them: a hinted spawn is the unhinted
// spawn plus the hint's stores, and the serial elision drops them.
// Without hints the paper guesses that every child of a group has the same
// work (section 6.4). A binary fork_join without hints splits 1:1, and
// parallel_for and parallel_reduce pass work in proportion to iterations
// themselves. In a task group given its total, a child without a hint
// counts 1, so n unhinted children of task_group g(locus::work(n)) get
// equal shares. A task group without a total does not know how many
// children it has before its sync, and a child's share is needed at its
// spawn (figure 7 lines 21-26 place it then): such a child takes half of
// what its group has left (ours: the 1:1 guess between it and the rest).
//
// footprint(bytes) is the group's working-set size, for the multi-level
// policies of the paper (sections 4 to 6): ml-ws and ml-adws tie a group
// that fits a cache to it, sb anchors it there. fork_join branches and
// parallel_for take one too (locus::with, docs/usage.md).
//
// A work hint must be finite and >= 0 (std::invalid_argument otherwise).
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

namespace locus {

struct work_hint {
  double value;
};
struct footprint_hint {
  std::size_t bytes;
};

namespace detail {
// How many of Hints are T (the constructs accept each kind of hint once).
template <class T, class... Hints>
inline constexpr int count_of = (0 + ... + int{std::is_same_v<T, Hints>});

// Throws std::invalid_argument naming w and what is accepted (out of line:
// the message needs <string>, which this header does not pull in).
[[noreturn]] void bad_work_hint(double w);
}  // namespace detail

// The work of a task, or the total work of a task group's children.
inline work_hint work(double w) {
  if (!(w >= 0 && w <= std::numeric_limits<double>::max())) [[unlikely]] detail::bad_work_hint(w);  // NaN, < 0, inf
  return {w};
}

// The working-set size of a task group, in bytes.
constexpr footprint_hint footprint(std::size_t bytes) noexcept { return {bytes}; }

}  // namespace locus
