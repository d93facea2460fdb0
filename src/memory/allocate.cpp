// The placement calls: map pages, then set their policy with mbind (when the
// kernel can act on it) and their homes in the simulator (when one runs).
#include <algorithm>
#include <string>
#include <vector>

#include "locus/annotate.hpp"
#include "locus/distribution.hpp"
#include "locus/memory.hpp"
#include "memory/mapping.hpp"
#include "memory/node_policy.hpp"
#include "memory/place_nodes.hpp"
#include "memory/pool_view.hpp"

namespace locus {
namespace detail {
namespace {

std::string for_place(int place, int node) {
  return "for place " + std::to_string(place) + " (node " + std::to_string(node) + ")";
}

// The mbind applies only to the host's own nodes; the simulator's hook runs
// either way (it does nothing unless a simulated pool runs).
void place_range(std::string_view call, const place_nodes& nodes, void* address, std::size_t bytes,
                 int place, bool existing = false) {
  const int node = nodes.node[static_cast<std::size_t>(place)];
  if (nodes.on_host && kernel_places_pages()) {
    if (existing) move_pages_to(call, address, bytes, node, "for place " + std::to_string(place));
    else bind_pages(call, address, bytes, node, "for place " + std::to_string(place));
  }
  simulate_place_pages(address, bytes, node);
}

// The pages of the `count` elements at `base`, each to the place of the
// element holding its first byte (the first, partial page with element 0;
// the last, partial page with the element it starts in): place_of(e) is
// that place, or -1 to leave the page alone. Runs of pages with one place
// go in one call.
template <class PlaceOf>
void place_by_element(std::string_view call, const pool_view& pool, char* base, std::size_t count,
                      std::size_t element_bytes, bool existing, PlaceOf&& place_of) {
  const place_nodes nodes = nodes_of_places(pool);
  const std::size_t page = page_bytes();
  const auto start = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t first_page = start / page * page;
  const std::uintptr_t end = (start + count * element_bytes + page - 1) / page * page;
  std::uintptr_t run_start = first_page;
  int run_place = -1;
  const auto flush = [&](std::uintptr_t run_end) {
    if (run_place >= 0 && run_start < run_end)
      place_range(call, nodes, reinterpret_cast<void*>(run_start), run_end - run_start, run_place, existing);
  };
  for (std::uintptr_t a = first_page; a < end; a += page) {
    const std::size_t element = a <= start ? 0 : (a - start) / element_bytes;
    const int place = place_of(element);
    if (place >= 0) check_place(call, place, pool.places.num_places);
    if (a == first_page || place != run_place) {
      flush(a);
      run_start = a;
      run_place = place;
    }
  }
  flush(end);
}

// Block p of the `count` elements at `base` (place_block) to place p: page
// k goes with the block holding its first byte; the first page of the range
// with the first block.
void partition_range(std::string_view call, const pool_view& pool, char* base, std::size_t count,
                     std::size_t element_bytes, bool existing) {
  const block_distribution blocks(static_cast<std::int64_t>(count), pool.places.num_places);
  place_by_element(call, pool, base, count, element_bytes, existing,
                   [&](std::size_t e) { return blocks.place_of(static_cast<std::int64_t>(e)); });
}

// Pages [address, address + bytes) round-robin over the places' nodes.
void interleave_range(std::string_view call, void* address, std::size_t bytes, bool existing) {
  const place_nodes nodes = nodes_of_places(view_of_pool());
  std::vector<int> distinct = nodes.node;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (nodes.on_host && kernel_places_pages()) {
    if (existing) move_pages_interleaved(call, address, bytes, distinct);
    else interleave_pages(call, address, bytes, distinct);
  }
  // The simulator interleaves over all of its machine's nodes, which are the
  // places' nodes whenever every node has a worker.
  simulate_place_pages(address, bytes, -1);
}

}  // namespace

page_mapping map_first_touch(std::size_t count, std::size_t element_bytes) {
  return map_pages("locus::alloc_first_touch", count, element_bytes, "");
}

page_mapping map_on_place(std::size_t count, std::size_t element_bytes, int place) {
  constexpr std::string_view call = "locus::alloc_on_place";
  const pool_view pool = view_of_pool();
  check_place(call, place, pool.places.num_places);
  const place_nodes nodes = nodes_of_places(pool);
  page_mapping pages =
      map_pages(call, count, element_bytes, for_place(place, nodes.node[static_cast<std::size_t>(place)]));
  if (pages.bytes() > 0) place_range(call, nodes, pages.address(), pages.bytes(), place);
  return pages;
}

page_mapping map_interleaved(std::size_t count, std::size_t element_bytes) {
  constexpr std::string_view call = "locus::alloc_interleaved";
  page_mapping pages = map_pages(call, count, element_bytes, "interleaved");
  if (pages.bytes() > 0) interleave_range(call, pages.address(), pages.bytes(), false);
  return pages;
}

page_mapping map_partitioned(std::size_t count, std::size_t element_bytes) {
  constexpr std::string_view call = "locus::alloc_partitioned";
  const pool_view pool = view_of_pool();
  const int places = pool.places.num_places;
  const place_nodes nodes = nodes_of_places(pool);
  page_mapping pages = map_pages(call, count, element_bytes, "partitioned over " + std::to_string(places) + " places");
  if (pages.bytes() == 0) return pages;
  partition_range(call, pool, static_cast<char*>(pages.address()), count, element_bytes, false);
  return pages;
}

}  // namespace detail

void move_to_places(void* data, std::size_t count, std::size_t element_bytes) {
  if (count == 0) return;
  detail::partition_range("locus::move_to_places", detail::view_of_pool(), static_cast<char*>(data), count,
                          element_bytes, true);
}

namespace detail {
void distribute_pages(void* data, std::size_t count, std::size_t element_bytes, const distribution& d) {
  if (count == 0 || d.size() == 0) return;
  const auto size = static_cast<unsigned __int128>(d.size());
  place_by_element("locus::distribute", view_of_pool(), static_cast<char*>(data), count, element_bytes, true,
                   [&](std::size_t e) {
                     // Element e stands for iteration floor(e * size / count).
                     const auto i = static_cast<std::int64_t>(e * size / count);
                     return d.place_of(i, i + 1);
                   });
}
}  // namespace detail

void move_interleaved(void* data, std::size_t count, std::size_t element_bytes) {
  if (count == 0) return;
  // Every page holding one of the elements, the partial ones at either end
  // included.
  const std::size_t page = detail::page_bytes();
  const auto start = reinterpret_cast<std::uintptr_t>(data) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + count * element_bytes + page - 1) / page * page;
  detail::interleave_range("locus::move_interleaved", reinterpret_cast<void*>(start), end - start, true);
}

int place_node(int place) {
  const detail::pool_view pool = detail::view_of_pool();
  detail::check_place("locus::place_node", place, pool.places.num_places);
  return detail::nodes_of_places(pool).node[static_cast<std::size_t>(place)];
}

}  // namespace locus
