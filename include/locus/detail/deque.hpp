// Work-stealing deque of frame pointers.
//
// Chase and Lev, "Dynamic circular work-stealing deque" (SPAA 2005), with the
// memory orders of Le, Pop, Cohen and Zappa Nardelli, "Correct and efficient
// work-stealing for weak memory models" (PPoPP 2013), figure 1.
//
// Contract: push(), push_tagged() and pop() only by the owner worker; steal()
// and steal_if() by any thread.
// The owner works at the bottom (LIFO), thieves take from the top (oldest
// first). The array grows when full (on the owner's push, never on a steal);
// retired arrays are kept until the deque is destroyed because a thief may
// still be reading one (growth is rare and geometric, so this is at most the
// size of the final array).
//
// Asymmetric fence. pop() needs store-load ordering against steal(): the
// owner's new bottom must be visible before it reads top. A seq_cst fence
// on every pop is the dominant cost of the fast path. When the kernel
// offers membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), owners fence only
// while some thread is stealing, and a thread pays one membarrier each time
// it starts to steal, not one per attempt:
//   - a thread about to make its first steal attempt adds itself to
//     g_pop_fence_requests, then calls membarrier, which makes every running
//     thread of the process execute a full barrier before it returns. A pop
//     that read the count before that barrier has its store of bottom
//     visible by the time the thief's attempts begin (the barrier drains
//     it); every later pop reads the count as nonzero and fences. From then
//     on both sides follow the symmetric protocol, so its attempts need only
//     a fence of their own;
//   - it takes itself off the count when its session ends: when it sleeps
//     or the pool stops (end_stealing(), called by the scheduler), or once
//     it has fenced steal_session_pops (fences.cpp) pops of its own since
//     the session began. A thief that found work keeps its session: one back to
//     stealing after a few microseconds of loop body pays no membarrier
//     again, while one that found a long recursive computation soon has
//     fenced enough pops to end its session, and the pops of everyone go
//     fence-free again.
// So a computation in which nobody steals pays neither a fence per pop nor
// any membarrier. The first version called membarrier on every attempt on a
// non-empty deque: each call interrupted every busy worker (an IPI, several
// microseconds in a VM), and its latency let the owner's pop move top under
// the thief's copy, so with short tasks most attempts failed. heat-l2 at 2
// workers ran slower than serial, a 3-stage pipeline 2x slower than at 1
// worker (commit message). The mode is chosen once when the pool starts
// (src/core/fences.cpp); symmetric mode keeps the count above zero for good.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "locus/detail/frame.hpp"

namespace locus::detail {

// Why pops must fence now: nonzero while some thread is stealing under the
// asymmetric fence, or for good in symmetric mode (src/core/fences.cpp).
extern std::atomic<std::uint32_t> g_pop_fence_requests;
// The thief's side: before it reads bottom.
void deque_thief_fence() noexcept;
// The owner's fence while someone steals; out of line, since it also
// counts this thread's own steal session down.
void deque_owner_fence_for_thieves() noexcept;

inline void deque_owner_fence() noexcept {
  if (g_pop_fence_requests.load(std::memory_order_relaxed) != 0)
    deque_owner_fence_for_thieves();
  else
    std::atomic_signal_fence(std::memory_order_seq_cst);
}

class work_deque {
 public:
  explicit work_deque(std::size_t initial_capacity = 256)
      : array_(new ring(round_up_pow2(initial_capacity))) {
    retired_.emplace_back(array_.load(std::memory_order_relaxed));
    owner_slots_ = retired_.back()->slots.get();
    owner_mask_ = retired_.back()->mask;
  }
  work_deque(const work_deque&) = delete;
  work_deque& operator=(const work_deque&) = delete;

  // Owner only.
  void push(frame* f) {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    // top only grows, so a stale copy can only overestimate the fill; reread
    // it only when the array looks full.
    if (b - owner_top_ > static_cast<std::int64_t>(owner_mask_)) [[unlikely]] make_room(b);
    owner_slots_[static_cast<std::size_t>(b) & owner_mask_].store(f, std::memory_order_relaxed);
    // Release: a thief that reads the new bottom also sees the slot (pairs
    // with the acquire load of bottom_ in steal()).
    bottom_.store(b + 1, std::memory_order_release);
  }

  // Owner only. push(), and a 32-bit tag beside the slot that steal_if's
  // predicate reads (a policy's word of the frame's task context: colors,
  // a depth). Thieves never read a frame's own memory before they own it,
  // since its owner may be reusing it; they read the tag, which lives in
  // the deque. Only deques whose every push is tagged may be peeked
  // (hook_tag_frames, src/policy/spi/hooks.hpp).
  void push_tagged(frame* f, std::uint32_t tag) {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    if (b - owner_top_ > static_cast<std::int64_t>(owner_mask_)) [[unlikely]] make_room(b);
    // The live array, read by its only writer: no owner-side copy, so that
    // the untagged fast path keeps the deque's size and layout.
    array_.load(std::memory_order_relaxed)->tags[static_cast<std::size_t>(b) & owner_mask_].store(
        tag, std::memory_order_relaxed);
    owner_slots_[static_cast<std::size_t>(b) & owner_mask_].store(f, std::memory_order_relaxed);
    bottom_.store(b + 1, std::memory_order_release);  // publishes the tag with the slot
  }

  // Owner only. Returns the newest frame, or nullptr if empty (or the last
  // frame was taken by a thief).
  frame* pop() {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_relaxed);
    // Store-load ordering of bottom before top; pairs with the barrier in
    // steal() (see the asymmetric fence above).
    deque_owner_fence();
    std::int64_t t = top_.load(std::memory_order_relaxed);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    frame* f = owner_slots_[static_cast<std::size_t>(b) & owner_mask_].load(std::memory_order_relaxed);
    if (t == b) {  // last element: race with thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        f = nullptr;
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return f;
  }

