// The placement calls: map pages, then set their policy with mbind (when the
// kernel can act on it) and their homes in the simulator (when one runs).
#include <algorithm>
#include <string>
#include <vector>

#include "core/runtime_state.hpp"
#include "locus/annotate.hpp"
#include "locus/memory.hpp"
#include "memory/mapping.hpp"
#include "memory/node_policy.hpp"
#include "memory/place_nodes.hpp"

namespace locus {
namespace detail {
namespace {

std::string for_place(int place, int node) {
  return "for place " + std::to_string(place) + " (node " + std::to_string(node) + ")";
}

// The mbind applies only to the host's own nodes; the simulator's hook runs
// either way (it does nothing unless a simulated pool runs).
void place_range(std::string_view call, const place_nodes& nodes, void* address, std::size_t bytes,
                 int place) {
  const int node = nodes.node[static_cast<std::size_t>(place)];
  if (nodes.on_host && kernel_places_pages())
    bind_pages(call, address, bytes, node, "for place " + std::to_string(place));
  simulate_place_pages(address, bytes, node);
}

}  // namespace

page_mapping map_first_touch(std::size_t count, std::size_t element_bytes) {
  return map_pages("locus::alloc_first_touch", count, element_bytes, "");
}

page_mapping map_on_place(std::size_t count, std::size_t element_bytes, int place) {
  constexpr std::string_view call = "locus::alloc_on_place";
  const runtime_state& rt = pool();
  check_place(call, place, rt.places.num_places);
  const place_nodes nodes = nodes_of_places(rt);
  page_mapping pages =
      map_pages(call, count, element_bytes, for_place(place, nodes.node[static_cast<std::size_t>(place)]));
  if (pages.bytes() > 0) place_range(call, nodes, pages.address(), pages.bytes(), place);
  return pages;
}

page_mapping map_interleaved(std::size_t count, std::size_t element_bytes) {
  constexpr std::string_view call = "locus::alloc_interleaved";
  const place_nodes nodes = nodes_of_places(pool());
  std::vector<int> distinct = nodes.node;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  page_mapping pages = map_pages(call, count, element_bytes, "interleaved");
  if (pages.bytes() == 0) return pages;
  if (nodes.on_host && kernel_places_pages()) interleave_pages(call, pages.address(), pages.bytes(), distinct);
  // The simulator interleaves over all of its machine's nodes, which are the
  // places' nodes whenever every node has a worker.
  simulate_place_pages(pages.address(), pages.bytes(), -1);
  return pages;
}

page_mapping map_partitioned(std::size_t count, std::size_t element_bytes) {
  constexpr std::string_view call = "locus::alloc_partitioned";
  const runtime_state& rt = pool();
  const int places = rt.places.num_places;
  const place_nodes nodes = nodes_of_places(rt);
  page_mapping pages = map_pages(call, count, element_bytes, "partitioned over " + std::to_string(places) + " places");
  if (pages.bytes() == 0) return pages;
  // Page k belongs to the block holding its first byte, so block p owns
  // pages [ceil(begin_p / page), ceil(end_p / page)); the last block's end
  // rounds up to the end of the mapping.
  const std::size_t page = page_bytes();
  const auto page_start = [&](std::size_t element) {
    return (element * element_bytes + page - 1) / page * page;
  };
  auto* base = static_cast<char*>(pages.address());
  for (int p = 0; p < places; ++p) {
    const block_range block = place_block(count, p, places);
    const std::size_t first = page_start(block.begin);
    const std::size_t last = page_start(block.end);
    if (first < last) place_range(call, nodes, base + first, last - first, p);
  }
  return pages;
}

}  // namespace detail

int place_node(int place) {
  const detail::runtime_state& rt = detail::pool();
  detail::check_place("locus::place_node", place, rt.places.num_places);
  return detail::nodes_of_places(rt).node[static_cast<std::size_t>(place)];
}

}  // namespace locus
