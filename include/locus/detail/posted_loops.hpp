// The posted loops of locus/partition.hpp: static partitions and loop
// affinity. Each sub-range is a loop_piece, posted to its worker's inbox as
// a parent-first child of one group (post_child); the caller runs its own
// sub-ranges inline and then syncs the group. Sub-ranges that cannot be
// posted (a full inbox) also run inline. Only the parallel build uses this;
// the serial elision runs the whole range in order.
#pragma once

#include <cstdint>
#include <exception>
#include <vector>

#include "locus/detail/span_hooks.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/partition.hpp"
#include "locus/runtime.hpp"

namespace locus::detail {

// Runs the group's posted children to completion and rethrows the first
// exception any sub-range threw (the caller's own included).
inline void finish_posted(group_state& g, std::exception_ptr own_error) {
  if (g.stolen) sync_group(g);
  g.stolen = false;
  if (own_error) std::rethrow_exception(own_error);
  if (g.has_error()) std::rethrow_exception(g.error);
}

// A posted loop's run(index, lo, hi): index is the sub-range's position in
// the loop (for reductions, which keep one partial result per sub-range).
template <class Run>
void run_piece_range(void* run, std::size_t index, std::int64_t lo, std::int64_t hi) {
  (*static_cast<Run*>(run))(index, lo, hi);
}

inline void invoke_piece(parent_first_job* base) {
  auto* p = static_cast<loop_piece*>(base);
  p->ran_on = current_worker()->id;
  try {
    p->run_range(p->loop, p->index, p->lo, p->hi);
  } catch (...) {
    p->group->record_error(std::current_exception());
  }
}

// Sets up piece p of a posted loop over `run`, in group g.
template <class Run>
void prepare_piece(loop_piece& p, group_state& g, Run& run, std::size_t index, std::int64_t lo, std::int64_t hi) {
  p.run = &run_parent_first_job;
  p.kind = frame_kind::job;
  p.ctx = current_worker()->ctx;
  p.group = &g;
  p.invoke = &invoke_piece;
  p.loop = &run;
  p.run_range = &run_piece_range<Run>;
  p.index = index;
  p.lo = lo;
  p.hi = hi;
  p.ran_on = -1;
}

// Posts the pieces whose worker is not the caller; runs the caller's own
// (and any that could not be posted) inline, in order; waits for all.
// LOCUS_SPAN (span_hooks.hpp): every sub-range here, each a timed child.
[[gnu::noinline]] inline void run_pieces_measured(loop_piece* pieces, std::size_t n, group_state& g) {
  std::exception_ptr own_error;
  for (std::size_t i = 0; i < n; ++i) {
    pieces[i].posted = false;
    pieces[i].ran_on = current_worker()->id;
    std::exception_ptr e =
        run_span_child([&] { pieces[i].run_range(pieces[i].loop, i, pieces[i].lo, pieces[i].hi); }, span_steal::child);
    if (e && !own_error) own_error = e;
  }
  span_sync();
  finish_posted(g, own_error);
}

// owner_only: each piece runs on its target worker and no other (static).
inline void run_pieces(loop_piece* pieces, const std::int32_t* target, std::size_t n, group_state& g,
                       bool owner_only) {
  const worker_view* w = current_worker();
  if (w->hooks & hook_span) [[unlikely]] return run_pieces_measured(pieces, n, g);
  const int self = w->id;
  for (std::size_t i = 0; i < n; ++i) {
    // Written before the deposit publishes the piece; read below only by us.
    pieces[i].posted = target[i] != self;
    if (pieces[i].posted && !post_child(g, &pieces[i], target[i], owner_only)) pieces[i].posted = false;
  }
  // Under a policy that keeps affinities as oneTBB does (hook_exact_affinity:
  // tbb-std), the caller's own sub-ranges are queued too, on its deque,
  // where thieves may take them (oneTBB spawns a task whose affinity is its
  // own slot into its own pool). Queued after the others, they are the
  // newest: the caller takes them back first at the join, as oneTBB's
  // caller runs its leftmost pieces before it pops what it spawned.
  if (!owner_only && (w->hooks & hook_exact_affinity) != 0)
    for (std::size_t i = 0; i < n; ++i) {
      if (target[i] != self) continue;
      pieces[i].posted = true;
      if (!post_child(g, &pieces[i], self, false)) pieces[i].posted = false;
    }
  std::exception_ptr own_error;
  for (std::size_t i = 0; i < n; ++i) {
    if (pieces[i].posted) continue;
    pieces[i].ran_on = current_worker()->id;
    try {
      pieces[i].run_range(pieces[i].loop, i, pieces[i].lo, pieces[i].hi);
    } catch (...) {
      if (!own_error) own_error = std::current_exception();
    }
  }
  finish_posted(g, own_error);
}

// One contiguous block per worker; block k on worker k and on no other
// (static_partition; OpenMP's static schedule).
template <class Run>
void run_static(std::int64_t lo, std::int64_t hi, Run& run) {
  const int p = locus::num_workers();
  if (p == 1) return run(0, lo, hi);
  const std::int64_t n = hi - lo;
  // Few workers are the rule; past 64 the pieces go on the heap (this is a
  // whole loop's set-up, not the spawn fast path).
  constexpr int on_stack = 64;
  loop_piece local[on_stack];
  std::int32_t local_target[on_stack];
  std::vector<loop_piece> heap;
  std::vector<std::int32_t> heap_target;
  loop_piece* pieces = local;
  std::int32_t* target = local_target;
  if (p > on_stack) {
    heap.resize(static_cast<std::size_t>(p));
    heap_target.resize(static_cast<std::size_t>(p));
    pieces = heap.data();
    target = heap_target.data();
  }
  group_state g;
  std::size_t count = 0;
  for (int k = 0; k < p; ++k) {
    const std::int64_t b = lo + n * k / p, e = lo + n * (k + 1) / p;
    if (b == e) continue;
    prepare_piece(pieces[count], g, run, count, b, e);
    target[count++] = k;
  }
  run_pieces(pieces, target, count, g, true);
}

struct affinity_access {
  // Sub-ranges of [lo, hi), each at least `min_piece` iterations, mapped to
  // the workers that ran them the previous time (loop_affinity).
  template <class Run>
  static void run(loop_affinity& a, std::int64_t lo, std::int64_t hi, std::int64_t min_piece, Run& run) {
    const int p = locus::num_workers();
    const std::int64_t n = hi - lo;
    if (a.lo_ != lo || a.hi_ != hi || a.workers_ != p || a.min_piece_ != min_piece || a.pieces_.empty()) {
      // A new range or pool: start from contiguous blocks, as static does.
      std::int64_t count = std::int64_t{p} * loop_affinity::pieces_per_worker;
      if (count > n / min_piece) count = n / min_piece > 0 ? n / min_piece : 1;
      a.lo_ = lo;
      a.hi_ = hi;
      a.workers_ = p;
      a.min_piece_ = min_piece;
      a.pieces_.assign(static_cast<std::size_t>(count), loop_piece{});
      a.worker_of_.resize(static_cast<std::size_t>(count));
      for (std::int64_t i = 0; i < count; ++i) a.worker_of_[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i * p / count);
      a.moved_ = 0;
    }
    const auto count = static_cast<std::int64_t>(a.pieces_.size());
    group_state g;
    for (std::int64_t i = 0; i < count; ++i)
      prepare_piece(a.pieces_[static_cast<std::size_t>(i)], g, run, static_cast<std::size_t>(i), lo + n * i / count,
                    lo + n * (i + 1) / count);
    run_pieces(a.pieces_.data(), a.worker_of_.data(), a.pieces_.size(), g, false);
    remap(a, p, (current_worker()->hooks & hook_exact_affinity) != 0);
  }

