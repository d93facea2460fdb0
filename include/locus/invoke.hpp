// Several callables at once, and two results at once.
//
//   locus::parallel_invoke(f1, f2, f3);          // oneTBB's tbb::parallel_invoke
//   auto [a, b] = locus::join(f, g);             // rayon's join: both results
//
// parallel_invoke runs every callable, possibly in parallel, and returns when
// all are done. It splits the list in halves with fork_join, so n callables
// cost n - 1 forks and the serial order is f1, f2, ..., fn. join runs f and
// g as fork_join does and returns {f(), g()}.
//
// Exceptions, as fork_join has them: every callable runs; if some throw,
// the exception of the leftmost one that threw is rethrown once all are
// done. Under LOCUS_SERIAL_ELISION both are plain calls in order.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "locus/fork_join.hpp"

namespace locus {
inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_invoke {
// Callables [Lo, Hi) of the tuple, the first half forked from the second.
template <std::size_t Lo, std::size_t Hi, class Callables>
void invoke_range(Callables& fs) {
  if constexpr (Hi - Lo == 1) {
    std::invoke(std::get<Lo>(fs));
  } else {
    constexpr std::size_t mid = Lo + (Hi - Lo) / 2;
    fork_join([&fs] { invoke_range<Lo, mid>(fs); }, [&fs] { invoke_range<mid, Hi>(fs); });
  }
}
}  // namespace detail_invoke

template <class... F>
void parallel_invoke(F&&... fs) {
  static_assert(sizeof...(F) >= 1, "locus::parallel_invoke needs at least one callable");
  static_assert((std::is_invocable_v<F&> && ...), "locus::parallel_invoke: every argument must be callable with no arguments");
  auto callables = std::forward_as_tuple(fs...);  // references to the caller's callables
  detail_invoke::invoke_range<0, sizeof...(F)>(callables);
}

template <class F, class G>
auto join(F&& f, G&& g) -> std::pair<std::invoke_result_t<F&>, std::invoke_result_t<G&>> {
  using A = std::invoke_result_t<F&>;
  using B = std::invoke_result_t<G&>;
  static_assert(!std::is_void_v<A> && !std::is_void_v<B>,
                "locus::join returns both results: each callable must return a value "
                "(locus::fork_join runs callables that return nothing)");
  static_assert(!std::is_reference_v<A> && !std::is_reference_v<B>,
                "locus::join returns its results by value: a callable returning a reference would be copied "
                "silently; return a value, or a pointer or std::reference_wrapper");
  std::optional<A> a;
  std::optional<B> b;
  fork_join([&] { a.emplace(std::invoke(f)); }, [&] { b.emplace(std::invoke(g)); });
  return {std::move(*a), std::move(*b)};
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
