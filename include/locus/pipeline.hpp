// Pipelines (TBB-NUMA paper, section 4.4.3): a stream of items through a
// chain of stages, with a bounded number of items in flight.
//
//   locus::pipeline(8,
//       locus::make_stage<void, chunk>(locus::stage_mode::serial_in_order,
//                                      [&](locus::flow_control& fc) -> chunk {
//                                        if (done()) { fc.stop(); return {}; }
//                                        return read_next();
//                                      }) &
//       locus::make_stage<chunk, chunk>(locus::stage_mode::parallel, compress) &
//       locus::make_stage<chunk, void>(locus::stage_mode::serial_in_order, write));
//
// The first stage reads the input: it takes no value, runs one item at a
// time, and ends the stream by calling fc.stop() (the value it returns then
// is discarded). Every later stage takes the previous stage's value. Modes:
//   serial_in_order      one item at a time, in the order the first stage
//                        made them
//   serial_out_of_order  one item at a time, in any order
//   parallel             any number at once
// At most max_in_flight items are between the first stage and the end of
// the last; the first stage waits (its task suspends on a semaphore) for an
// item to leave.
//
// A stage made with a place, make_stage<In, Out>(mode, f, locus::at(p)),
// runs its items at place p: an item arriving from another place is
// enqueued to place p's shared queue (section 4.4.3; task_group::enqueue),
// which p's workers serve first, under every policy.
//
// An exception thrown by a stage stops the pipeline: the first stage makes
// no more items, items already in flight skip their remaining stages (still
// passing the in-order stages in order, so none waits forever), and
// pipeline() rethrows the first exception once every item has left.
//
// Items run as work-first tasks: the first stage's task spawns each new
// item and runs it at once, and an idle worker takes the first stage's
// continuation to make the next item, so an item stays on the worker that
// made it (as in TBB). No item waits at a serial stage: one that finds the
// stage busy (or, in order, not its turn) is left there, and the task
// holding the stage runs it for that item too before letting it go (as
// TBB's serial filters buffer their items). In the serial elision a
// pipeline is a plain loop: each item passes every stage before the next
// is made.
//
// Bad input: max_in_flight 0, a parallel first stage or a place outside
// 0..num_places()-1 throw (std::invalid_argument, std::out_of_range)
// before any stage runs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/place.hpp"
#include "locus/runtime.hpp"
#include "locus/semaphore.hpp"
#include "locus/task_group.hpp"

namespace locus {

enum class stage_mode { serial_in_order, serial_out_of_order, parallel };

// Passed to the first stage, which calls stop() at the end of its input.
class flow_control {
 public:
  void stop() noexcept { stopped_ = true; }
  bool stopped() const noexcept { return stopped_; }

 private:
  bool stopped_ = false;
};

namespace detail::pipe {

// Each stage's output, one cell per item slot (items in flight reuse the
// slots, so a running pipeline allocates nothing per item).
struct buffer_base {
  virtual ~buffer_base() = default;
  virtual void clear(std::size_t slot) = 0;
};
template <class T>
struct buffer final : buffer_base {
  explicit buffer(std::size_t n) : cells(n) {}
  void clear(std::size_t slot) override { cells[slot].reset(); }
  std::vector<std::optional<T>> cells;
};

struct body_base {
  virtual ~body_base() = default;
  // nullptr for a stage that outputs nothing.
  virtual std::unique_ptr<buffer_base> make_buffer(std::size_t slots) const = 0;
  // Runs the stage on the item in `slot`: takes the value out of in's cell
  // and puts the result in out's.
  virtual void run(std::size_t slot, buffer_base* in, buffer_base* out, flow_control& fc) = 0;
};

template <class In, class Out, class F>
struct body final : body_base {
  explicit body(F fn) : f(std::move(fn)) {}
  std::unique_ptr<buffer_base> make_buffer(std::size_t slots) const override {
    if constexpr (std::is_void_v<Out>)
      return nullptr;
    else
      return std::make_unique<buffer<Out>>(slots);
  }
  void run(std::size_t slot, buffer_base* in, buffer_base* out, flow_control& fc) override {
    if constexpr (std::is_void_v<In>) {
      if constexpr (std::is_void_v<Out>)
        f(fc);
      else
        static_cast<buffer<Out>*>(out)->cells[slot].emplace(f(fc));
    } else {
      auto& cell = static_cast<buffer<In>*>(in)->cells[slot];
      In value = std::move(*cell);
      cell.reset();
      if constexpr (std::is_void_v<Out>)
        f(std::move(value));
      else
        static_cast<buffer<Out>*>(out)->cells[slot].emplace(f(std::move(value)));
    }
  }
  F f;
};

struct node {
  stage_mode mode;
  place_hint where;
  std::shared_ptr<body_base> body;
};

}  // namespace detail::pipe

// One stage, or a chain of stages joined with &, taking In and making Out.
// A complete pipeline is a stage<void, void>.
template <class In, class Out>
class stage {
 public:
  const std::vector<detail::pipe::node>& nodes() const noexcept { return nodes_; }

