// Memory placement (locus/memory.hpp): blocks of a partition, allocation on
// a place, interleaved, partitioned and first-touch, where pages live, the
// errors, and that arrays give their pages back.
//
// Each test that needs a pool starts its own locus::runtime, so the tests
// also pass when the whole program runs in one process.
#include <gtest/gtest.h>

#include <numa.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <locus/locus.hpp>

#include "support/message_of.hpp"

#include "memory/node_policy.hpp"

namespace {

using test_support::contains;
using test_support::message_of;

const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

locus::runtime_options pool_of(int workers, const char* places, const char* topology = "") {
  locus::runtime_options o;
  o.workers = workers;
  o.places = places;
  o.topology = topology;
  o.pin = 0;
  return o;
}

// Writes one byte of every page of [data, data + bytes): the first write
// is what gives a page its frame, on the node the policy says.
void touch_pages(void* data, std::size_t bytes) {
  auto* bytes_ptr = static_cast<volatile unsigned char*>(data);
  for (std::size_t b = 0; b < bytes; b += page) bytes_ptr[b] = 1;
  if (bytes > 0) bytes_ptr[bytes - 1] = 1;
}


// Every page is on node 0: one node, or no NUMA in the kernel.
bool one_node() { return numa_available() < 0 || numa_num_configured_nodes() == 1; }


// The process's virtual size in bytes (/proc/self/statm, first field, pages).
std::size_t virtual_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * page;
}

// ---------------------------------------------------------------------------
// place_block

TEST(PlaceBlock, BlocksTileTheRangeInOrderAndDifferByAtMostOne) {
  for (const std::size_t n : {0ul, 1ul, 2ul, 3ul, 7ul, 10ul, 64ul, 1000ul, 1001ul}) {
    for (const int places : {1, 2, 3, 4, 7, 16}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", places = " + std::to_string(places));
      std::size_t expected_begin = 0;
      for (int p = 0; p < places; ++p) {
        const auto [begin, end] = locus::place_block(n, p, places);
        EXPECT_EQ(begin, expected_begin);
        EXPECT_LE(begin, end);
        const std::size_t size = end - begin;
        EXPECT_TRUE(size == n / places || size == n / places + 1) << size;
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, n);
    }
  }
}

TEST(PlaceBlock, MatchesTheFormulaAndEdgeCases) {
  EXPECT_EQ(locus::place_block(10, 0, 3).end, 3u);  // 10/3: [0,3) [3,6) [6,10)
  EXPECT_EQ(locus::place_block(10, 1, 3).end, 6u);
  EXPECT_EQ(locus::place_block(10, 2, 3).begin, 6u);
  EXPECT_EQ(locus::place_block(10, 2, 3).end, 10u);
  EXPECT_EQ(locus::place_block(0, 0, 1).end, 0u);
  EXPECT_EQ(locus::place_block(5, 0, 1).end, 5u);
  // Fewer elements than places: the early blocks are empty.
  EXPECT_EQ(locus::place_block(2, 0, 4).end, 0u);
  EXPECT_EQ(locus::place_block(2, 1, 4).end, 1u);
  // No overflow where p * n would not fit.
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_EQ(locus::place_block(max, 6, 7).end, max);
  EXPECT_EQ(locus::place_block(max, 3, 7).begin, static_cast<std::size_t>((static_cast<unsigned __int128>(max) * 3) / 7));
  static_assert(locus::place_block(12, 1, 4).begin == 3);
}

// ---------------------------------------------------------------------------
// placed_array and first touch (no pool needed)

TEST(PlacedArray, EmptyArraysMapNothing) {
  locus::placed_array<double> none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.data(), nullptr);
  auto zero = locus::alloc_first_touch<double>(0);
  EXPECT_EQ(zero.size(), 0u);
  EXPECT_EQ(zero.data(), nullptr);
  EXPECT_EQ(zero.begin(), zero.end());
}

TEST(PlacedArray, ElementsStartZeroAndAreUsable) {
  auto a = locus::alloc_first_touch<std::int64_t>(3 * page);
  ASSERT_EQ(a.size(), 3 * page);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % page, 0u);
  for (const auto v : a.span()) ASSERT_EQ(v, 0);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int64_t>(i);
  std::int64_t sum = 0;
  for (const auto v : a) sum += v;
  EXPECT_EQ(sum, static_cast<std::int64_t>(a.size() * (a.size() - 1) / 2));
}

