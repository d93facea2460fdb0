// The recursive row decomposition of the CATS benchmarks (seed 002,
// section 4: Heat, SOR, GE and their unbalanced variants), shared by
// bench/cats_heat, bench/sor and bench/ge:
//
//   bench::row_tree_step<P>(shape, lo, hi, leaf, body)
//
// runs body(a, b) on every leaf [a, b) of a tree over the rows [lo, hi), as
// one root task tree of its own (below). The shapes:
//
//   balanced     a range of more than `leaf` rows is halved with P::fork2
//                (the lower half first), down to leaves of at most `leaf`
//                rows: 1024 rows with leaf 8 are 128 leaves of 8 rows, 7
//                levels of binary forks.
//   unbalanced   Algorithm 1 of the paper (Heat-ub): heat(start, end) forks
//                heat2(start, mid) and heat(mid, end); heat2(start, end)
//                splits at quad = (end - start) / 4 into heat, heat, heat2,
//                heat on the four quarters (the last one takes the
//                remainder). The paper's 4-way spawn is two nested fork2:
//                fork2(fork2(q0, q1), fork2(q2, q3)). Either function runs a
//                range of at most `leaf` rows as a leaf; a range of fewer
//                than four rows (only with leaf < 3) has no quarters, and
//                heat2 hands it to heat.
//
// Every fork of either shape has two non-empty branches, so no leaf is
// empty; body runs the leaves in row order when P is serial.
//
// One root per call: every time step of a CATS benchmark calls
// row_tree_step once from the thread that runs the benchmark, so the
// runtime sees one root task tree per step, of the same shape every step
// (CATS profiles the first such tree and schedules the later ones by the
// spawn paths it saw). locus: the top P::fork2 (locus::fork_join) is called
// outside the pool and submits the whole tree as one root task; OpenMP:
// P::run opens a team for the step (its fork2 needs one); oneTBB and
// serial: in place (tbb::parallel_invoke from the arena's thread). `hi - lo`
// must exceed `leaf`, so that the top of the tree is a fork and every leaf
// runs inside the tree (the benchmarks check it).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/harness.hpp"

namespace bench {

enum class row_tree { balanced, unbalanced };

namespace row_tree_detail {

template <class P, class Body>
void halve(std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if (hi - lo <= leaf) return body(lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
  P::fork2([&] { halve<P>(lo, mid, leaf, body); }, [&] { halve<P>(mid, hi, leaf, body); });
}

template <class P, class Body>
void heat2(std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body);

// Algorithm 1's `heat`: two branches, the first one a `heat2`.
template <class P, class Body>
void heat(std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if (hi - lo <= leaf) return body(lo, hi);
  const std::int64_t mid = lo + (hi - lo) / 2;
  P::fork2([&] { heat2<P>(lo, mid, leaf, body); }, [&] { heat<P>(mid, hi, leaf, body); });
}

// Algorithm 1's `heat2`: four branches, the third one a `heat2`.
template <class P, class Body>
void heat2(std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if (hi - lo <= leaf) return body(lo, hi);
  const std::int64_t quad = (hi - lo) / 4;
  if (quad == 0) return heat<P>(lo, hi, leaf, body);
  const std::int64_t q1 = lo + quad, q2 = lo + 2 * quad, q3 = lo + 3 * quad;
  P::fork2(
      [&] { P::fork2([&] { heat<P>(lo, q1, leaf, body); }, [&] { heat<P>(q1, q2, leaf, body); }); },
      [&] { P::fork2([&] { heat2<P>(q2, q3, leaf, body); }, [&] { heat<P>(q3, hi, leaf, body); }); });
}

}  // namespace row_tree_detail

// body(a, b) on every leaf of the tree over [lo, hi), called as a tree of
// P::fork2 (no root of its own: for a tree nested in other parallel code).
template <class P, class Body>
void row_tree_run(row_tree shape, std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if (shape == row_tree::balanced) row_tree_detail::halve<P>(lo, hi, leaf, body);
  else row_tree_detail::heat<P>(lo, hi, leaf, body);
}

// The same tree as one root task tree of its own (see the top of the file).
template <class P, class Body>
void row_tree_step(row_tree shape, std::int64_t lo, std::int64_t hi, std::int64_t leaf, const Body& body) {
  if constexpr (std::is_same_v<P, locus_backend>) row_tree_run<P>(shape, lo, hi, leaf, body);
  else P::run([&] { row_tree_run<P>(shape, lo, hi, leaf, body); });
}

// The leaf cut-off: 8 rows at every size (seed 002 gives none; 8 rows of
// 512 doubles are 32 KiB of each grid).
inline std::int64_t leaf_rows(size_class s, params& p) {
  return p.get("leaf", 8, 8, 8, s, "rows per leaf of the row tree: larger ranges are split", {1});
}

// Throws std::invalid_argument unless `rows`, the range a benchmark's trees
// split (--param rows_key), exceeds `leaf`.
inline void check_rows_exceed_leaf(const std::string& benchmark, const std::string& rows_key, std::int64_t rows,
                                   std::int64_t leaf) {
  if (rows <= leaf)
    throw std::invalid_argument(benchmark + ": --param " + rows_key + "=" + std::to_string(rows) + " with leaf=" +
                                std::to_string(leaf) +
                                ": the rows must exceed the leaf, so that every time step's tree starts with a fork");
}

}  // namespace bench
