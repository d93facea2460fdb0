// CATS's online profile (seed 002, section 3.2): spawn-path identifiers,
// the per-worker record of the profiled iteration, the table of each task's
// size of involved data (SOID) built from it, and the two decisions made
// from that table: the tier of a task (section 3.2.2, figure 6) and whether
// the program is CPU-bound (section 3.5).
//
// Identifiers (section 3.2.2, last paragraphs): a task whose identifier is
// S gives its i-th child S_i. locus hashes the path into 48 bits
// (child_id); every root task is the empty path, so that the tasks of one
// iteration (a root task) find their ids in the profile of an earlier one.
// Each root computation also gets its own identity, a root tag (its
// sequence number, 16 bits, never 0), which its tasks inherit: a profile
// belongs to one root, and only that root's tasks add to it (issue 42).
//
// Recording (profile_recorder): each worker accumulates, in its own slot,
// the misses of the strands it ran of each task of the profiled root and
// the tasks it saw complete (with their parents). The slots are merged
// once, when the profile ends (build): Eq. (1), S = M + sum of S_i over
// the completed children, M in bytes (misses times the unit the miss
// source counts in).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "policy/cats/miss_source.hpp"

namespace locus::detail::cats {

using task_id = std::uint64_t;  // 48 bits
inline constexpr task_id root_id = 0;
inline constexpr task_id id_mask = (task_id{1} << 48) - 1;
using root_tag = std::uint16_t;  // 0: none yet

// S_i from S and i (i >= 1): a 64-bit mix of both, kept to 48 bits, so ids
// of different paths collide only by chance (2^-48 per pair).
inline task_id child_id(task_id parent, std::uint32_t index) {
  std::uint64_t x = parent ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(index) + 1));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  x &= id_mask;
  return x == root_id ? 1 : x;
}

// Whether root tag a was given after b (tags wrap around at 2^16).
inline bool later_root(root_tag a, root_tag b) { return static_cast<std::int16_t>(static_cast<std::uint16_t>(a - b)) > 0; }

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

// What one task's own strands did (whichever workers ran them).
struct task_counts {
  std::uint64_t misses = 0;        // last private level misses
  std::uint64_t bytes = 0;         // M of Eq. (1)
  double weighted = 0;             // section 3.5's normalized misses
  std::uint64_t instructions = 0;  // section 3.5's N (0: unknown)
  std::uint64_t ns = 0;            // time they ran
  void add(const miss_sample& d, std::uint64_t bytes_per_miss, std::uint64_t elapsed_ns) {
    misses += d.misses;
    bytes += d.misses * bytes_per_miss;
    weighted += d.weighted;
    instructions += d.instructions;
    ns += elapsed_ns;
  }
  void add(const task_counts& c) {
    misses += c.misses;
    bytes += c.bytes;
    weighted += c.weighted;
    instructions += c.instructions;
    ns += c.ns;
  }
};

// A finished profile: read by the partition (any thread, under its lock).
class soid_table {
 public:
  struct entry {
    task_counts own;
    std::uint64_t children_bytes = 0;  // sum of the completed children's SOIDs
    bool completed = false;
    std::uint64_t soid() const { return own.bytes + children_bytes; }
  };

  // Misses of task `id`'s own strands.
  void credit(task_id id, const miss_sample& d, std::uint64_t bytes_per_miss, std::uint64_t ns);
  void add(task_id id, const task_counts& c);
  // Task `id`, a child of `parent`, completed: its SOID is final and is
  // returned to its parent (figure 5). Returns its SOID.
  std::uint64_t complete(task_id id, task_id parent);
  bool completed(task_id id) const;
  std::optional<std::uint64_t> soid(task_id id) const;
  std::optional<entry> find(task_id id) const;
  std::size_t size() const;
  void clear();

  // Section 3.5: the program is CPU-bound if most working tasks (those with
  // instructions or misses of their own; tasks that only spawn say
  // nothing) have a CMPI, normalized misses per instruction, below
  // `threshold`. No working task: not CPU-bound.
  bool cpu_bound_cmpi(double threshold) const;
  // Ours (option cpu_bound_misses, off by default): the same with misses
  // of the last private level per microsecond of the tasks that ran for
  // at least `min_ns`.
  bool cpu_bound_per_us(double misses_per_us, std::uint64_t min_ns = 1000) const;
  // Where no CMPI can be had (perf, declared): whether no task missed at all.
  bool no_misses() const;

 private:
  mutable std::mutex lock_;
  std::unordered_map<task_id, entry> entries_;
};

// The profile being recorded: one slot per worker, written by its worker.
class profile_recorder {
 public:
  explicit profile_recorder(int workers);

  // Starts recording root computation `root` (0: none until a root claims
  // it, claim), forgetting what was recorded. Any thread; a worker
  // recording at the same time either lands before the slot is cleared or
  // sees the new root and records nothing.
  void start(root_tag root);
  // The root computation begun as `root` becomes the profiled one if none
  // is. Returns whether it is the profiled one now.
  bool claim(root_tag root);
  root_tag root() const { return root_.load(std::memory_order_acquire); }

  // Worker w ran a strand of task `id` of root computation `root`: ignored
  // unless that root is the profiled one.
  void credit(int w, root_tag root, task_id id, const miss_sample& d, std::uint64_t bytes_per_miss,
              std::uint64_t ns);
  // Worker w saw task `id` of `root`, a child of `parent`, complete.
  // Returns whether it was recorded (the profiled root's).
  bool complete(int w, root_tag root, task_id id, task_id parent);
  // Whether some worker saw `id` complete (section 3.2.2's lookup).
  bool completed(task_id id) const;
  // Eq. (1) over what the slots hold: the finished profile, into t
  // (emptied first).
  void build_into(soid_table& t) const;

 private:
  struct alignas(64) slot {
    mutable std::mutex lock;  // taken by its worker, and by start, completed and build
    std::unordered_map<task_id, task_counts> own;
    std::unordered_map<task_id, task_id> done;  // completed task -> its parent
  };
  std::atomic<root_tag> root_{0};
  int workers_;
  std::unique_ptr<slot[]> slots_;
};

}  // namespace locus::detail::cats
