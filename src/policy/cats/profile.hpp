// CATS's online profile (seed 002, section 3.2): spawn-path identifiers,
// the table of each task's size of involved data (SOID), and the two
// decisions made from it: the tier of a task (section 3.2.2, figure 6) and
// whether the program is CPU-bound (section 3.5).
//
// Identifiers (section 3.2.2, last paragraphs): a task whose identifier is
// S gives its i-th child S_i. locus hashes the path into 64 bits
// (child_id), so an identifier fits a task context; every root task is the
// empty path. A table entry accumulates the task's own private-cache
// misses (its strands only, whichever workers ran them) and, as each child
// completes, the child's SOID: Eq. (1), S = M + sum of S_i, with M in
// bytes (misses times the unit the miss source counts in).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace locus::detail::cats {

using task_id = std::uint64_t;
inline constexpr task_id root_id = 0;

// S_i from S and i (i >= 1): a bijective 64-bit mix of both, so ids of
// different paths collide only by chance (2^-64 per pair).
inline task_id child_id(task_id parent, std::uint32_t index) {
  std::uint64_t x = parent ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(index) + 1));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x == root_id ? 1 : x;
}

// Figure 6: where task alpha goes, from its SOID and its parent's.
enum class tier : std::uint8_t {
  unknown = 0,  // not partitioned (profiling, or a root)
  inter = 1,    // (a) both larger than the shared cache
  leaf = 2,     // (b) the parent's larger, alpha's smaller: a leaf inter-socket task
  intra = 3,    // (c) both smaller: inside an intra-socket subtree
};
// "Larger than the shared cache" is >= here: a subtree exactly the size of
// the cache does not fit beside anything else.
inline tier classify(std::uint64_t parent_soid, std::uint64_t soid, std::uint64_t shared_cache) {
  if (parent_soid < shared_cache) return tier::intra;
  return soid >= shared_cache ? tier::inter : tier::leaf;
}

class soid_table {
 public:
  struct entry {
    std::uint64_t own_bytes = 0;       // M of Eq. (1)
    std::uint64_t children_bytes = 0;  // sum of the completed children's SOIDs
    std::uint64_t own_ns = 0;          // time its own strands ran (section 3.5)
    std::uint64_t own_misses = 0;
    bool completed = false;
    std::uint64_t soid() const { return own_bytes + children_bytes; }
  };

  // Misses (and the time they took) of task `id`'s own strands.
  void credit(task_id id, std::uint64_t misses, std::uint64_t bytes_per_miss, std::uint64_t ns);
  // Task `id`, a child of `parent`, completed: its SOID is final and is
  // returned to its parent (figure 5). Returns its SOID.
  std::uint64_t complete(task_id id, task_id parent);
  // Whether `id` completed (the second iteration has begun when a new
  // task's id is found, section 3.2.2).
  bool completed(task_id id) const;
  std::optional<std::uint64_t> soid(task_id id) const;
  std::optional<entry> find(task_id id) const;
  void clear();
  std::size_t size() const;

  // Section 3.5: the program is CPU-bound if most tasks that ran for at
  // least `min_ns` make fewer than `misses_per_us` private-cache misses
  // per microsecond. (Tasks that only spawn are not counted: their own
  // strands are too short to say anything.) No such task: not CPU-bound.
  bool cpu_bound(double misses_per_us, std::uint64_t min_ns = 1000) const;

 private:
  mutable std::mutex lock_;
  std::unordered_map<task_id, entry> entries_;
};

}  // namespace locus::detail::cats
