// Where a page lives: move_pages(2) with no target nodes only reports.
#include <numaif.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <system_error>

#include "locus/annotate.hpp"
#include "locus/memory.hpp"
#include "memory/mapping.hpp"

namespace locus {
namespace {

// "locus::page_node(0x...)", the start of every message.
std::string call_name(const void* address) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof text, "%p", address);
  return "locus::page_node(" + std::string(text) + ")";
}

// mincore fails with ENOMEM exactly when part of the range is not mapped.
// `resident` says whether the page has a frame (for a kernel without NUMA).
bool is_mapped(void* page, bool* resident) {
  unsigned char in_core = 0;
  if (mincore(page, detail::page_bytes(), &in_core) != 0) {
    if (errno == ENOMEM) return false;
    throw std::system_error(errno, std::generic_category(), call_name(page) + ": mincore");
  }
  if (resident != nullptr) *resident = (in_core & 1) != 0;
  return true;
}

[[noreturn]] void not_mapped(const void* address) {
  throw std::invalid_argument(call_name(address) + ": this address is not mapped in the process");
}

}  // namespace

std::optional<int> page_node(const void* address) {
  if (const int home = detail::simulated_page_home(address); home >= 0) return home;
  const auto page_mask = ~static_cast<std::uintptr_t>(detail::page_bytes() - 1);
  void* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(address) & page_mask);
  int status = 0;
  if (move_pages(0, 1, &page, nullptr, &status, 0) != 0) {
    if (errno != ENOSYS) throw std::system_error(errno, std::generic_category(), call_name(address) + ": move_pages");
    // No NUMA in the kernel: one node, 0, holds every page that has a frame.
    bool resident = false;
    if (!is_mapped(page, &resident)) not_mapped(address);
    return resident ? std::optional<int>(0) : std::nullopt;
  }
  if (status >= 0) return status;
  // ENOENT: no frame yet. EFAULT: the shared zero page (read, never
  // written) or no mapping at all; mincore tells them apart.
  if (status == -ENOENT) return std::nullopt;
  if (status == -EFAULT) {
    if (!is_mapped(page, nullptr)) not_mapped(address);
    return std::nullopt;
  }
  throw std::system_error(-status, std::generic_category(), call_name(address) + ": move_pages status");
}

}  // namespace locus
