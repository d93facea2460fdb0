// The simulator's ready queue: the virtual workers that can run, by
// (virtual time, id), earliest first. Each worker is in it at most once
// (a ready worker by its clock, a napping one by its timer's deadline), so
// it is a binary heap indexed by worker: push, pop the earliest and remove
// a given worker are O(log P), and nothing allocates after reserve(). It
// replaces an ordered set of (time, id) pairs, whose every insert
// allocated a tree node: the order it gives is the same total order, so
// the simulation runs the same workers at the same times.
//
// An entry is one 64-bit key, time << id_bits | id: (time, id) order is
// then one integer compare, which the sift loops do at every level
// (callgrind: fewer instructions than comparing time, then id). Times
// must stay below 2^48 cycles (26 hours of virtual time at 3 GHz); a
// later one stops the simulation rather than order it wrongly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace locus::detail::sim {

class ready_queue {
 public:
  static constexpr unsigned id_bits = 16;
  static constexpr std::uint64_t max_time = ~std::uint64_t{0} >> id_bits;

  // Room for workers 0 .. workers - 1; allocates once.
  void reserve(int workers) {
    if (workers > (1 << id_bits)) stop("more than 65536 virtual workers", 0);
    heap_.reserve(static_cast<std::size_t>(workers));  // a worker is in the queue at most once
    where_.assign(static_cast<std::size_t>(workers), absent);
  }

  bool empty() const { return heap_.empty(); }
  bool contains(int id) const { return where_[static_cast<std::size_t>(id)] != absent; }
  // The earliest entry; requires !empty().
  std::uint64_t first_time() const { return heap_.front() >> id_bits; }
  int first_id() const { return id_of(heap_.front()); }
  // Whether the earliest entry comes before (time, id); false when empty.
  bool has_earlier(std::uint64_t time, int id) const { return !heap_.empty() && heap_.front() < key(time, id); }

  // Adds a worker that is not in the queue.
  void push(int id, std::uint64_t time) {
    heap_.push_back(key(time, id));
    up(heap_.size() - 1);
  }
  // Removes and returns the earliest worker; requires !empty().
  int pop() {
    const int id = id_of(heap_.front());
    remove_at(0);
    return id;
  }
  // pop() then push(id, time) in one sift; requires has_earlier(time, id)
  // (the first entry stays first until it is taken, so the result is the
  // same). Returns the worker taken.
  int replace_first(int id, std::uint64_t time) {
    const int first = id_of(heap_.front());
    where_[static_cast<std::size_t>(first)] = absent;
    heap_.front() = key(time, id);
    down(0);
    return first;
  }
  // Removes the worker if it is in the queue.
  void erase(int id) {
    const std::size_t at = where_[static_cast<std::size_t>(id)];
    if (at != absent) remove_at(at);
  }

 private:
  using entry = std::uint64_t;  // time << id_bits | id
  static constexpr std::size_t absent = ~std::size_t{0};

  [[noreturn]] static void stop(const char* what, std::uint64_t time) {
    std::fprintf(stderr, "locus: simulator: ready queue: %s (%llu)\n", what, static_cast<unsigned long long>(time));
    std::abort();
  }
  static entry key(std::uint64_t time, int id) {
    if (time > max_time) [[unlikely]]
      stop("a virtual time past 2^48 cycles", time);
    return time << id_bits | static_cast<std::uint64_t>(id);
  }
  static int id_of(entry e) { return static_cast<int>(e & ((entry{1} << id_bits) - 1)); }

  void place(std::size_t at, entry e) {
    heap_[at] = e;
    where_[static_cast<std::size_t>(id_of(e))] = at;
  }
  void up(std::size_t at) {
    const entry e = heap_[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (e > heap_[parent]) break;  // keys are distinct: ids are
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
      if (child + 1 < n && heap_[child + 1] < heap_[child]) ++child;
      if (heap_[child] > e) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, e);
  }
  void remove_at(std::size_t at) {
    where_[static_cast<std::size_t>(id_of(heap_[at]))] = absent;
    const entry last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    place(at, last);
    if (at > 0 && last < heap_[(at - 1) / 2]) up(at);
    else down(at);
  }

  std::vector<entry> heap_;
  std::vector<std::size_t> where_;  // by worker: its index in heap_, or absent
};

}  // namespace locus::detail::sim
