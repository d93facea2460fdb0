// The NUMA policy of a range of pages, set with mbind (node_policy.cpp).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace locus::detail {

// Whether mbind can make pages land elsewhere than first touch would: the
// kernel supports NUMA (libnuma's numa_available) and the machine has more
// than one node. When false the placement calls leave pages first-touch.
bool kernel_places_pages() noexcept;

// mbind(MPOL_BIND) of [address, address + bytes) to OS node `node`, or
// mbind(MPOL_INTERLEAVE) over `nodes` (at least one). The range is whole pages that no one
// has touched yet. Throw std::system_error with mbind's errno; the message
// starts with `call` and names the size, the range and the node(s), then
// `purpose` ("for place 2").
void bind_pages(std::string_view call, void* address, std::size_t bytes, int node,
                std::string_view purpose);
// The same bind for pages that may exist already: they are moved
// (MPOL_MF_MOVE; pages shared with another process stay).
void move_pages_to(std::string_view call, void* address, std::size_t bytes, int node,
                   std::string_view purpose);
void interleave_pages(std::string_view call, void* address, std::size_t bytes,
                      std::span<const int> nodes);
// The same interleave for pages that may exist already (MPOL_MF_MOVE).
void move_pages_interleaved(std::string_view call, void* address, std::size_t bytes,
                            std::span<const int> nodes);

}  // namespace locus::detail
