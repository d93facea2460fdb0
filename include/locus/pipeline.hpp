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
// the last; when that many are, the next item is made when one leaves, by
// the task whose item left (no task waits).
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
// Items run as in oneTBB's parallel_pipeline, under every policy: the task
// that makes an item carries it through the stages, and the next item is
// made by a task of its own, queued in the worker's deque as soon as the
// item is made, which an idle worker takes; so an item stays on the worker
// that made it, and on one worker each item leaves the pipeline before the
// next is made. No item waits at a serial stage: one that finds the stage
// busy (or, in order, not its turn) is left there, and the task holding
// the stage runs it for that item too before letting it go (as oneTBB's
// serial filters buffer their items). In the serial elision a pipeline is
// a plain loop: each item passes every stage before the next is made.
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
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/span_hooks.hpp"
#include "locus/detail/spin_lock.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/place.hpp"
#include "locus/runtime.hpp"
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

// One run of a pipeline, as oneTBB's parallel_pipeline runs one: tokens
// (here the free slots of the items' values) bound the items in flight;
// the task that makes an item carries it through the stages; once an item
// is made and a slot is left, the next input is a task of its own in this
// worker's deque, which an idle worker takes; when the last slot was
// taken, the task whose item leaves the pipeline makes the next item
// itself. No task waits for a slot.
//
// Serial stages never make a task wait either. An item that finds its
// serial stage held (or, in order, not yet its turn) is parked at the
// stage and its task ends; the task holding the stage runs the stage for
// every item parked for it, in turn, before letting the stage go, and
// hands each item it carried through on to the next stage as a task of its
// own (which an idle worker takes).
//
// Every task of the run is counted in one group that any of them may add
// to (detail::push_counted_child); the caller's task makes the first item
// itself and then waits for the count.
class pipeline_run {
 public:
  pipeline_run(std::size_t max_in_flight, const std::vector<detail::pipe::node>& nodes)
      : nodes_(nodes),
        buffers_(detail::pipe::prepare(max_in_flight, nodes)),
        gates_(nodes.size()),
        below_(max_in_flight) {
    for (std::size_t s = max_in_flight; s-- > 0;) free_slot(s);
    for (std::size_t k = 1; k < nodes.size(); ++k) gates_[k].parked.reserve(max_in_flight);
  }

