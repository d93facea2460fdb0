// The simulator's ready queue: the virtual workers that can run, by
// (virtual time, id), earliest first. Each worker is in it at most once
// (a ready worker by its clock, a napping one by its timer's deadline), so
// it is a binary heap indexed by worker: push, pop the earliest and remove
// a given worker are O(log P), and nothing allocates after reserve(). It
// replaces an ordered set of (time, id) pairs, whose every insert
// allocated a tree node: the order it gives is the same total order, so
// the simulation runs the same workers at the same times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace locus::detail::sim {

class ready_queue {
 public:
  // Room for workers 0 .. workers - 1; allocates once.
  void reserve(int workers) {
    heap_.reserve(static_cast<std::size_t>(workers));
    where_.assign(static_cast<std::size_t>(workers), absent);
  }

  bool empty() const { return heap_.empty(); }
  bool contains(int id) const { return where_[static_cast<std::size_t>(id)] != absent; }
  // The earliest entry; requires !empty().
  std::uint64_t first_time() const { return heap_.front().time; }
  int first_id() const { return heap_.front().id; }
  // Whether the earliest entry comes before (time, id); false when empty.
  bool has_earlier(std::uint64_t time, int id) const {
    return !heap_.empty() && earlier(heap_.front(), {time, id});
  }

  // Adds a worker that is not in the queue.
  void push(int id, std::uint64_t time) {
    heap_.push_back({time, id});
    up(heap_.size() - 1);
  }
  // Removes and returns the earliest worker; requires !empty().
  int pop() {
    const int id = heap_.front().id;
    remove_at(0);
    return id;
  }
  // pop() then push(id, time) in one sift; requires has_earlier(time, id)
  // (the first entry stays first until it is taken, so the result is the
  // same). Returns the worker taken.
  int replace_first(int id, std::uint64_t time) {
    const int first = heap_.front().id;
    where_[static_cast<std::size_t>(first)] = absent;
    heap_.front() = {time, id};
    down(0);
    return first;
  }
  // Removes the worker if it is in the queue.
  void erase(int id) {
    const std::size_t at = where_[static_cast<std::size_t>(id)];
    if (at != absent) remove_at(at);
  }

 private:
  struct entry {
    std::uint64_t time;
    int id;
  };
  static constexpr std::size_t absent = ~std::size_t{0};

  static bool earlier(const entry& a, const entry& b) {
    return a.time < b.time || (a.time == b.time && a.id < b.id);
  }
  void place(std::size_t at, const entry& e) {
    heap_[at] = e;
    where_[static_cast<std::size_t>(e.id)] = at;
  }
  void up(std::size_t at) {
    const entry e = heap_[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!earlier(e, heap_[parent])) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, e);
  }
  void down(std::size_t at) {
    const entry e = heap_[at];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) ++child;
      if (!earlier(heap_[child], e)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, e);
  }
  void remove_at(std::size_t at) {
    where_[static_cast<std::size_t>(heap_[at].id)] = absent;
    const entry last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    place(at, last);
    if (at > 0 && earlier(last, heap_[(at - 1) / 2])) up(at);
    else down(at);
  }

  std::vector<entry> heap_;
  std::vector<std::size_t> where_;  // by worker: its index in heap_, or absent
};

}  // namespace locus::detail::sim
