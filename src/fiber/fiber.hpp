// Fibers: stackful execution contexts that can be suspended on one worker and
// resumed on any other (NUMA-WS pushes suspended frames to another place; ADWS
// returns a continuation to its owner).
//
// Mechanism: Boost.Context's fcontext (make_fcontext / jump_fcontext), the
// assembly switch Boost.Context itself builds on; it saves only callee-saved
// registers, so a switch costs a few nanoseconds.
//
// Stacks are mmap'ed with a PROT_NONE guard region at their low end and are
// pooled: a fiber whose work is done is reset to its entry point and reused,
// so the steady state allocates nothing. A fault in a guard region stops the
// program with a message naming the stack size setting (stack_guard.cpp).
//
// Switch protocol: switch_fiber(from, to, msg) jumps to `to`, passing msg.
// Whoever runs next (at its entry, or where it returns from its own
// switch_fiber) calls arrive() first, which records where `from` stopped and
// finishes the sanitizer bookkeeping; then it acts on the message (the
// scheduler decides what that means: release `from`, suspend it, ...).
#pragma once

#include <boost/context/detail/fcontext.hpp>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "fiber/sanitizers.hpp"

namespace locus::detail {

struct switch_msg;
struct frame;
using transfer = boost::context::detail::transfer_t;
// Where a fresh fiber starts; it must begin with arrive_at_entry(t).
using fiber_start_fn = void (*)(transfer);

struct fiber {
  void* ctx = nullptr;          // fcontext_t: where to jump to resume this fiber
  char* mapping = nullptr;      // start of the mmap'ed region (guard first)
  std::size_t mapping_bytes = 0;
  std::size_t guard_bytes = 0;
  void* tsan_fiber = nullptr;
  std::uint32_t tsan_runs = 0;  // runs since tsan_fiber was created (fiber.cpp)
  void* asan_fake_stack = nullptr;
  bool is_thread_stack = false;  // a thread's own stack (mapping: its bounds), never pooled or unmapped
  bool ctx_stale = false;        // finished; ctx must be reset before a switch to it
  fiber_start_fn start = nullptr;

  // The top of the stack is moved down by a per-fiber multiple of a cache
  // line (below one page): with page-aligned tops, the hot frames of every
  // nested fiber would fall into the same L1 sets and evict each other.
  std::size_t color_bytes = 0;

