// The simulated engine (placeholder header while the engine is written).
#pragma once

#include <cstddef>
#include <cstdint>

#include "locus/annotate.hpp"

namespace locus::detail {

class sim_engine {
 public:
  // The engine simulating the calling thread's workers, or nullptr.
  static sim_engine* on_this_thread() noexcept { return nullptr; }
  void touch(const void*, std::size_t, access) noexcept {}
  void compute(std::uint64_t) noexcept {}
  // The simulated pool, from any thread, or nullptr.
  static sim_engine* running() noexcept { return nullptr; }
  void place_pages(const void*, std::size_t, int) noexcept {}
  int page_home(const void*) noexcept { return -1; }
};

}  // namespace locus::detail
