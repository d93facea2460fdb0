// Data distributions (TBB-NUMA paper, section 4.5): which place holds
// which part of an iteration space of size() iterations. A loop given a
// distribution hints each sub-range at the place that holds it as the range
// unfolds (NUMA-aware computation scheduling, NACS); locus::distribute puts
// an array's pages on the same places (NUMA-aware data distribution, NADD).
//
//   locus::block_distribution rows(n);                 // block p at place p
//   locus::distribute(std::span(a), rows);             // a's pages follow it
//   locus::parallel_for(0, n, body, rows);             // sub-range at its place
//   locus::block_cyclic_distribution cyc(n, 64);       // 64 iterations per place, dealt round-robin
//
// A user-defined distribution derives from locus::distribution and gives
// the one method place_of(lo, hi): the place of iterations [lo, hi), or
// locus::any.place (-1) when no single place should be preferred (they span
// several places). The loop splits a sub-range in halves until it has a
// place (and is at most its grain, if one is given), and asks only for
// sub-ranges of at least one iteration inside [0, size()).
//
// Iteration begin + k of a loop is element k of its distribution, so the
// loop's length must be the distribution's size (std::invalid_argument
// otherwise). A distribution is read, never written, by the loops and by
// distribute, so one object can serve several loops at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "locus/memory.hpp"
#include "locus/place.hpp"

namespace locus {

class distribution {
 public:
  // size: the iterations of the loops it describes (>= 0, else
  // std::invalid_argument); places: how many places it deals over (>= 1).
  distribution(std::int64_t size, int places);
  virtual ~distribution() = default;

  std::int64_t size() const noexcept { return size_; }
  int places() const noexcept { return places_; }

  // The place of iterations [lo, hi), 0 <= lo < hi <= size(); -1 for none.
  // Must return -1 or a place in 0..num_places()-1 (a loop checks it).
  virtual int place_of(std::int64_t lo, std::int64_t hi) const = 0;

 private:
  std::int64_t size_;
  int places_;
};

// places() contiguous blocks, block p at place p: the blocks of
// locus::place_block, so the same as alloc_partitioned and move_to_places.
// places defaults to num_places() (which starts the pool).
class block_distribution : public distribution {
 public:
  explicit block_distribution(std::int64_t size);
  block_distribution(std::int64_t size, int places);
  // The place of block p if [lo, hi) lies inside it, else -1.
  int place_of(std::int64_t lo, std::int64_t hi) const override;
  // The place of iteration i.
  int place_of(std::int64_t i) const;
};

// Blocks of `block` iterations (>= 1) dealt to places 0, 1, ...,
// places()-1, 0, 1, ... (TBB-NUMA figure 8(a)).
class block_cyclic_distribution : public distribution {
 public:
  block_cyclic_distribution(std::int64_t size, std::int64_t block);
  block_cyclic_distribution(std::int64_t size, std::int64_t block, int places);
  std::int64_t block() const noexcept { return block_; }
  // The place of the block holding [lo, hi), or -1 if it spans two blocks.
  int place_of(std::int64_t lo, std::int64_t hi) const override;

 private:
  std::int64_t block_;
};

namespace detail {
void distribute_pages(void* data, std::size_t count, std::size_t element_bytes, const distribution& d);
// d.place_of(lo, hi), checked: -1 or a place of the running pool, else
// std::invalid_argument naming the sub-range, the place and the range.
int checked_place_of(const distribution& d, std::int64_t lo, std::int64_t hi);
}  // namespace detail

// Moves the pages of an existing array (placed_array, std::vector, ...) to
// the places of `d`: element e of the array stands for iteration
// floor(e * d.size() / data.size()) of the distribution, so an array that
// is not one element per iteration (a sparse matrix's values, indexed by
// nonzero, under a distribution of its rows) is spread in proportion. Each
// page goes to the place of the element holding its first byte (the first,
// partial page with element 0), with mbind(MPOL_BIND, MPOL_MF_MOVE) on the
// place's node; pages whose element has no place (-1) stay where they are.
// Under the simulator it sets the pages' homes. Starts the pool if needed;
// a place out of range throws std::invalid_argument. TBB-NUMA's
// data_distribution::enforce.
template <typename T>
void distribute(std::span<T> data, const distribution& d) {
  detail::distribute_pages(static_cast<void*>(const_cast<std::remove_const_t<T>*>(data.data())), data.size(),
                           sizeof(T), d);
}

}  // namespace locus
