// Where each page of simulated memory lives: its home NUMA node, recorded
// per page. A page gets its home when first accessed, by the policy
// (first touch: the accessing core's node; interleave: page number modulo
// the number of nodes), unless a range was bound or interleaved explicitly
// before. Binding a range that already has homes moves its pages, as
// move_pages / mbind with MPOL_MF_MOVE would.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace locus::detail::sim {

enum class page_policy { first_touch, interleave };

class page_homes {
 public:
  // Requires num_nodes >= 1 (every topology has at least one node).
  page_homes(int num_nodes, page_policy policy);

  // The home of `page`, giving it one by the policy if it has none.
  int home_for_access(std::uint64_t page, int accessing_node);
  std::optional<int> home_of(std::uint64_t page) const;

  // Pages first..last (inclusive) live on `node`.
  void bind(std::uint64_t first, std::uint64_t last, int node);
  // Pages first..last (inclusive) live on page % num_nodes.
  void interleave(std::uint64_t first, std::uint64_t last);

  page_policy policy() const { return policy_; }
  int num_nodes() const { return num_nodes_; }

 private:
  int interleaved_home(std::uint64_t page) const {
    return static_cast<int>(page % static_cast<std::uint64_t>(num_nodes_));
  }

  // The home slot of `page` (-1: none yet), created if `create`, else
  // nullptr when there is none.
  std::int32_t* slot(std::uint64_t page, bool create);
  const std::int32_t* find(std::uint64_t page) const;

  // Pages below this number (the simulator's dense page numbers) are kept
  // by index, the rest in the map (any address, as in tests).
  static constexpr std::uint64_t indexed_pages = std::uint64_t{1} << 26;

  int num_nodes_;
  page_policy policy_;
  std::vector<std::int32_t> indexed_;
  std::unordered_map<std::uint64_t, std::int32_t> homes_;
};

}  // namespace locus::detail::sim