TEST(PlacedArray, MovesOwnership) {
  auto a = locus::alloc_first_touch<int>(100);
  int* data = a.data();
  locus::placed_array<int> b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.size(), 100u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.size(), 0u);
  b = locus::alloc_first_touch<int>(5);
  EXPECT_EQ(b.size(), 5u);
  a = std::move(b);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
  auto& self = a;
  a = std::move(self);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_NE(a.data(), nullptr);
}

// The pages are unmapped when the array goes away: a thousand arrays of
// 1 GiB each (never touched, so they cost only address space) leave the
// process's virtual size where it was.
TEST(PlacedArray, GivesItsPagesBack) {
  const std::size_t before = virtual_bytes();
  constexpr std::size_t gib = std::size_t{1} << 30;
  for (int i = 0; i < 1000; ++i) {
    auto a = locus::alloc_first_touch<char>(gib);
    a[0] = 1;
    auto b = locus::alloc_first_touch<char>(gib);
    b = std::move(a);  // b's first mapping goes here, a's with b
  }
  EXPECT_LT(virtual_bytes(), before + gib);
}

// ---------------------------------------------------------------------------
// page_node

TEST(PageNode, UntouchedReadAndWrittenPages) {
  auto a = locus::alloc_first_touch<char>(3 * page);
  EXPECT_EQ(locus::page_node(a.data()), std::nullopt);        // no frame yet
  volatile char read = a[page];
  (void)read;
  EXPECT_EQ(locus::page_node(a.data() + page), std::nullopt);  // the shared zero page
  a[2 * page + 5] = 1;
  const auto node = locus::page_node(a.data() + 2 * page + 100);
  ASSERT_TRUE(node.has_value());
  EXPECT_GE(*node, 0);
  if (one_node()) {
    EXPECT_EQ(*node, 0);
  }
}

