// Binding and interleaving pages with mbind (libnuma's system call wrapper).
#include "memory/node_policy.hpp"

#include <numa.h>
#include <numaif.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

namespace locus::detail {
namespace {

constexpr std::size_t bits_per_word = sizeof(unsigned long) * CHAR_BIT;

std::string hex(const void* address) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof text, "%p", address);
  return text;
}

// mbind with a node mask holding `nodes`. Nodes the kernel cannot have
// (negative, or beyond its MAX_NUMNODES) are left to it to refuse: a
// negative node sets no bit, so the mask is empty and mbind says EINVAL.
void set_policy(std::string_view call, void* address, std::size_t bytes, int mode,
                const char* mode_name, std::span<const int> nodes, const std::string& what,
                unsigned flags = 0) {
  const int highest = *std::max_element(nodes.begin(), nodes.end());
  std::vector<unsigned long> mask(static_cast<std::size_t>(std::max(highest, 0)) / bits_per_word + 1, 0);
  for (const int node : nodes)
    if (node >= 0) mask[static_cast<std::size_t>(node) / bits_per_word] |= 1ul << (node % bits_per_word);
  // The kernel reads maxnode - 1 bits (libnuma passes its mask size + 1).
  const unsigned long maxnode = mask.size() * bits_per_word + 1;
  if (mbind(address, bytes, mode, mask.data(), maxnode, flags) != 0)
    throw std::system_error(errno, std::generic_category(),
                            std::string(call) + ": mbind(" + mode_name + ") of " + std::to_string(bytes) +
                                " bytes at " + hex(address) + " " + what);
}

std::string node_list(std::span<const int> nodes) {
  std::string text;
  for (const int node : nodes) text += (text.empty() ? "" : ",") + std::to_string(node);
  return text;
}

}  // namespace

bool kernel_places_pages() noexcept {
  // numa_available must be called before any other libnuma function.
  static const bool places = numa_available() >= 0 && numa_num_configured_nodes() > 1;
  return places;
}

void bind_pages(std::string_view call, void* address, std::size_t bytes, int node,
                std::string_view purpose) {
  const int nodes[] = {node};
  set_policy(call, address, bytes, MPOL_BIND, "MPOL_BIND", nodes,
             "to node " + std::to_string(node) + (purpose.empty() ? "" : " ") + std::string(purpose));
}

void move_pages_to(std::string_view call, void* address, std::size_t bytes, int node,
                   std::string_view purpose) {
  const int nodes[] = {node};
  set_policy(call, address, bytes, MPOL_BIND, "MPOL_BIND, MPOL_MF_MOVE", nodes,
             "to node " + std::to_string(node) + (purpose.empty() ? "" : " ") + std::string(purpose),
             MPOL_MF_MOVE);
}

void interleave_pages(std::string_view call, void* address, std::size_t bytes,
                      std::span<const int> nodes) {
  set_policy(call, address, bytes, MPOL_INTERLEAVE, "MPOL_INTERLEAVE", nodes,
             "over nodes " + node_list(nodes));
}

void move_pages_interleaved(std::string_view call, void* address, std::size_t bytes,
                            std::span<const int> nodes) {
  set_policy(call, address, bytes, MPOL_INTERLEAVE, "MPOL_INTERLEAVE, MPOL_MF_MOVE", nodes,
             "over nodes " + node_list(nodes), MPOL_MF_MOVE);
}

}  // namespace locus::detail
