// A worker's inbox: frames that the loop layer asks this worker to run
// (loop affinity and static partitions: each sub-range goes to the worker
// that ran it before, or to the worker whose block it is).
//
// Contract:
//   deposit(f, owner_only)
//               any thread that is a worker; returns false when every slot
//               is full (the caller then runs or queues f itself).
//               owner_only: only the owner may take f (a static partition's
//               block: block k runs on worker k, as OpenMP's static
//               schedule promises)
//   take()      the owner (find_work checks its inbox right after its own
//               deque): any frame
//   raid()      thieves whose steal from the owner's deque failed: a frame
//               not deposited owner_only, so a loop-affinity sub-range
//               waiting for a busy or descheduled worker is still run by
//               someone
// A frame is taken exactly once: a slot goes frame -> nullptr by CAS, and
// only its taker runs it. A slot never holds a frame twice, so the CAS has
// no ABA problem that matters: if the same address comes back, it is a new
// frame in a free slot and taking it is correct.
//
// This is the idea of oneTBB's mailboxes (a task in a per-thread mailbox,
// claimed once) without the second copy in the spawner's deque: a posted
// frame is visible to thieves through the inbox itself.
#pragma once

#include <atomic>
#include <cstdint>

#include "locus/detail/frame.hpp"

namespace locus::detail {

class inbox {
 public:
  // 16: a static loop posts one frame per worker, a loop with affinity a few;
  // nested posting loops past this fall back to the poster's own deque.
  static constexpr int slots = 16;

  bool deposit(frame* f, bool owner_only = false) noexcept {
    // Frames are aligned (frame.hpp), so the low bit of a slot is free to
    // mark an owner-only frame.
    const auto tagged = reinterpret_cast<frame*>(reinterpret_cast<std::uintptr_t>(f) | (owner_only ? owner_only_bit : 0));
    for (auto& s : slot_) {
      frame* empty = nullptr;
      if (s.load(std::memory_order_relaxed) == nullptr &&
          s.compare_exchange_strong(empty, tagged, std::memory_order_release, std::memory_order_relaxed)) {
        // seq_cst: pairs with the sleeper's seq_cst store of its park word
        // and its look at looks_empty(): one of the two sees the other.
        if (!owner_only) open_.fetch_add(1, std::memory_order_seq_cst);
        count_.fetch_add(1, std::memory_order_seq_cst);
        return true;
      }
    }
    return false;
  }

  frame* take() noexcept { return looks_empty() ? nullptr : take_any(true); }
  frame* raid() noexcept { return looks_raidable() ? take_any(false) : nullptr; }

  // A deposit that has not been counted yet is missed; the depositor wakes
  // the owner after counting, so nothing waits for it.
  bool looks_empty() const noexcept { return count_.load(std::memory_order_seq_cst) <= 0; }
  // Whether a thief may find a frame here (raid).
  bool looks_raidable() const noexcept { return open_.load(std::memory_order_seq_cst) > 0; }

 private:
  static constexpr std::uintptr_t owner_only_bit = 1;

  frame* take_any(bool by_owner) noexcept {
    for (auto& s : slot_) {
      frame* f = s.load(std::memory_order_relaxed);
      if (f == nullptr) continue;
      const bool owner_only = (reinterpret_cast<std::uintptr_t>(f) & owner_only_bit) != 0;
      if (owner_only && !by_owner) continue;
      if (s.compare_exchange_strong(f, nullptr, std::memory_order_acquire, std::memory_order_relaxed)) {
        count_.fetch_sub(1, std::memory_order_relaxed);
        if (!owner_only) open_.fetch_sub(1, std::memory_order_relaxed);
        return reinterpret_cast<frame*>(reinterpret_cast<std::uintptr_t>(f) & ~owner_only_bit);
      }
    }
    return nullptr;
  }

  std::atomic<frame*> slot_[slots] = {};
  // Deposits minus takes, all of them (count_) and those a thief may take
  // (open_); briefly negative when a take lands before the deposit's count
  // (both are then done, and the sum settles at zero).
  std::atomic<std::int32_t> count_{0};
  std::atomic<std::int32_t> open_{0};
};

}  // namespace locus::detail
