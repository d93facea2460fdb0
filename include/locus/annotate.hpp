// What a task touches and computes, for the simulator.
//
// The simulator (LOCUS_ENGINE=sim, docs/simulator.md) runs task bodies for
// real but does not time them: a task's simulated duration is what it
// declares here, the cost of its memory accesses on the modeled cache
// hierarchy plus its declared computation. Declare the data a base case
// reads and writes, and the cycles of arithmetic it does:
//
//   locus::touch(a + lo, (hi - lo) * sizeof(double), locus::access::read);
//   locus::touch(b + lo, (hi - lo) * sizeof(double), locus::access::write);
//   locus::compute(hi - lo);  // one add per element
//
// With the threaded engine (the default) each call is one load of a flag
// and a branch not taken: cheap enough to leave in production code.
// Calls made off the pool (by a thread that is not a worker) are ignored.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace locus {

enum class access : unsigned char { read, write };

namespace detail {
extern std::atomic<bool> g_simulating;  // true while a simulated pool runs
// true while touch() is heard: a simulated pool runs, or a policy counts
// the bytes tasks declare (cats's declared miss source, on threads)
extern std::atomic<bool> g_annotating;
void simulate_touch(const void* address, std::size_t bytes, access how) noexcept;
void simulate_touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                            std::size_t count, std::size_t elem_size, access how) noexcept;
void simulate_compute(std::uint64_t cycles) noexcept;
// Page homes of the simulated memory (used by locus's memory placement
// calls; no effect unless a simulated pool runs). node < 0: interleave.
void simulate_place_pages(const void* address, std::size_t bytes, int node) noexcept;
// The pages are unmapped: memory mapped there later is new to the simulator.
void simulate_forget_pages(const void* address, std::size_t bytes) noexcept;
// The simulated home node of the page holding address, or -1 (no simulated
// pool, or the page has no home yet).
int simulated_page_home(const void* address) noexcept;
}  // namespace detail

// Whether a simulated pool runs: for annotations that cost something to
// compute (finding the exact ranges a step reads), so that they are worked
// out only when the simulator will use them.
inline bool simulating() noexcept { return detail::g_simulating.load(std::memory_order_relaxed); }

// The calling task reads (or writes) bytes [address, address + bytes).
inline void touch(const void* address, std::size_t bytes, access how = access::read) noexcept {
  if (detail::g_annotating.load(std::memory_order_relaxed)) [[unlikely]]
    detail::simulate_touch(address, bytes, how);
}

// The calling task reads (or writes) the elements base[indices[i]], i <
// count, each elem_size bytes (a gather, or a scatter): `base` points to
// element 0, whatever type it has. The elements are independent accesses:
// their misses overlap like the lines of one touch(), but a prefetcher does
// not follow them.
//
// Dependence: the lines of one touch() or touch_indexed() call are taken
// as independent (their misses overlap, up to the machine's outstanding
// misses per core); separate calls are taken as dependent (each waits for
// the previous one's data). Declare a pointer chase as one touch per hop.
template <class Index>
inline void touch_indexed(const void* base, const Index* indices, std::size_t count, std::size_t elem_size,
                          access how = access::read) noexcept {
  static_assert(std::is_integral_v<Index> && sizeof(Index) <= 8, "indices must be integers of at most 8 bytes");
  if (detail::g_annotating.load(std::memory_order_relaxed)) [[unlikely]]
    detail::simulate_touch_indexed(base, indices, sizeof(Index), std::is_signed_v<Index>, count, elem_size, how);
}

// The calling task computes for `cycles` core clock cycles of the modeled
// machine, besides the memory accesses it declares with touch().
inline void compute(std::uint64_t cycles) noexcept {
  if (detail::g_simulating.load(std::memory_order_relaxed)) [[unlikely]]
    detail::simulate_compute(cycles);
}

}  // namespace locus
