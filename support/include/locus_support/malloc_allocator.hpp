// An allocator that takes memory from malloc, not from operator new, for
// the bookkeeping of a program that replaces operator new and delete
// (locus-bench's large blocks, bench/runner/large_blocks.cpp): its own
// tables must not reach its replacements. The simulator keeps its page map
// the same way (src/util/malloc_allocator.hpp, for the same reason; src/ is
// not on the programs' include path, hence this copy). Part of
// locus::support.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace locus_support {

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

}  // namespace locus_support