  // Each sub-range follows the worker that ran it, unless that worker has
  // its share already (pieces / workers, rounded up); then it stays mapped
  // where it was. Without the cap, pieces that an idle worker took from a
  // late one pile up: the caller runs its own pieces inline, so nobody can
  // take them back whole, and from then on every step ends with thieves
  // splitting the overloaded worker's pieces, moving their data. The
  // initial mapping respects the cap, and each move goes to a worker below
  // it, so no worker ever holds more than its share. `exact` (a policy that
  // sets hook_exact_affinity: tbb-std, oneTBB's note_affinity): no cap,
  // every sub-range follows the worker that started it.
  static void remap(loop_affinity& a, int workers, bool exact) {
    const std::size_t count = a.pieces_.size();
    const std::size_t share = (count + static_cast<std::size_t>(workers) - 1) / static_cast<std::size_t>(workers);
    a.load_.assign(static_cast<std::size_t>(workers), 0);
    for (const std::int32_t w : a.worker_of_) ++a.load_[static_cast<std::size_t>(w)];
    std::size_t moved = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::int32_t ran_on = a.pieces_[i].ran_on, mapped = a.worker_of_[i];
      if (ran_on == mapped) continue;
      ++moved;
      if (!exact && a.load_[static_cast<std::size_t>(ran_on)] >= share) continue;
      --a.load_[static_cast<std::size_t>(mapped)];
      ++a.load_[static_cast<std::size_t>(ran_on)];
      a.worker_of_[i] = ran_on;
    }
    a.moved_ = moved;
  }
};

}  // namespace locus::detail