// The first page of the address space is never mapped (vm.mmap_min_addr),
// unlike a hole made with munmap, which the next mmap may fill.
TEST(PageNode, RejectsAnAddressThatIsNotMapped) {
  const void* unmapped = reinterpret_cast<const void*>(std::uintptr_t{16});
  const auto message = message_of([&] { (void)locus::page_node(unmapped); });
  EXPECT_TRUE(contains(message, "locus::page_node")) << message;
  EXPECT_TRUE(contains(message, "not mapped")) << message;
  EXPECT_THROW((void)locus::page_node(unmapped), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Placement on the places of a pool

// Every page of [data, data + bytes) was written and is on `node`.
void expect_pages_on(const char* data, std::size_t bytes, int node) {
  for (std::size_t b = 0; b < bytes; b += page) {
    const auto where = locus::page_node(data + b);
    ASSERT_TRUE(where.has_value()) << "page at byte " << b;
    ASSERT_EQ(*where, node) << "page at byte " << b;
  }
}

TEST(Placement, OnEachPlaceThePagesAreOnItsNode) {
  for (const char* kind : {"numa", "core"}) {
    SCOPED_TRACE(std::string("places=") + kind);
    locus::runtime rt(pool_of(2, kind));
    for (int p = 0; p < locus::num_places(); ++p) {
      const int node = locus::place_node(p);
      if (one_node()) {
        EXPECT_EQ(node, 0);
      }
      auto a = locus::alloc_on_place<double>(100'000, p);
      touch_pages(a.data(), a.size() * sizeof(double));
      expect_pages_on(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(double), node);
    }
  }
}

TEST(Placement, InterleavedPagesAreOnThePlacesNodes) {
  locus::runtime rt(pool_of(2, "core"));
  std::set<int> nodes;
  for (int p = 0; p < locus::num_places(); ++p) nodes.insert(locus::place_node(p));
  auto a = locus::alloc_interleaved<char>(64 * page);
  touch_pages(a.data(), a.size());
  std::set<int> seen;
  for (std::size_t b = 0; b < a.size(); b += page) {
    const auto where = locus::page_node(a.data() + b);
    ASSERT_TRUE(where.has_value());
    EXPECT_TRUE(nodes.count(*where)) << "page " << b / page << " on node " << *where;
    seen.insert(*where);
  }
  // Round-robin over the nodes: with 64 pages every node gets some (unless
  // a node had no free memory, which a test machine should not see).
  EXPECT_EQ(seen, nodes);
}

// Each page of a partitioned array is on the node of the place whose block
// holds the page's first byte, for sizes that do and do not divide evenly.
TEST(Placement, PartitionedBlocksAreOnTheirPlacesNodes) {
  for (const int workers : {1, 2}) {
    locus::runtime rt(pool_of(workers, "core"));
    const int places = locus::num_places();
    ASSERT_EQ(places, workers);
    for (const std::size_t n : {0ul, 1ul, 3 * page / 8 + 1, 10 * page + 3}) {
      SCOPED_TRACE("places = " + std::to_string(places) + ", n = " + std::to_string(n));
      auto a = locus::alloc_partitioned<double>(n);
      ASSERT_EQ(a.size(), n);
      if (n == 0) {
        EXPECT_EQ(a.data(), nullptr);
        continue;
      }
      touch_pages(a.data(), n * sizeof(double));
      // Page k starts at element k * page / sizeof(double).
      int owner = 0;
      for (std::size_t first = 0; first < n; first += page / sizeof(double)) {
        while (locus::place_block(n, owner, places).end <= first) ++owner;
        const auto where = locus::page_node(&a[first]);
        ASSERT_TRUE(where.has_value()) << "element " << first;
        EXPECT_EQ(*where, locus::place_node(owner)) << "element " << first;
      }
    }
  }
}

// A virtual topology's nodes do not exist on the host: the pages are
// first-touch here (the simulator, when it runs, sets their homes), and the
// call neither fails nor binds to a host node that is not there.
TEST(Placement, VirtualTopologyNodesAreTheVirtualMachines) {
  locus::runtime rt(pool_of(4, "numa", "2x2"));
  ASSERT_EQ(locus::num_places(), 2);
  EXPECT_EQ(locus::place_node(0), 0);
  EXPECT_EQ(locus::place_node(1), 1);
  auto a = locus::alloc_on_place<char>(4 * page, 1);
  auto b = locus::alloc_partitioned<char>(4 * page);
  auto c = locus::alloc_interleaved<char>(4 * page);
  for (auto* array : {&a, &b, &c}) {
    touch_pages(array->data(), array->size());
    EXPECT_TRUE(locus::page_node(array->data()).has_value());
  }
}

// ---------------------------------------------------------------------------
// Errors

TEST(PlacementErrors, ABadPlaceNamesItselfAndTheRange) {
  locus::runtime rt(pool_of(2, "core"));
  for (const int bad : {-1, 2, 1000}) {
    SCOPED_TRACE(bad);
    const std::string value = "place " + std::to_string(bad);
    for (const auto& message :
         {message_of([&] { (void)locus::alloc_on_place<int>(10, bad); }),
          message_of([&] { (void)locus::alloc_on_place<int>(0, bad); }),
          message_of([&] { (void)locus::place_node(bad); })}) {
      EXPECT_TRUE(contains(message, value)) << message;
      EXPECT_TRUE(contains(message, "0..1")) << message;
    }
    EXPECT_THROW((void)locus::alloc_on_place<int>(10, bad), std::invalid_argument);
    EXPECT_THROW((void)locus::place_node(bad), std::invalid_argument);
  }
}

TEST(PlacementErrors, AHugeAllocationFailsWithTheSystemsReason) {
  locus::runtime rt(pool_of(1, "numa"));
  const std::size_t huge = std::size_t{1} << 61;  // 2 EiB: more than any address space
  try {
    (void)locus::alloc_on_place<char>(huge, 0);
    FAIL() << "expected std::system_error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::not_enough_memory);
    const std::string message = e.what();
    EXPECT_TRUE(contains(message, "locus::alloc_on_place")) << message;
    EXPECT_TRUE(contains(message, "mmap of " + std::to_string(huge) + " bytes")) << message;
    EXPECT_TRUE(contains(message, "place 0 (node " + std::to_string(locus::place_node(0)) + ")")) << message;
    EXPECT_TRUE(contains(message, std::generic_category().message(ENOMEM))) << message;
  }
  EXPECT_THROW((void)locus::alloc_first_touch<char>(huge), std::system_error);
  EXPECT_THROW((void)locus::alloc_interleaved<char>(huge), std::system_error);
  EXPECT_THROW((void)locus::alloc_partitioned<char>(huge), std::system_error);
}

TEST(PlacementErrors, ASizeBeyondSizeTIsALengthError) {
  const auto message =
      message_of([] { (void)locus::alloc_first_touch<double>(std::numeric_limits<std::size_t>::max() / 4); });
  EXPECT_TRUE(contains(message, "locus::alloc_first_touch")) << message;
  EXPECT_THROW((void)locus::alloc_first_touch<double>(std::numeric_limits<std::size_t>::max()), std::length_error);
}

// The mbind wrappers themselves (white box: on a one-node machine the
// public calls never need them). A node the kernel does not have is refused
// with EINVAL, and the message names the call, the size and the node.
TEST(PlacementErrors, ANodeTheKernelRefusesIsASystemError) {
  auto a = locus::alloc_first_touch<char>(2 * page);
  for (const int node : {-1, numa_available() >= 0 ? numa_max_possible_node() + 1 : 1}) {
    SCOPED_TRACE(node);
    try {
      locus::detail::bind_pages("test", a.data(), a.size(), node, "for place 9");
      FAIL() << "expected std::system_error";
    } catch (const std::system_error& e) {
      const std::string message = e.what();
      if (numa_available() >= 0) {
        EXPECT_EQ(e.code(), std::errc::invalid_argument) << message;
      }
      EXPECT_TRUE(contains(message, "test: mbind(MPOL_BIND) of " + std::to_string(a.size()) + " bytes")) << message;
      EXPECT_TRUE(contains(message, "to node " + std::to_string(node) + " for place 9")) << message;
    }
  }
  if (numa_available() < 0) GTEST_SKIP() << "no NUMA support in this kernel: mbind of a real node not tested";
  locus::detail::bind_pages("test", a.data(), page, 0, "");
  const int nodes[] = {0};
  locus::detail::interleave_pages("test", a.data() + page, page, nodes);
  touch_pages(a.data(), a.size());
  EXPECT_EQ(locus::page_node(a.data()), 0);
  EXPECT_EQ(locus::page_node(a.data() + page), 0);
}

}  // namespace

// Under the simulator the placement calls set the simulated page homes.
TEST(MemorySimulated, PlacementSetsThePageHomesOfTheModel) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.workers = 4;  // one per socket: place p is node p
  locus::runtime rt(o);
  ASSERT_EQ(locus::num_places(), 4);
  constexpr std::size_t n = 4 * 65536;
  std::vector<double> existing(n, 1.0);
  locus::move_to_places(std::span<double>(existing));
  auto partitioned = locus::alloc_partitioned<double>(n);
  auto on_two = locus::alloc_on_place<double>(4096, 2);
  for (int p = 0; p < 4; ++p) {
    const auto [begin, end] = locus::place_block(n, p, 4);
    const std::size_t middle = (begin + end) / 2;
    EXPECT_EQ(locus::page_node(&existing[middle]), p) << "existing array, block " << p;
    EXPECT_EQ(locus::page_node(&partitioned[middle]), p) << "partitioned array, block " << p;
  }
  EXPECT_EQ(locus::page_node(&on_two[100]), 2);
}

// move_interleaved: consecutive pages of an existing array, the partial
// ones at either end included, go round-robin over the four nodes.
TEST(MemorySimulated, MoveInterleavedSpreadsAnExistingArraysPages) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.workers = 4;
  locus::runtime rt(o);
  const std::size_t page_bytes = 4096;
  std::vector<char> existing(64 * page_bytes + 100, 1);
  locus::move_to_places(std::span<char>(existing));  // first all in blocks, then moved
  locus::move_interleaved(std::span<char>(existing));
  std::vector<int> count(4, 0);
  std::optional<int> previous;
  for (std::size_t b = 0; b < existing.size(); b += page_bytes) {
    const auto node = locus::page_node(&existing[b]);
    ASSERT_TRUE(node.has_value());
    ++count[static_cast<std::size_t>(*node)];
    if (previous) {
      EXPECT_NE(*node, *previous) << "two neighbouring pages on one node at byte " << b;
    }
    previous = node;
  }
  for (int n = 0; n < 4; ++n) EXPECT_GE(count[static_cast<std::size_t>(n)], 15) << "node " << n;
  EXPECT_TRUE(locus::page_node(&existing.back()).has_value());
}

// On threads it moves the pages of an existing array onto the places' nodes.
TEST(Placement, MoveInterleavedKeepsThePagesOnThePlacesNodes) {
  locus::runtime rt(pool_of(2, "core"));
  std::set<int> nodes;
  for (int p = 0; p < locus::num_places(); ++p) nodes.insert(locus::place_node(p));
  std::vector<char> existing(16 * page, 1);
  locus::move_interleaved(std::span<char>(existing));
  for (std::size_t b = 0; b < existing.size(); b += page) {
    const auto where = locus::page_node(existing.data() + b);
    ASSERT_TRUE(where.has_value());
    EXPECT_TRUE(nodes.count(*where)) << "page " << b / page << " on node " << *where;
  }
  EXPECT_EQ(existing[5 * page], 1) << "the data survives the move";
}
