// Job blocks that workers freed beyond what they keep, shared by the pool's
// workers in batches (job_pool.cpp). A worker whose jobs run elsewhere (one
// that enqueues, a pipeline's input stage) allocates more than it frees and
// the workers that run them free more than they allocate; without a place
// to meet, the first went to the heap for every job and the others gave
// every block past their own list's cap back to it. A batch moves whole,
// so the lock is taken twice per batch, not once per job (tcmalloc's
// transfer cache has the same shape).
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace locus::detail {

class job_depot {
 public:
  static constexpr std::size_t classes = 8;  // as worker::job_classes
  static constexpr std::size_t batch = 512;  // blocks per batch
  static constexpr std::size_t max_batches = 16;  // per class; past it blocks go back to the heap

  job_depot() = default;
  job_depot(const job_depot&) = delete;
  job_depot& operator=(const job_depot&) = delete;
  ~job_depot() {
    for (auto& batches : batches_)
      for (auto& b : batches)
        for (void* block : b) ::operator delete(block);
  }

  // Moves the last `batch` blocks of `list` (which holds at least that
  // many) here, or to the heap when the depot is full.
  void put(std::size_t cls, std::vector<void*>& list) {
    std::vector<void*> b = spare();
    b.assign(list.end() - static_cast<std::ptrdiff_t>(batch), list.end());
    list.resize(list.size() - batch);
    {
      std::lock_guard guard(lock_);
      if (batches_[cls].size() < max_batches) {
        batches_[cls].push_back(std::move(b));
        return;
      }
    }
    for (void* block : b) ::operator delete(block);
  }

  // Refills an empty `list` with a batch; false when there is none.
  bool take(std::size_t cls, std::vector<void*>& list) {
    std::vector<void*> b;
    {
      std::lock_guard guard(lock_);
      if (batches_[cls].empty()) return false;
      b = std::move(batches_[cls].back());
      batches_[cls].pop_back();
    }
    list.assign(b.begin(), b.end());  // list keeps its storage: a copy, not a swap
    b.clear();
    std::lock_guard guard(lock_);
    spares_.push_back(std::move(b));
    return true;
  }

 private:
  // An emptied batch's storage, or a new one: once warm, moving blocks
  // through the depot allocates nothing.
  std::vector<void*> spare() {
    {
      std::lock_guard guard(lock_);
      if (!spares_.empty()) {
        std::vector<void*> b = std::move(spares_.back());
        spares_.pop_back();
        return b;
      }
    }
    std::vector<void*> b;
    b.reserve(batch);
    return b;
  }

  std::mutex lock_;
  std::vector<std::vector<void*>> batches_[classes];
  std::vector<std::vector<void*>> spares_;  // empty, with room for a batch
};

}  // namespace locus::detail
