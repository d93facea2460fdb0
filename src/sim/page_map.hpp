// The simulator's address map: real pages -> simulated pages.
//
// Pages are numbered in the order they are first touched, so a run does not
// depend on where the OS placed the program's memory (address-space layout
// randomization); each number is then colored (colored_page), as an
// operating system hands out free frames without a pattern. The offset
// within the page is kept. Belongs to the simulation thread (a thread
// outside the pool uses it only while the simulation is quiescent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

#include "util/malloc_allocator.hpp"

namespace locus::detail::sim {

class page_map {
 public:
  // Also fixes how glibc's malloc places large blocks (see the definition).
  explicit page_map(std::uint64_t page_bytes);

  std::uint64_t page_bytes() const { return std::uint64_t{1} << page_shift_; }
  // The simulated address of a real one. A page seen for the first time
  // gets the next number when `assign`; else the result is 0 (no simulated
  // address is 0).
  std::uint64_t simulated_address(std::uint64_t address, bool assign);
  // Drops the pages from the map: what is mapped there later gets new
  // simulated pages.
  void forget(const void* address, std::size_t bytes);

  // The simulated page of the n-th page first touched (its color: see the
  // definition).
  static std::uint64_t colored_page(std::uint64_t n);

 private:
  // Its memory comes from malloc: forget, which a program's operator
  // delete may call, erases from it (util/malloc_allocator.hpp).
  std::unordered_map<std::uint64_t, std::uint64_t, std::hash<std::uint64_t>, std::equal_to<std::uint64_t>,
                     malloc_allocator<std::pair<const std::uint64_t, std::uint64_t>>>
      map_;
  std::uint64_t last_real_page_ = ~std::uint64_t{0};
  std::uint64_t last_sim_page_ = 0;
  std::uint64_t next_sim_page_ = 1;
  int page_shift_ = 12;
};

}  // namespace locus::detail::sim
