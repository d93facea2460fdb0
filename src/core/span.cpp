// Work and span (LOCUS_SPAN=1; include/locus/detail/span_hooks.hpp has the
// rules). A root opens the measure on the worker that runs it; every child
// a construct runs is a frame on that construct's stack; the strands'
// times come from the engine's clock (virtual time under the simulator).
#include "core/span.hpp"

#include <algorithm>

#include "core/config.hpp"
#include "core/runtime_state.hpp"
#include "core/worker.hpp"

namespace locus::detail {

namespace {

std::uint64_t now(worker& w) { return w.rt->eng->now_ns(); }

// Ends the running strand of f at time t.
void end_strand(span_frame& f, std::uint64_t t) {
  const std::uint64_t d = t > f.strand_start ? t - f.strand_start : 0;
  f.work += d;
  f.span += d;
  f.burdened += d;
}

void join_open_paths(span_frame& f) {
  f.span = std::max(f.span, f.longest);
  f.burdened = std::max(f.burdened, f.longest_burdened);
  f.longest = f.longest_burdened = 0;
}

worker* measuring() {
  worker_view* v = current_worker();
  if (v == nullptr || (v->hooks & hook_span) == 0) return nullptr;
  auto* w = static_cast<worker*>(v);
  return w->span_top != nullptr ? w : nullptr;
}

}  // namespace

bool span_child_begin(span_frame& child) noexcept {
  worker* w = measuring();
  if (w == nullptr) return false;
  const std::uint64_t t = now(*w);
  end_strand(*w->span_top, t);
  child.parent = w->span_top;
  child.strand_start = t;
  w->span_top = &child;
  return true;
}

void span_child_end(span_frame& child, span_steal steal) noexcept {
  auto& w = static_cast<worker&>(*current_worker());
  const std::uint64_t t = now(w);
  end_strand(child, t);
  join_open_paths(child);
  span_frame& parent = *child.parent;
  parent.work += child.work;
  // The child started where the parent's span stands now: the parent's
  // strand was paused while the child ran.
  parent.longest = std::max(parent.longest, parent.span + child.span);
  const std::uint64_t burden = tunables::span_burden_ns;
  parent.longest_burdened = std::max(parent.longest_burdened,
                                     parent.burdened + child.burdened + (steal == span_steal::child ? burden : 0));
  if (steal == span_steal::continuation) parent.burdened += burden;
  parent.strand_start = t;
  w.span_top = &parent;
}

void span_sync() noexcept {
  worker* w = measuring();
  if (w == nullptr) return;
  span_frame& f = *w->span_top;
  const std::uint64_t t = now(*w);
  end_strand(f, t);
  join_open_paths(f);
  f.strand_start = t;
}

void span_root_begin(worker& w) {
  w.span_root = span_frame{};
  w.span_root.strand_start = now(w);
  w.span_top = &w.span_root;
}

void span_root_end(worker& w) {
  if (w.span_top != &w.span_root) return;  // not opened here (it cannot move: nothing is stolen)
  span_frame& r = w.span_root;
  end_strand(r, now(w));
  join_open_paths(r);
  auto& totals = w.rt->span;
  totals.work_ns.fetch_add(r.work, std::memory_order_relaxed);
  totals.span_ns.fetch_add(r.span, std::memory_order_relaxed);
  totals.burdened_ns.fetch_add(r.burdened, std::memory_order_relaxed);
  totals.roots.fetch_add(1, std::memory_order_relaxed);
  w.span_top = nullptr;
}

}  // namespace locus::detail