 private:
  template <class, class>
  friend class stage;
  template <class I, class O, class F>
  friend stage<I, O> make_stage(stage_mode mode, F f, place_hint where);
  template <class A, class B, class C>
  friend stage<A, C> operator&(const stage<A, B>& first, const stage<B, C>& second);
  std::vector<detail::pipe::node> nodes_;
};

template <class In, class Out, class F>
stage<In, Out> make_stage(stage_mode mode, F f, place_hint where = any) {
  if constexpr (std::is_void_v<In>) {
    static_assert(std::is_invocable_v<F&, flow_control&>,
                  "locus::make_stage<void, Out>: the first stage is called as f(locus::flow_control&)");
    static_assert(std::is_void_v<Out> || std::is_convertible_v<std::invoke_result_t<F&, flow_control&>, Out>,
                  "locus::make_stage<void, Out>: f(flow_control&) must return something convertible to Out");
  } else {
    static_assert(std::is_move_constructible_v<In>, "locus::make_stage<In, Out>: In must be move-constructible");
    static_assert(std::is_invocable_v<F&, In&&>, "locus::make_stage<In, Out>: the stage is called as f(In&&)");
    static_assert(std::is_void_v<Out> || std::is_convertible_v<std::invoke_result_t<F&, In&&>, Out>,
                  "locus::make_stage<In, Out>: f(In&&) must return something convertible to Out");
  }
  stage<In, Out> s;
  s.nodes_.push_back({mode, where, std::make_shared<detail::pipe::body<In, Out, F>>(std::move(f))});
  return s;
}

template <class A, class B, class C>
stage<A, C> operator&(const stage<A, B>& first, const stage<B, C>& second) {
  stage<A, C> s;
  s.nodes_ = first.nodes();
  s.nodes_.insert(s.nodes_.end(), second.nodes().begin(), second.nodes().end());
  return s;
}

namespace detail::pipe {

// Checks a chain before anything runs, and makes the stages' buffers.
inline std::vector<std::unique_ptr<buffer_base>> prepare(std::size_t max_in_flight, const std::vector<node>& nodes) {
  if (max_in_flight == 0)
    throw std::invalid_argument("locus::pipeline: max_in_flight is 0; at least 1 item must be allowed in flight");
  if (nodes.front().mode == stage_mode::parallel)
    throw std::invalid_argument(
        "locus::pipeline: the first stage is parallel; it reads the input one item at a time, so it must be "
        "stage_mode::serial_in_order or stage_mode::serial_out_of_order");
  std::vector<std::unique_ptr<buffer_base>> buffers;
  for (const node& n : nodes) {
    if (n.where.place != any.place) (void)checked_place(n.where);  // std::out_of_range naming the place
    buffers.push_back(n.body->make_buffer(max_in_flight));
  }
  return buffers;
}

}  // namespace detail::pipe

inline namespace LOCUS_CONSTRUCTS_NS {

#ifdef LOCUS_SERIAL_ELISION

inline void pipeline(std::size_t max_in_flight, const stage<void, void>& chain) {
  const auto& nodes = chain.nodes();
  auto buffers = detail::pipe::prepare(max_in_flight, nodes);
  for (;;) {
    flow_control fc;
    nodes[0].body->run(0, nullptr, buffers[0].get(), fc);
    if (fc.stopped()) return;
    for (std::size_t k = 1; k < nodes.size(); ++k) nodes[k].body->run(0, buffers[k - 1].get(), buffers[k].get(), fc);
  }
}

#else

namespace detail_pipe_run {

// One run of a pipeline: the slots of the items in flight, the permits that
// bound them, the serial stages' gates, and the first error.
//
// Serial stages never make a task wait. An item that finds its serial
// stage held (or, in order, not yet its turn) is parked at the stage and
// its task ends; the task holding the stage runs the stage for every item
// parked for it, in turn, before letting the stage go, and hands each item
// it carried through on to the next stage as a parent-first child (which an
// idle worker steals). A handed-on item starts at a later stage than its
// parent's, so tasks nest at most as deep as there are stages.
class run {
 public:
  run(std::size_t max_in_flight, const std::vector<detail::pipe::node>& nodes)
      : nodes_(nodes),
        buffers_(detail::pipe::prepare(max_in_flight, nodes)),
        permits_(static_cast<std::ptrdiff_t>(max_in_flight)),
        gates_(nodes.size()) {
    for (std::size_t s = max_in_flight; s-- > 0;) free_slots_.push_back(s);
    for (std::size_t k = 1; k < nodes.size(); ++k) gates_[k].parked.reserve(max_in_flight);
  }

  void go() {
    at_place(nodes_[0].where, [this] { make_items(); });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct item {
    std::size_t slot;
    std::uint64_t seq;
  };
  // A serial stage: whether an item holds it, the next sequence number in
  // order, and the items parked for it (at most max_in_flight, reserved).
  struct gate {
    std::mutex lock;  // held for a few instructions, never across a switch
    bool held = false;
    std::uint64_t next = 0;
    std::vector<item> parked;
  };

  // Whether the calling task should move to run at `where`: it is off the
  // pool (a thread's call to pipeline()), or at another place than asked.
  static bool away(place_hint where) {
    const int here = current_place();
    return here < 0 || (where.place != any.place && here != where.place);
  }
  // Runs f at place `where`: here if the caller is there, else enqueued to
  // that place's shared queue (section 4.4.3: detached from this worker's
  // deque, so that this worker cannot revoke it) and joined.
  template <class F>
  static void at_place(place_hint where, F&& f) {
    if (!away(where)) return f();
    task_group g;
    g.enqueue(std::forward<F>(f), where);
    g.sync();
  }

  // The first stage, one item at a time; each item is spawned work-first,
  // under every policy (a parent-first policy's spawn would queue each item
  // and sync the group on the slow path).
  void make_items() {
    task_group items(detail::work_first_group);
    for (std::uint64_t seq = 0;; ++seq) {
      permits_.acquire();
      if (cancelled_.load(std::memory_order_acquire)) {
        permits_.release();
        break;
      }
      const std::size_t slot = take_slot();
      flow_control fc;
      run_stage(0, slot, fc);
      if (cancelled_.load(std::memory_order_acquire) || fc.stopped()) {
        finish(slot, true);
        break;
      }
      if (nodes_.size() == 1) {
        finish(slot, false);
        continue;
      }
      items.spawn([this, slot, seq] { flow({slot, seq}, 1, false); });
    }
    items.sync();  // the items catch everything, so this does not throw
  }

  // Item `it` from stage `from` to the end (or until it is parked).
  // `arrived`: stage `from`'s place move is done, whether or not the
  // policy acted on the hint.
  void flow(item it, std::size_t from, bool arrived) {
    task_group handed_on;
    carry(it, from, arrived, handed_on);
    handed_on.sync();
  }

  void carry(item it, std::size_t from, bool arrived, task_group& handed_on) {
    for (std::size_t k = from; k < nodes_.size(); ++k) {
      const detail::pipe::node& n = nodes_[k];
      if (!(arrived && k == from) && n.where.place != any.place && away(n.where) &&
          !cancelled_.load(std::memory_order_acquire)) {
        at_place(n.where, [this, it, k] { flow(it, k, true); });
        return;
      }
      if (n.mode == stage_mode::parallel) {
        run_unless_cancelled(k, it.slot);
        continue;
      }
      if (!enter(k, it)) return;  // parked: the stage's holder carries it on
      for (;;) {
        run_unless_cancelled(k, it.slot);
        const std::optional<item> next = leave(k, it);
        if (!next) break;
        // Still holding stage k, now for `next`; `it` goes on without us.
        handed_on.spawn([this, it, k] { flow(it, k + 1, false); }, parent_first);
        it = *next;
      }
    }
    finish(it.slot, cancelled_.load(std::memory_order_acquire));
  }

  // Takes serial stage k for `it`, or parks it there (false).
  bool enter(std::size_t k, item it) {
    gate& g = gates_[k];
    std::lock_guard<std::mutex> hold(g.lock);
    const bool its_turn = nodes_[k].mode == stage_mode::serial_out_of_order ? !g.held : g.next == it.seq;
    if (its_turn)
      g.held = true;
    else
      g.parked.push_back(it);
    return its_turn;
  }
  // `done` has passed serial stage k: the item parked there that may go
  // next keeps the stage held (returned), or the stage is let go.
  std::optional<item> leave(std::size_t k, item done) {
    gate& g = gates_[k];
    std::lock_guard<std::mutex> hold(g.lock);
    g.next = done.seq + 1;
    auto chosen = g.parked.end();
    if (nodes_[k].mode == stage_mode::serial_out_of_order) {
      if (!g.parked.empty()) chosen = g.parked.begin();  // the oldest arrival
    } else {
      for (auto p = g.parked.begin(); p != g.parked.end(); ++p)
        if (p->seq == g.next) chosen = p;
    }
    if (chosen == g.parked.end()) {
      g.held = false;
      return std::nullopt;
    }
    const item next = *chosen;
    g.parked.erase(chosen);
    return next;
  }

  void run_unless_cancelled(std::size_t k, std::size_t slot) {
    if (cancelled_.load(std::memory_order_acquire)) return;
    flow_control fc;
    run_stage(k, slot, fc);
  }
  // Runs stage k's body; an exception cancels the pipeline.
  void run_stage(std::size_t k, std::size_t slot, flow_control& fc) {
    try {
      nodes_[k].body->run(slot, k == 0 ? nullptr : buffers_[k - 1].get(), buffers_[k].get(), fc);
    } catch (...) {
      std::lock_guard<std::mutex> hold(error_lock_);
      if (!error_) error_ = std::current_exception();
      cancelled_.store(true, std::memory_order_release);
    }
  }

  std::size_t take_slot() {
    std::lock_guard<std::mutex> hold(slot_lock_);
    const std::size_t s = free_slots_.back();  // a permit guarantees one
    free_slots_.pop_back();
    return s;
  }
  // The item left: empty what skipped stages left in its cells (after a
  // cancellation), give its slot and permit back.
  void finish(std::size_t slot, bool skipped) {
    if (skipped)
      for (auto& b : buffers_)
        if (b) b->clear(slot);
    {
      std::lock_guard<std::mutex> hold(slot_lock_);
      free_slots_.push_back(slot);
    }
    permits_.release();
  }

  const std::vector<detail::pipe::node>& nodes_;
  std::vector<std::unique_ptr<detail::pipe::buffer_base>> buffers_;  // by stage
  semaphore permits_;
  std::vector<gate> gates_;  // by stage; used for serial stages after the first
  std::mutex slot_lock_;
  std::vector<std::size_t> free_slots_;
  std::atomic<bool> cancelled_{false};
  std::mutex error_lock_;
  std::exception_ptr error_;
};

}  // namespace detail_pipe_run

inline void pipeline(std::size_t max_in_flight, const stage<void, void>& chain) {
  detail_pipe_run::run(max_in_flight, chain.nodes()).go();
}

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
