// Work-stealing deque of frame pointers.
//
// Chase and Lev, "Dynamic circular work-stealing deque" (SPAA 2005), with the
// memory orders of Le, Pop, Cohen and Zappa Nardelli, "Correct and efficient
// work-stealing for weak memory models" (PPoPP 2013), figure 1.
//
// Contract: push() and pop() only by the owner worker; steal() by any thread.
// The owner works at the bottom (LIFO), thieves take from the top (oldest
// first). The array grows when full (on the owner's push, never on a steal);
// retired arrays are kept until the deque is destroyed because a thief may
// still be reading one (growth is rare and geometric, so this is at most the
// size of the final array).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "locus/detail/frame.hpp"

namespace locus::detail {

class work_deque {
 public:
  explicit work_deque(std::size_t initial_capacity = 256)
      : array_(new ring(round_up_pow2(initial_capacity))) {
    retired_.emplace_back(array_.load(std::memory_order_relaxed));
  }
  work_deque(const work_deque&) = delete;
  work_deque& operator=(const work_deque&) = delete;

  // Owner only.
  void push(frame* f) {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    const std::int64_t t = top_.load(std::memory_order_acquire);
    ring* a = array_.load(std::memory_order_relaxed);
    if (b - t > static_cast<std::int64_t>(a->mask)) [[unlikely]] a = grow(a, t, b);
    a->put(b, f);
    // Release: a thief that reads the new bottom also sees the slot (pairs
    // with the acquire load of bottom_ in steal()).
    bottom_.store(b + 1, std::memory_order_release);
  }

  // Owner only. Returns the newest frame, or nullptr if empty (or the last
  // frame was taken by a thief).
  frame* pop() {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    ring* a = array_.load(std::memory_order_relaxed);
    bottom_.store(b, std::memory_order_relaxed);
    // Store-load fence: the owner must publish the decremented bottom before
    // reading top, and a thief must publish its read of bottom before its CAS
    // on top; pairs with the seq_cst fence in steal(). This is the one fence
    // of the fast path.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_relaxed);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    frame* f = a->get(b);
    if (t == b) {  // last element: race with thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        f = nullptr;
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return f;
  }

  // Any thread. Returns the oldest frame, or nullptr if empty or if another
  // thread won the race for it.
  frame* steal() {
    std::int64_t t = top_.load(std::memory_order_acquire);
    // Pairs with the fence in pop(): orders our read of top before bottom.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::int64_t b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return nullptr;
    frame* f = array_.load(std::memory_order_acquire)->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return nullptr;
    return f;
  }

  // Any thread; a racy hint (used to decide whether to sleep).
  bool looks_empty() const {
    return top_.load(std::memory_order_relaxed) >=
           bottom_.load(std::memory_order_relaxed);
  }
  std::int64_t size_hint() const {
    return bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
  }

 private:
  struct ring {
    explicit ring(std::size_t cap) : mask(cap - 1), slots(new std::atomic<frame*>[cap]) {}
    frame* get(std::int64_t i) const {
      return slots[static_cast<std::size_t>(i) & mask].load(std::memory_order_relaxed);
    }
    void put(std::int64_t i, frame* f) {
      slots[static_cast<std::size_t>(i) & mask].store(f, std::memory_order_relaxed);
    }
    std::size_t mask;
    std::unique_ptr<std::atomic<frame*>[]> slots;
  };

  static std::size_t round_up_pow2(std::size_t n) {
    std::size_t c = 2;
    while (c < n) c <<= 1;
    return c;
  }

  // Cold path: doubles the array, copying the live range [t, b).
  [[gnu::noinline]] ring* grow(ring* old, std::int64_t t, std::int64_t b) {
    auto* bigger = new ring((old->mask + 1) * 2);
    for (std::int64_t i = t; i < b; ++i) bigger->put(i, old->get(i));
    retired_.emplace_back(bigger);
    // Release: a thief that loads the new array sees its copied slots.
    array_.store(bigger, std::memory_order_release);
    return bigger;
  }

  // Thieves write top_, the owner writes bottom_: keep them on separate lines.
  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  std::atomic<ring*> array_;
  std::vector<std::unique_ptr<ring>> retired_;  // owner only; includes the live array
};

}  // namespace locus::detail
