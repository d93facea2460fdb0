// Whole pages from mmap for the placement calls (mapping.cpp).
#pragma once

#include <cstddef>
#include <string_view>

#include "locus/memory.hpp"

namespace locus::detail {

std::size_t page_bytes() noexcept;

// count * element_bytes rounded up to whole pages, mapped readable and
// writable, private and anonymous, with no placement policy yet. count == 0
// maps nothing. `call` names the public call for messages and `purpose`
// says what the memory is for ("for place 2 (node 0)"). Throws
// std::length_error if the size does not fit in size_t and std::system_error
// if mmap fails.
page_mapping map_pages(std::string_view call, std::size_t count, std::size_t element_bytes,
                       std::string_view purpose);

}  // namespace locus::detail
