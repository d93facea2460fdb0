#include "sim/page_homes.hpp"

#include <algorithm>

namespace locus::detail::sim {

page_homes::page_homes(int num_nodes, page_policy policy)
    : num_nodes_(num_nodes), policy_(policy) {}

std::int32_t* page_homes::slot(std::uint64_t page, bool create) {
  if (page < indexed_pages) {
    if (page >= indexed_.size()) {
      if (!create) return nullptr;
      indexed_.resize(std::max<std::uint64_t>(page + 1, indexed_.size() * 2), -1);
    }
    return &indexed_[page];
  }
  if (!create) {
    const auto it = homes_.find(page);
    return it == homes_.end() ? nullptr : &it->second;
  }
  return &homes_.try_emplace(page, -1).first->second;
}

const std::int32_t* page_homes::find(std::uint64_t page) const {
  return const_cast<page_homes*>(this)->slot(page, false);
}

int page_homes::home_for_access(std::uint64_t page, int accessing_node) {
  std::int32_t& home = *slot(page, true);
  if (home < 0) home = policy_ == page_policy::first_touch ? accessing_node : interleaved_home(page);
  return home;
}

std::optional<int> page_homes::home_of(std::uint64_t page) const {
  const std::int32_t* home = find(page);
  if (home == nullptr || *home < 0) return std::nullopt;
  return *home;
}

void page_homes::bind(std::uint64_t first, std::uint64_t last, int node) {
  for (std::uint64_t page = first;; ++page) {
    *slot(page, true) = node;
    if (page == last) break;
  }
}

void page_homes::interleave(std::uint64_t first, std::uint64_t last) {
  for (std::uint64_t page = first;; ++page) {
    *slot(page, true) = interleaved_home(page);
    if (page == last) break;
  }
}

}  // namespace locus::detail::sim
