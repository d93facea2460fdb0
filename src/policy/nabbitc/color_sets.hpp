// The color sets of NabbitC's stealable frames (seed 004, section III,
// "Color-aware GCC Cilk Plus runtime"): the paper keeps a color deque beside
// the work deque, one fixed-length array of flags per continuation, so that
// a thief checks "does the top frame hold a node of my color?" in constant
// time. Here the set travels as the frame's first task-context word, which
// every push of a nabbitc worker copies into the deque's tag
// (hook_tag_frames), so a thief peeks at it with steal_if.
//
// A tag is 32 bits; the paper's machine had 80 colors. So a tag is one of
//   0                       no color (not a graph's frame): never colored
//   1 .. 2^30 - 1           one color, tag - 1 (spawn_nodes, a node's compute)
//   inline_bit | bits       a set of colors below 30, as bits 0..29
//   side_bit | index        a set with a color of 30 or more: slot `index`
//                           of a side array of bit sets, ceil(colors/64)
//                           words each
// Contract: make() and release() from any worker; has() from any thread,
// racing with both. A slot is released only after the fork_join that pushed
// the frame carrying its tag has returned, so the frame has left the deque
// (popped or stolen: either moved the deque's top past it). A thief that
// reads a slot being reused therefore fails its steal_if CAS on the top,
// whatever it decided; slots and their chunks stay mapped until the pool
// stops, and every word is an atomic, so the stale read is harmless.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace locus::detail {

class color_sets {
 public:
  static constexpr std::uint32_t inline_bit = 0x40000000u;
  static constexpr std::uint32_t side_bit = 0x80000000u;
  static constexpr int inline_colors = 30;           // colors 0..29 fit a tag
  static constexpr std::uint32_t max_single = 0x3fffffffu;  // largest one-color tag

  // `colors`: how many colors the workers have (a color c >= colors can
  // never match a worker; it is kept in one-color tags and dropped from sets).
  explicit color_sets(int colors);
  ~color_sets();
  color_sets(const color_sets&) = delete;
  color_sets& operator=(const color_sets&) = delete;

  // The tag of one color (no_color, negative: 0).
  static std::uint32_t single(int color) noexcept {
    return color < 0 || static_cast<std::uint32_t>(color) >= max_single ? 0 : static_cast<std::uint32_t>(color) + 1;
  }
  // The tag of the set {colors[0..n)}; a side slot when a color is 30 or
  // more. Pair every tag with release() once no frame carries it.
  std::uint32_t make(const int* colors, std::size_t n);
  void release(std::uint32_t tag) noexcept;
  // Whether the set behind `tag` holds `color` (a thief's colored test).
  bool has(std::uint32_t tag, int color) const noexcept;

  // A color of the set behind `tag` below colors(), the first at or after
  // `start` (cyclically), or -1 if it holds none.
  int some_color(std::uint32_t tag, std::uint32_t start) const noexcept;

  int colors() const noexcept { return colors_; }
  std::size_t slots_in_use() const;  // for tests: every make() was released

 private:
  static constexpr std::uint32_t slots_per_chunk = 1024;
  static constexpr std::uint32_t max_chunks = 1u << 14;  // 16 M live sets; make() then gives up (tag 0)
  std::atomic<std::uint64_t>* slot(std::uint32_t index) const noexcept;

  int colors_;
  std::size_t words_;  // per slot
  // Chunks are published once (release) and freed only by the destructor.
  std::unique_ptr<std::atomic<std::atomic<std::uint64_t>*>[]> chunks_;
  mutable std::mutex mutex_;  // the free list and the next fresh slot
  std::vector<std::uint32_t> free_;
  std::uint32_t fresh_ = 0;
};

}  // namespace locus::detail