  // Owner only. pop(), but only if the newest frame is `expected`: true if
  // it took `expected`, false if the newest frame is another one (left where
  // it is) or `expected` was taken by a thief. A join (a spawned child's
  // return, a fork_join's join) takes back exactly its own frame with this,
  // so it can never take, and lose, a frame of another chain of work that
  // the worker left on its deque (docs/architecture.md, "The deque fence
  // rule"). Costs pop() one compare: the slot is the owner's own write.
  bool pop_if(const frame* expected) {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    // If the deque is empty this reads a stale slot; then either it differs
    // (not ours: correct, the frame is gone) or pop's emptiness test below
    // says so.
    if (owner_slots_[static_cast<std::size_t>(b) & owner_mask_].load(std::memory_order_relaxed) != expected)
      return false;
    bottom_.store(b, std::memory_order_relaxed);
    deque_owner_fence();
    std::int64_t t = top_.load(std::memory_order_relaxed);
    if (t > b) {  // empty: a thief took it
      bottom_.store(b + 1, std::memory_order_relaxed);
      return false;
    }
    if (t == b) {  // last element: race with thieves for it
      const bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
      bottom_.store(b + 1, std::memory_order_relaxed);
      return won;
    }
    return true;
  }

  // Any thread. Returns the oldest frame, or nullptr if empty or if another
  // thread won the race for it.
  frame* steal() {
    std::int64_t t = top_.load(std::memory_order_acquire);
    // A deque that looks empty is a failed attempt either way: do not pay
    // for the barrier.
    if (t >= bottom_.load(std::memory_order_acquire)) return nullptr;
    // Pairs with the owner's fence in pop(): our read of top comes before
    // our read of bottom, and the owner's last store of bottom is visible.
    deque_thief_fence();
    const std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return nullptr;
    frame* f = array_.load(std::memory_order_acquire)->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return nullptr;
    return f;
  }

  // Any thread, on a deque whose pushes are all tagged (push_tagged). Like
  // steal(), but takes the oldest frame only if pred(tag) holds for its tag
  // (a policy inspecting the task context before it takes: NabbitC's
  // colored steals, ADWS's depth). The tag of slot t cannot change while t
  // is the top: rewriting it needs a push at index t + capacity, which
  // needs top > t, so a stale read makes the CAS below fail.
  template <class Pred>
  frame* steal_if(Pred&& pred) {
    std::int64_t t = top_.load(std::memory_order_acquire);
    if (t >= bottom_.load(std::memory_order_acquire)) return nullptr;
    deque_thief_fence();  // as in steal()
    const std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return nullptr;
    ring* r = array_.load(std::memory_order_acquire);
    if (!pred(r->tag(t))) return nullptr;
    frame* f = r->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return nullptr;
    return f;
  }

  // Any thread; a racy hint (used to decide whether to sleep).
  bool looks_empty() const {
    return top_.load(std::memory_order_relaxed) >=
           bottom_.load(std::memory_order_relaxed);
  }
  // Any thread; a racy hint: changes when the owner pushes (the simulator
  // asks whether a deque gained frames since it last looked).
  std::int64_t push_mark() const { return bottom_.load(std::memory_order_relaxed); }

 private:
  struct ring {
    explicit ring(std::size_t cap)
        : mask(cap - 1), slots(new std::atomic<frame*>[cap]), tags(new std::atomic<std::uint32_t>[cap]) {}
    frame* get(std::int64_t i) const {
      return slots[static_cast<std::size_t>(i) & mask].load(std::memory_order_relaxed);
    }
    std::uint32_t tag(std::int64_t i) const {
      return tags[static_cast<std::size_t>(i) & mask].load(std::memory_order_relaxed);
    }
    void put(std::int64_t i, frame* f, std::uint32_t t) {
      slots[static_cast<std::size_t>(i) & mask].store(f, std::memory_order_relaxed);
      tags[static_cast<std::size_t>(i) & mask].store(t, std::memory_order_relaxed);
    }
    std::size_t mask;
    std::unique_ptr<std::atomic<frame*>[]> slots;
    std::unique_ptr<std::atomic<std::uint32_t>[]> tags;  // written by push_tagged only
  };

  static std::size_t round_up_pow2(std::size_t n) {
    std::size_t c = 2;
    while (c < n) c <<= 1;
    return c;
  }

  // Cold path: rereads top; if the array is really full, doubles it,
  // copying the live range [t, b).
  [[gnu::noinline]] void make_room(std::int64_t b) {
    owner_top_ = top_.load(std::memory_order_acquire);
    if (b - owner_top_ <= static_cast<std::int64_t>(owner_mask_)) return;
    ring* old = array_.load(std::memory_order_relaxed);
    auto* bigger = new ring((old->mask + 1) * 2);
    for (std::int64_t i = owner_top_; i < b; ++i) bigger->put(i, old->get(i), old->tag(i));
    retired_.emplace_back(bigger);
    owner_slots_ = bigger->slots.get();
    owner_mask_ = bigger->mask;
    // Release: a thief that loads the new array sees its copied slots.
    array_.store(bigger, std::memory_order_release);
  }

  // Thieves write top_, the owner writes bottom_: keep them on separate lines.
  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  std::atomic<ring*> array_;
  // Owner-only copies of the live array and of a past value of top, so the
  // fast path does no pointer chasing and no read of the thieves' line.
  std::atomic<frame*>* owner_slots_ = nullptr;
  std::size_t owner_mask_ = 0;
  std::int64_t owner_top_ = 0;
  std::vector<std::unique_ptr<ring>> retired_;  // owner only; includes the live array
};

}  // namespace locus::detail
