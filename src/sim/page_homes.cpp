#include "sim/page_homes.hpp"

namespace locus::detail::sim {

page_homes::page_homes(int num_nodes, page_policy policy)
    : num_nodes_(num_nodes), policy_(policy) {}

int page_homes::home_for_access(std::uint64_t page, int accessing_node) {
  const auto [it, is_first_touch] = homes_.try_emplace(page, 0);
  if (is_first_touch)
    it->second = policy_ == page_policy::first_touch ? accessing_node : interleaved_home(page);
  return it->second;
}

std::optional<int> page_homes::home_of(std::uint64_t page) const {
  const auto it = homes_.find(page);
  if (it == homes_.end()) return std::nullopt;
  return it->second;
}

void page_homes::bind(std::uint64_t first, std::uint64_t last, int node) {
  for (std::uint64_t page = first;; ++page) {
    homes_[page] = node;
    if (page == last) break;
  }
}

void page_homes::interleave(std::uint64_t first, std::uint64_t last) {
  for (std::uint64_t page = first;; ++page) {
    homes_[page] = interleaved_home(page);
    if (page == last) break;
  }
}

}  // namespace locus::detail::sim
