// A parallel, double-buffered partition over fixed-size blocks, the
// partition of the ADWS benchmarks Quicksort, KDTree and Decision Tree
// (seed 003, section 6.2). The n elements of `from` are split into `Sides`
// sides by a classifier side(x) in [0, Sides); every side keeps its
// elements in their order and the sides follow each other in `to`:
//
//   bench::block_partition<2, point> part(from, n, block, 1);
//   part.count<P>(classify);           // parallel over blocks, then a prefix sum
//   if (part.size(0) == n) ...         // the sides' sizes are known here
//   part.scatter<P>(to, classify);     // parallel over blocks
//
// count() gives each block its slots, scatter() moves each block's elements
// into them: the blocks write disjoint runs of `to`, so neither step needs a
// lock. Between the two the caller sees the sides' sizes (a KD-tree node
// whose points all fall on one side stops there).
//
// For the simulator every step declares what it reads and writes; cycles:
// cycles_per_element per element counted and again per element scattered,
// 1 per prefix sum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/places.hpp"

namespace bench {

template <int Sides, class T>
class block_partition {
  static_assert(Sides >= 2, "bench::block_partition: at least two sides");

 public:
  block_partition(const T* from, std::int64_t n, std::int64_t block, std::uint64_t cycles_per_element)
      : from_(from),
        n_(n),
        block_(block),
        blocks_((n + block - 1) / block),
        cycles_(cycles_per_element),
        slot_(static_cast<std::size_t>(Sides * blocks_)) {}

  // Counts each block's elements per side, then turns the counts into
  // where each block's run of each side starts in the output.
  template <class P, class Side>
  void count(Side side) {
    // Footprint (multi-level policies): the elements read.
    sized_loop<P>(0, blocks_, 1, static_cast<std::size_t>(n_) * sizeof(T), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        const T *begin = block_begin(k), *end = block_end(k);
        touch_n(begin, end - begin, locus::access::read);
        touch_n(&slot_[Sides * k], Sides, locus::access::write);
        locus::compute(cycles_ * static_cast<std::uint64_t>(end - begin));
        // One counter per side but the last, each a compare-and-add: an
        // array indexed by side(x) would chain every increment through
        // memory.
        std::int64_t counted[Sides - 1] = {};
        for (const T* x = begin; x != end; ++x) {
          const int s = side(*x);
          for (int j = 0; j + 1 < Sides; ++j) counted[j] += s == j;
        }
        std::int64_t rest = end - begin;
        for (int j = 0; j + 1 < Sides; ++j) {
          slot_[Sides * k + j] = counted[j];
          rest -= counted[j];
        }
        slot_[Sides * k + Sides - 1] = rest;
      }
    });
    touch_n(slot_.data(), Sides * blocks_, locus::access::write);
    locus::compute(static_cast<std::uint64_t>(Sides * blocks_));
    std::int64_t next = 0;  // all of side 0, then all of side 1, ..., each in block order
    for (int s = 0; s < Sides; ++s) {
      start_[s] = next;
      for (std::int64_t k = 0; k < blocks_; ++k) {
        const std::int64_t counted = slot_[Sides * k + s];
        slot_[Sides * k + s] = next;
        next += counted;
      }
    }
  }

  // After count(): where side s starts in the output, and how many it has.
  std::int64_t start(int s) const { return start_[s]; }
  std::int64_t size(int s) const { return (s + 1 < Sides ? start_[s + 1] : n_) - start_[s]; }

  // Moves every element to its side's run in `to` (n elements, not
  // overlapping `from`). `side` must classify as it did for count().
  template <class P, class Side>
  void scatter(T* to, Side side) {
    // Footprint: the elements read and written.
    sized_loop<P>(0, blocks_, 1, 2 * static_cast<std::size_t>(n_) * sizeof(T), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        T* first[Sides];
        T* next[Sides];
        for (int s = 0; s < Sides; ++s) first[s] = next[s] = to + slot_[Sides * k + s];
        const T *begin = block_begin(k), *end = block_end(k);
        touch_n(&slot_[Sides * k], Sides, locus::access::read);
        touch_n(begin, end - begin, locus::access::read);
        locus::compute(cycles_ * static_cast<std::uint64_t>(end - begin));
        for (const T* x = begin; x != end; ++x) {
          const int s = side(*x);
          // A compare per side, unrolled: the output pointers stay in
          // registers.
          for (int j = 0; j < Sides; ++j)
            if (s == j) {
              *next[j]++ = *x;
              break;
            }
        }
        // The block's runs in `to`, known once it is scattered.
        for (int s = 0; s < Sides; ++s) touch_n(first[s], next[s] - first[s], locus::access::write);
      }
    });
  }

 private:
  const T* block_begin(std::int64_t k) const { return from_ + k * block_; }
  const T* block_end(std::int64_t k) const { return from_ + std::min(n_, (k + 1) * block_); }

  const T* from_;
  std::int64_t n_, block_, blocks_;
  std::uint64_t cycles_;
  // slot_[Sides k + s]: first the count of block k's elements on side s,
  // then where they go in the output.
  std::vector<std::int64_t> slot_;
  std::int64_t start_[Sides] = {};
};

}  // namespace bench
