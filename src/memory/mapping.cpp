// Page mappings: the mmap and munmap behind every placed_array.
#include "memory/mapping.hpp"

#include "locus/annotate.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>

namespace locus::detail {

std::size_t page_bytes() noexcept {
  static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

page_mapping map_pages(std::string_view call, std::size_t count, std::size_t element_bytes,
                       std::string_view purpose) {
  if (count == 0) return {};
  const std::size_t page = page_bytes();
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  if (count > max / element_bytes || count * element_bytes > max - (page - 1))
    throw std::length_error(std::string(call) + ": " + std::to_string(count) + " elements of " +
                            std::to_string(element_bytes) + " bytes do not fit in the address space");
  const std::size_t bytes = (count * element_bytes + page - 1) / page * page;
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(),
                            std::string(call) + ": mmap of " + std::to_string(bytes) + " bytes" +
                                (purpose.empty() ? "" : " ") + std::string(purpose));
  return {address, bytes};
}

// munmap fails only for arguments that are not a mapping we made, which a
// page_mapping never holds; a destructor could not report it anyway.
void page_mapping::unmap() noexcept {
  // A later mapping at these addresses is new memory to the simulator too.
  if (address_ != nullptr) simulate_forget_pages(address_, bytes_);
  if (address_ != nullptr) munmap(address_, bytes_);
}

}  // namespace locus::detail
