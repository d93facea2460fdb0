// An allocator that takes memory from malloc, not from operator new: for
// the simulator's own bookkeeping, which must not reach a program's
// replaced operator new and delete. locus-bench replaces them
// (bench/runner/large_blocks.cpp) and tells the simulator to forget the
// pages of every large block it frees, so a table of the simulator's
// whose rehash freed its old buckets through it was told to forget pages
// while it was being rehashed (a crash on working sets of gigabytes).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace locus::detail {

template <class T>
struct malloc_allocator {
  using value_type = T;
  malloc_allocator() noexcept = default;
  template <class U>
  malloc_allocator(const malloc_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (void* p = std::malloc(n * sizeof(T))) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const malloc_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace locus::detail