  // From a thread outside the pool, the run is a root task (measured as
  // one under LOCUS_SPAN), and the thread blocks until it is done.
  void go() {
    if (detail::current_worker() == nullptr)
      detail::run_on_pool([](void* self) { static_cast<pipeline_run*>(self)->start(); }, this);
    else
      start();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct item {
    std::size_t slot;
    std::uint64_t seq;
  };
  // Where a task of the run starts: making a new item (stage 0), or with
  // an item at a later stage. `arrived`: the stage's place move is done,
  // whether or not the policy acted on the hint.
  struct step {
    item it;
    std::size_t stage;
    bool arrived;
  };
  // A serial stage: whether an item holds it, the next sequence number in
  // order, and the items parked for it (at most max_in_flight, reserved).
  struct gate {
    detail::spin_lock lock;  // held for a few instructions
    bool held = false;
    std::uint64_t next = 0;
    std::vector<item> parked;
  };
  // A task of the run, queued as a parent-first job counted in jobs_. The
  // input's task (stage 0) lives in the run (input_frame_): there is at
  // most one (oneTBB's rule above), and the next is queued only once it
  // has started. An item's comes from the worker's pool of job blocks.
  struct step_job final : detail::parent_first_job {
    step_job(pipeline_run* r, step s) : self(r), from(s) {
      run = &detail::run_parent_first_job;
      group = &r->jobs_;
      invoke = &start;
    }
    static void start(detail::parent_first_job* base) {
      auto* job = static_cast<step_job*>(base);
      pipeline_run* self = job->self;
      const step from = job->from;
      if (from.stage != 0) {
        job->~step_job();
        detail::free_job(job, sizeof(step_job));
      }
      self->go_from(from);
    }
    pipeline_run* self;
    step from;
  };

  // Whether the calling task (on a worker: go() saw to it) should move to
  // run at `where`, another place than its own.
  static bool away(place_hint where) { return where.place != any.place && current_place() != where.place; }
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

  void start() {
    at_place(nodes_[0].where, [this] { drive(); });
  }
  // The caller's task, on a worker: makes the first item, then waits for
  // every task the run queued. Under LOCUS_SPAN nothing is queued: the
  // steps run here, each as a measured child, in the order one worker
  // would run them.
  void drive() {
    measured_ = (detail::current_worker()->hooks & detail::hook_span) != 0;
    jobs_.stolen = true;  // its sync waits for the count
    go_from({{0, 0}, 0, true});
    while (!measured_steps_.empty()) {
      const step s = measured_steps_.back();
      measured_steps_.pop_back();
      (void)detail::run_span_child([this, s] { go_from(s); }, detail::span_steal::child);
    }
    detail::sync_group(jobs_);
  }

  // One task of the run: from `s` to the end of its item (or until the
  // item is parked or moves), then, while the input falls to it, new items.
  void go_from(step s) {
    bool input = s.stage == 0 || carry(s.it, s.stage, s.arrived);
    bool arrived = s.stage == 0 && s.arrived;
    while (input) {
      input = make_and_carry(arrived);
      arrived = false;
    }
  }

  // The first stage makes one item, which this task then carries; returns
  // whether this task makes the next one too (oneTBB's stage_task: the next
  // input is spawned while a token is left).  The input's task always finds
  // a free slot: it is queued, or made so, only when one is.
  bool make_and_carry(bool arrived) {
    if (!arrived && moves(0)) {
      queue({{0, 0}, 0, true}, nodes_[0].where);
      return false;
    }
    if (cancelled()) return false;
    const item it{take_slot(), next_seq_++};  // only the input's task touches next_seq_
    flow_control fc;
    run_stage(0, it.slot, fc);
    if (cancelled() || fc.stopped()) {
      clear(it.slot);
      free_slot(it.slot);  // the input does not wait: nobody makes another item
      return false;
    }
    if (slot_left()) queue({{0, 0}, 0, false});
    return carry(it, 1, false);
  }

  // Item `it` from stage `from` to the end (or until it is parked or moves);
  // returns whether this task makes the next item.
  bool carry(item it, std::size_t from, bool arrived) {
    bool input = false;
    for (std::size_t k = from; k < nodes_.size(); ++k) {
      if (!(arrived && k == from) && moves(k)) {
        queue({it, k, true}, nodes_[k].where);
        return input;
      }
      if (nodes_[k].mode == stage_mode::parallel) {
        run_unless_cancelled(k, it.slot);
        continue;
      }
      if (!enter(k, it)) return input;  // parked: the stage's holder carries it on
      for (;;) {
        run_unless_cancelled(k, it.slot);
        const std::optional<item> next = leave(k, it);
        if (!next) break;
        // Still holding stage k, now for `next`; `it` goes on without us.
        if (k + 1 < nodes_.size()) queue({it, k + 1, false});
        else input |= finish(it.slot);
        it = *next;
      }
    }
    return finish(it.slot) || input;
  }

  // Stage k has a place and the calling task is not there.
  bool moves(std::size_t k) const { return away(nodes_[k].where) && !cancelled(); }

  // A task of the run starting at `s`, in this worker's deque or, moving
  // to a place, in that place's shared queue.
  void queue(step s, place_hint where = any) {
    if (measured_) {
      measured_steps_.push_back(s);
      return;
    }
    auto* job = new (s.stage == 0 ? static_cast<void*>(input_frame_) : detail::allocate_job(sizeof(step_job)))
        step_job(this, s);
    job->ctx = detail::current_worker()->ctx;
    if (where.place == any.place) return detail::push_counted_child(jobs_, job);
    job->ctx.place = static_cast<std::int16_t>(where.place);
    detail::enqueue_counted_child(jobs_, job);
  }

  // Takes serial stage k for `it`, or parks it there (false).
  bool enter(std::size_t k, item it) {
    gate& g = gates_[k];
    std::lock_guard<detail::spin_lock> hold(g.lock);
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
    std::lock_guard<detail::spin_lock> hold(g.lock);
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

  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  void run_unless_cancelled(std::size_t k, std::size_t slot) {
    if (cancelled()) return;
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

  // The item in `slot` left: empty what skipped stages left in its cells
  // (after a cancellation), give its slot back. Returns whether the input
  // waited for it: this task then makes the next item.
  bool finish(std::size_t slot) {
    if (cancelled()) clear(slot);
    return free_slot(slot);
  }
  void clear(std::size_t slot) {
    for (auto& b : buffers_)
      if (b) b->clear(slot);
  }

  // The free slots (free_: the top slot + 1, 0 for none): a stack any task
  // pushes to and only the input's task pops from (one item is made at a
  // time), so a pop cannot meet the ABA problem. In the same word,
  // input_waits: the input's task found no slot left after making an item;
  // the task that frees the next one makes the next item.
  static constexpr std::uint64_t input_waits = std::uint64_t{1} << 63;
  std::size_t take_slot() {
    std::uint64_t top = free_.load(std::memory_order_acquire);
    while (!free_.compare_exchange_weak(top, below_[top - 1], std::memory_order_acquire,
                                        std::memory_order_acquire)) {
    }
    return static_cast<std::size_t>(top - 1);
  }
  // Whether a slot is left for the next item; if none, the input waits.
  bool slot_left() {
    std::uint64_t top = free_.load(std::memory_order_acquire);
    while (top == 0)
      if (free_.compare_exchange_weak(top, input_waits, std::memory_order_release, std::memory_order_acquire))
        return false;
    return true;
  }
  // Returns whether the input waited for a slot.
  bool free_slot(std::size_t slot) {
    std::uint64_t top = free_.load(std::memory_order_relaxed);
    do below_[slot] = top & ~input_waits;
    while (!free_.compare_exchange_weak(top, slot + 1, std::memory_order_acq_rel, std::memory_order_relaxed));
    return (top & input_waits) != 0;
  }

  const std::vector<detail::pipe::node>& nodes_;
  std::vector<std::unique_ptr<detail::pipe::buffer_base>> buffers_;  // by stage
  std::uint64_t next_seq_ = 0;
  std::vector<gate> gates_;  // by stage; used for serial stages after the first
  std::vector<std::uint64_t> below_;  // by slot: free_ under it, when it is free
  std::atomic<std::uint64_t> free_{0};
  detail::group_state jobs_;  // the run's tasks (drive waits for them)
  alignas(step_job) unsigned char input_frame_[sizeof(step_job)];  // the input's task, when queued
  bool measured_ = false;              // LOCUS_SPAN: steps run in drive()
  std::vector<step> measured_steps_;  // ... these, newest first
  std::atomic<bool> cancelled_{false};
  std::mutex error_lock_;
  std::exception_ptr error_;
};

}  // namespace detail_pipe_run

inline void pipeline(std::size_t max_in_flight, const stage<void, void>& chain) {
  detail_pipe_run::pipeline_run(max_in_flight, chain.nodes()).go();
}

#endif

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