  char* stack_low() const { return mapping + guard_bytes; }
  char* stack_top() const { return mapping + mapping_bytes - color_bytes; }
  std::size_t stack_bytes() const { return mapping_bytes - guard_bytes - color_bytes; }
};

// What the fiber switched to must do first.
struct switch_msg {
  enum class kind {
    release_from,   // `from` is finished: reset it and return it to the pool
    start_child,    // work-first spawn: `from` is the parent (payload: spawn_request)
    suspend_from,   // `from` waits at a join (payload: the join; see join.cpp)
    park_from,      // `from` waits on something else (payload: a park_request)
    start_job,      // run `payload` (a frame) first, then the worker's loop (core/roots.cpp)
    none,           // nothing to do (first switch into a worker's loop)
  };
  kind what = kind::none;
  fiber* from = nullptr;
  void* payload = nullptr;
};

// A fiber that waits for something other than a join (a locus::mutex):
// finish() runs on the fresh fiber once `from`'s context is saved, queues
// `from` wherever it waits, and returns its continuation if it may resume at
// once (else nullptr). The request lives on `from`'s stack: once `from` is
// queued, another worker may resume it and the request is gone.
struct park_request {
  frame* (*finish)(park_request& req, fiber* from);
};

// Creates a fiber whose stack holds `stack_bytes` usable bytes (rounded up to
// pages) above a guard region; it starts in `start` when first switched to.
fiber* create_fiber(std::size_t stack_bytes, fiber_start_fn start);
// Makes a finished fiber start again at its start function.
void reset_fiber(fiber* f);
// A finished fiber: its stack is free, its context is to be reset before use
// (lazily, since the spawn fast path only uses the stack).
void retire_fiber(fiber* f) noexcept;
void destroy_fiber(fiber* f);
// A descriptor for the calling thread's own stack (so it can be switched away
// from and back to).
fiber* thread_stack_fiber();

// The fiber running on this thread. Not inline: a fiber may resume on
// another thread, and a thread-local's address computed before a switch must
// not be reused after it.
fiber* running_fiber() noexcept;
void set_running_fiber(fiber* f) noexcept;

// A copy of msg in this thread's slot, read by the fiber switched to
// before any other switch on this thread (ASan builds only).
switch_msg* keep_past_switch(const switch_msg& msg) noexcept;

// What the fiber we arrive on does first: record where the fiber we came
// from stopped, and finish the sanitizer bookkeeping.
inline switch_msg* arrive(transfer t) noexcept;

// Every move onto another stack, however it is made (a Boost.Context jump
// or the x86-64 stack call), announces itself here first: to the sanitizers,
// and as the running fiber. `left` is the fiber we leave if it will be
// resumed, or nullptr if it is finished.
inline void enter_fiber(fiber* left, fiber* to) noexcept {
  sanitizers::start_switch(left != nullptr ? &left->asan_fake_stack : nullptr, to->stack_low(), to->stack_bytes(),
                           to->tsan_fiber);
  set_running_fiber(to);
}

// Jumps to `to`. Returns when some fiber switches back to `from`, with the
// message that fiber sent (already passed through arrive()). Inline, so the
// switch adds no call frame: every frame open across a switch costs a
// mispredicted return on the other side (the return stack buffer holds the
// other fiber's call sites).
inline switch_msg* switch_fiber(fiber* from, fiber* to, switch_msg* msg, bool from_finished) noexcept {
  msg->from = from;
  // The message may be on the finished fiber's ASan fake stack, which the
  // switch destroys: hand over a copy that outlives it.
  if constexpr (sanitizers::address_sanitizer)
    if (from_finished) msg = keep_past_switch(*msg);
  enter_fiber(from_finished ? nullptr : from, to);
  return arrive(boost::context::detail::jump_fcontext(to->ctx, msg));
}

// Installs the SIGSEGV/SIGBUS handler that recognizes guard-page hits, and an
// alternate signal stack for the calling thread.
void install_stack_guard(std::size_t configured_stack_bytes);
void install_alt_stack_for_thread();
void remove_alt_stack_for_thread();

// Pool of finished fibers: a per-worker cache in front of a shared list.
// The shared list outlives a runtime: a program (or a benchmark runner) that
// stops and starts pools reuses the stacks instead of mapping new ones.
class fiber_pool {
 public:
  // The process-wide pool for this stack size and start function; a pool
  // of another size is emptied first.
  static fiber_pool& shared(std::size_t stack_bytes, fiber_start_fn start);
  fiber_pool(std::size_t stack_bytes, fiber_start_fn start) : stack_bytes_(stack_bytes), start_(start) {}
  ~fiber_pool();
  fiber* take_shared();                  // nullptr if the shared list is empty
  void give_shared(std::vector<fiber*>& batch);
  fiber* create() { return create_fiber(stack_bytes_, start_); }
  std::size_t stack_bytes() const { return stack_bytes_; }
  void adopt(fiber* f);                  // counted for destruction at shutdown

 private:
  std::size_t stack_bytes_;
  fiber_start_fn start_;
  std::mutex mutex_;
  std::vector<fiber*> shared_;
  std::vector<fiber*> all_;
};

class fiber_cache {
 public:
  static constexpr std::size_t capacity = 64;
  explicit fiber_cache(fiber_pool& pool) : pool_(&pool) { local_.reserve(capacity); }
  // A finished fiber, for use as a bare stack (locus_call_on_stack).
  fiber* take() {
    if (local_.empty()) [[unlikely]] return take_slow();
    fiber* f = local_.back();
    local_.pop_back();
    return f;
  }
  // A finished fiber ready to be switched to (starts at its start function).
  fiber* take_to_start() {
    fiber* f = take();
    if (f->ctx_stale) reset_fiber(f);
    return f;
  }
  // f must be finished.
  void give(fiber* f) {
    retire_fiber(f);
    if (local_.size() == capacity) [[unlikely]] return give_slow(f);
    local_.push_back(f);
  }
  void flush();

 private:
  fiber* take_slow();
  void give_slow(fiber* f);
  fiber_pool* pool_;
  std::vector<fiber*> local_;
};

}  // namespace locus::detail

namespace locus::detail {
inline switch_msg* arrive(transfer t) noexcept {
  auto* msg = static_cast<switch_msg*>(t.data);
  sanitizers::finish_switch(running_fiber()->asan_fake_stack);
  msg->from->ctx = t.fctx;
  return msg;
}
}  // namespace locus::detail
