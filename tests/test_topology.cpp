// Topology: the virtual topology grammar, place kinds, the placement of
// workers over places, host discovery, and the text/JSON renderings.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include <locus/errors.hpp>

#include "topology/topology.hpp"

namespace locus::detail {
namespace {

// ---------------------------------------------------------------------------
// Helpers

std::vector<int> iota(int first, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) v[i] = first + i;
  return v;
}

std::vector<const cache_info*> caches_of_level(const topology& t, int level) {
  std::vector<const cache_info*> out;
  for (const auto& c : t.caches)
    if (c.level == level) out.push_back(&c);
  return out;
}

// The message of the config_error `parse` throws, or a failure if none.
template <typename Fn>
std::string config_error_message(Fn parse) {
  try {
    parse();
  } catch (const config_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected locus::config_error";
  return {};
}

// Every error must name the setting and the bad value; `detail` is the part
// of the message that says what was wrong or what is accepted.
void expect_topology_error(const std::string& text, const std::string& detail) {
  SCOPED_TRACE("topology \"" + text + "\"");
  const auto message = config_error_message([&] { parse_topology(text); });
  EXPECT_NE(message.find("LOCUS_TOPOLOGY"), std::string::npos) << message;
  EXPECT_NE(message.find("\"" + text + "\""), std::string::npos) << message;
  EXPECT_NE(message.find(detail), std::string::npos) << message;
}

void expect_symmetric_with_diagonal(const std::vector<std::vector<int>>& m, int diagonal) {
  for (std::size_t a = 0; a < m.size(); ++a) {
    ASSERT_EQ(m[a].size(), m.size());
    EXPECT_EQ(m[a][a], diagonal) << "row " << a;
    for (std::size_t b = 0; b < m.size(); ++b) EXPECT_EQ(m[a][b], m[b][a]) << a << "," << b;
  }
}

// Brackets and braces balance outside string literals, and strings close.
bool json_is_balanced(const std::string& json) {
  std::string stack;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      else if (static_cast<unsigned char>(c) < 0x20) return false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') stack.push_back(c);
    else if (c == '}' || c == ']') {
      if (stack.empty() || stack.back() != (c == '}' ? '{' : '[')) return false;
      stack.pop_back();
    }
  }
  return stack.empty() && !in_string;
}

// ---------------------------------------------------------------------------
// Grammar: valid strings

TEST(ParseTopology, TwoSocketsOfFourCores) {
  const auto t = parse_topology("2x4");
  EXPECT_TRUE(t.is_virtual);
  EXPECT_EQ(t.description, "2x4");
  EXPECT_EQ(t.num_packages, 2);
  EXPECT_EQ(t.num_numa_nodes, 2);
  ASSERT_EQ(t.num_cores(), 8);
  for (int id = 0; id < 8; ++id) {
    EXPECT_EQ(t.cores[id].id, id);
    EXPECT_EQ(t.cores[id].os_cpu, -1);
    EXPECT_EQ(t.cores[id].package, id / 4);
    EXPECT_EQ(t.cores[id].numa_node, id / 4);
  }
  const auto l1 = caches_of_level(t, 1);
  const auto l2 = caches_of_level(t, 2);
  const auto l3 = caches_of_level(t, 3);
  ASSERT_EQ(l1.size(), 8u);
  ASSERT_EQ(l2.size(), 8u);
  ASSERT_EQ(l3.size(), 2u);
  EXPECT_EQ(l1[5]->cores, std::vector<int>{5});
  EXPECT_EQ(l1[0]->size_bytes, 32u << 10);
  EXPECT_EQ(l1[0]->associativity, 8);
  EXPECT_EQ(l2[0]->size_bytes, 256u << 10);
  EXPECT_EQ(l2[0]->associativity, 16);
  EXPECT_EQ(l3[0]->size_bytes, 8u << 20);
  EXPECT_EQ(l3[0]->associativity, 16);
  EXPECT_EQ(l3[0]->line_bytes, 64);
  EXPECT_EQ(l3[0]->cores, iota(0, 4));
  EXPECT_EQ(l3[1]->cores, iota(4, 4));
  EXPECT_EQ(t.numa_distance, (std::vector<std::vector<int>>{{10, 20}, {20, 10}}));
}

TEST(ParseTopology, OptionsSetSizesAndDistancesByHop) {
  const auto t = parse_topology("4x8:L3=16M,L2=256K,dist=10/20/30");
  EXPECT_EQ(t.num_cores(), 32);
  EXPECT_EQ(caches_of_level(t, 3).at(0)->size_bytes, 16u << 20);
  EXPECT_EQ(caches_of_level(t, 2).at(0)->size_bytes, 256u << 10);
  // Sockets sit on a ring of 4: 0-1 and 0-3 are one hop, 0-2 two hops.
  EXPECT_EQ(t.numa_distance[0][1], 20);
  EXPECT_EQ(t.numa_distance[0][2], 30);
  EXPECT_EQ(t.numa_distance[0][3], 20);
  EXPECT_EQ(t.numa_distance[1][3], 30);
  expect_symmetric_with_diagonal(t.numa_distance, 10);
}

TEST(ParseTopology, HopsBeyondTheGivenDistancesUseTheLastOne) {
  const auto t = parse_topology("8x1:dist=10/20");
  EXPECT_EQ(t.numa_distance[0][4], 20);  // 4 hops, capped at the 1-hop value
  EXPECT_EQ(t.numa_distance[0][0], 10);
}

TEST(ParseTopology, NumaNodesPerSocket) {
  const auto t = parse_topology("4x2x2:dist=10/15/30");
  EXPECT_EQ(t.num_packages, 4);
  EXPECT_EQ(t.num_numa_nodes, 8);
  EXPECT_EQ(t.cores[0].numa_node, 0);
  EXPECT_EQ(t.cores[1].numa_node, 1);
  EXPECT_EQ(t.cores[2].numa_node, 2);
  EXPECT_EQ(t.cores[2].package, 1);
  EXPECT_EQ(t.numa_distance[0][1], 15);  // same socket: one hop
  EXPECT_EQ(t.numa_distance[0][2], 15);  // next socket: one hop
  EXPECT_EQ(t.numa_distance[0][4], 30);  // socket 2 of 4: two hops
  expect_symmetric_with_diagonal(t.numa_distance, 10);
}

TEST(ParseTopology, L3IsPerNumaNodeWhenASocketHasSeveral) {
  const auto t = parse_topology("2x4x2");
  const auto l3 = caches_of_level(t, 3);
  ASSERT_EQ(l3.size(), 4u);
  for (int node = 0; node < 4; ++node) EXPECT_EQ(l3[node]->cores, iota(node * 2, 2));
}

TEST(ParseTopology, SizeSuffixesAreBinaryAndCaseInsensitive) {
  const auto t = parse_topology("1x2:L1=48k,L2=2M,L3=1g");
  EXPECT_EQ(caches_of_level(t, 1).at(0)->size_bytes, 48u * 1024);
  EXPECT_EQ(caches_of_level(t, 2).at(0)->size_bytes, 2u * 1024 * 1024);
  EXPECT_EQ(caches_of_level(t, 3).at(0)->size_bytes, std::size_t{1} << 30);
  EXPECT_EQ(caches_of_level(parse_topology("1x1:L3=4096"), 3).at(0)->size_bytes, 4096u);
}

TEST(ParseTopology, KeysAreCaseInsensitive) {
  EXPECT_EQ(caches_of_level(parse_topology("1x1:l3=4M"), 3).at(0)->size_bytes, 4u << 20);
  EXPECT_EQ(parse_topology("1x1:LINE=128").caches.at(0).line_bytes, 128);
}

TEST(ParseTopology, LineAndAssociativity) {
  const auto t = parse_topology("1x2:line=128,assoc=4,L2assoc=8");
  EXPECT_EQ(caches_of_level(t, 1).at(0)->line_bytes, 128);
  EXPECT_EQ(caches_of_level(t, 1).at(0)->associativity, 4);
  EXPECT_EQ(caches_of_level(t, 2).at(0)->associativity, 8);
  EXPECT_EQ(caches_of_level(t, 3).at(0)->associativity, 4);
  // The per-level key wins whatever the order.
  EXPECT_EQ(parse_topology("1x2:L2assoc=8,assoc=4").caches,
            parse_topology("1x2:assoc=4,L2assoc=8").caches);
}

TEST(ParseTopology, ZeroSizeLeavesTheLevelOut) {
  const auto t = parse_topology("2x2:L3=0");
  EXPECT_TRUE(caches_of_level(t, 3).empty());
  EXPECT_EQ(caches_of_level(t, 2).size(), 4u);
}

TEST(ParseTopology, DescriptionRoundTrips) {
  for (const std::string text :
       {"2x4", "4x8:L3=16M,L2=256K,dist=10/20/30", "2x4x2", "1x2:L1=48k,L2=2M,L3=1g",
        "1x2:line=128,assoc=4,L2assoc=8", "16x256x4:dist=10/12/20/30"}) {
    SCOPED_TRACE(text);
    const auto t = parse_topology(text);
    EXPECT_EQ(t.description, text);
    EXPECT_EQ(parse_topology(t.description), t);
  }
}

TEST(ParseTopology, SurroundingWhitespaceIsIgnored) {
  EXPECT_EQ(parse_topology("  2x4 \n"), parse_topology("2x4"));
}

TEST(ParseTopology, LargestAllowedMachine) {
  EXPECT_EQ(parse_topology("64x64").num_cores(), 4096);
  EXPECT_EQ(parse_topology("1x4096").num_cores(), 4096);
}

// ---------------------------------------------------------------------------
// Grammar: every class of invalid string

TEST(ParseTopologyErrors, ShapeIsNotSocketsByCores) {
  const std::string grammar = "expected <sockets>x<cores>[x<numa-per-socket>]";
  expect_topology_error("4y8", grammar);
  expect_topology_error("", grammar);
  expect_topology_error("8", grammar);
  expect_topology_error("x4", grammar);
  expect_topology_error("2x4x2x1", grammar);
  expect_topology_error("two x4", grammar);
  expect_topology_error("2x4abc", grammar);  // trailing garbage
}

TEST(ParseTopologyErrors, ZeroAndNegativeCounts) {
  expect_topology_error("0x4", "sockets must be between 1 and 4096");
  expect_topology_error("2x0", "cores per socket must be between 1 and 4096");
  expect_topology_error("2x4x0", "NUMA nodes per socket must be between 1 and 4096");
  expect_topology_error("-2x4", "expected <sockets>x<cores>");
  expect_topology_error("2x-4", "expected <sockets>x<cores>");
}

TEST(ParseTopologyErrors, TooManyCores) {
  expect_topology_error("2x4096", "at most 4096 cores in total, got 8192");
  expect_topology_error("5000x1", "between 1 and 4096");
  expect_topology_error("99999999999999999999999x1", "expected <sockets>x<cores>");
}

TEST(ParseTopologyErrors, NumaNodesMustDivideTheSocket) {
  expect_topology_error("2x6x4", "must be a multiple of NUMA nodes per socket");
}

TEST(ParseTopologyErrors, UnknownKeyListsTheKnownOnes) {
  expect_topology_error("2x4:L4=1M", "unknown key \"L4\"; known keys: L1, L2, L3, line, assoc");
  expect_topology_error("2x4:speed=3", "L3assoc, dist");
}

TEST(ParseTopologyErrors, MalformedOptionList) {
  expect_topology_error("2x4:", "expected key=value");
  expect_topology_error("2x4:L3=16M,", "expected key=value");
  expect_topology_error("2x4:L3", "expected key=value");
  expect_topology_error("2x4:=16M", "expected key=value");
  expect_topology_error("2x4:L2=1M,l2=2M", "given twice");
}

TEST(ParseTopologyErrors, BadSizes) {
  for (const std::string size : {"12Q", "", "K", "-1", "16MB", "1.5M", "16Mfoo", "2000G"}) {
    expect_topology_error("2x4:L3=" + size, "bad size \"" + size + "\" for L3");
  }
}

TEST(ParseTopologyErrors, SizeMustBeAWholeNumberOfSets) {
  expect_topology_error("2x4:L1=1000", "not a whole number of sets");
}

TEST(ParseTopologyErrors, LineMustBeAPowerOfTwo) {
  for (const std::string line : {"48", "0", "8192", "abc"})
    expect_topology_error("2x4:line=" + line, "bad cache line size \"" + line + "\"");
}

TEST(ParseTopologyErrors, BadAssociativity) {
  expect_topology_error("2x4:assoc=x", "bad associativity \"x\"");
  expect_topology_error("2x4:L2assoc=-4", "bad associativity \"-4\"");
}

TEST(ParseTopologyErrors, BadDistances) {
  for (const std::string dist : {"", "10//20", "abc", "20/30", "10/30/20", "0"})
    expect_topology_error("2x4:dist=" + dist, "bad dist \"" + dist + "\"");
}

TEST(ParseTopologyErrors, MessageNamesTheSettingGiven) {
  const auto message = config_error_message([] { parse_topology("4y8", "--topology"); });
  EXPECT_EQ(message.rfind("--topology=\"4y8\": ", 0), 0u) << message;
}

TEST(ParseTopologyErrors, IsAnInvalidArgument) {
  EXPECT_THROW(parse_topology("4y8"), std::invalid_argument);
  EXPECT_THROW(parse_topology("4y8"), locus::config_error);
}

// ---------------------------------------------------------------------------
// Place kinds

TEST(PlaceKind, ParsesEveryKindCaseInsensitively) {
  EXPECT_EQ(parse_place_kind("numa"), place_kind::numa);
  EXPECT_EQ(parse_place_kind("NUMA"), place_kind::numa);
  EXPECT_EQ(parse_place_kind("socket"), place_kind::socket);
  EXPECT_EQ(parse_place_kind("L3"), place_kind::l3);
  EXPECT_EQ(parse_place_kind("l2"), place_kind::l2);
  EXPECT_EQ(parse_place_kind("Core"), place_kind::core);
  for (const auto kind : {place_kind::numa, place_kind::socket, place_kind::l3, place_kind::l2,
                          place_kind::core})
    EXPECT_EQ(parse_place_kind(to_string(kind)), kind);
}

TEST(PlaceKind, ErrorListsTheAcceptedKinds) {
  const auto message = config_error_message([] { parse_place_kind("l9"); });
  EXPECT_NE(message.find("LOCUS_PLACES=\"l9\""), std::string::npos) << message;
  for (const char* kind : {"numa", "socket", "l3", "l2", "core"})
    EXPECT_NE(message.find(kind), std::string::npos) << message;
  EXPECT_THROW(parse_place_kind(""), config_error);
}

// ---------------------------------------------------------------------------
// Placement

TEST(Placement, FullMachineGivesEachPlaceItsOwnCores) {
  const auto t = parse_topology("4x8:L3=16M,L2=256K,dist=10/20/30");
  const auto pl = make_placement(t, place_kind::numa, 32, 64);
  EXPECT_EQ(pl.kind, place_kind::numa);
  ASSERT_EQ(pl.num_places, 4);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(pl.place_cores[p], iota(p * 8, 8));
    EXPECT_EQ(pl.place_workers[p], iota(p * 8, 8));
  }
  for (int w = 0; w < 32; ++w) {
    EXPECT_EQ(pl.worker_core[w], w);
    EXPECT_EQ(pl.worker_place[w], w / 8);
    EXPECT_EQ(pl.worker_os_cpu[w], w);  // core id modulo 64 host cpus
  }
  EXPECT_FALSE(pl.pinning_wrapped);
}

TEST(Placement, WorkersFormContiguousBlocks) {
  const auto t = parse_topology("2x4");
  const auto pl = make_placement(t, place_kind::numa, 3, 64);
  ASSERT_EQ(pl.num_places, 2);
  // Place p gets workers [p*W/P, (p+1)*W/P): {0} and {1, 2}.
  EXPECT_EQ(pl.place_workers[0], std::vector<int>{0});
  EXPECT_EQ(pl.place_workers[1], (std::vector<int>{1, 2}));
  EXPECT_EQ(pl.worker_core, (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(pl.worker_place, (std::vector<int>{0, 1, 1}));
}

TEST(Placement, SpreadIsEvenForAnyWorkerCount) {
  const auto t = parse_topology("4x8");
  for (int workers = 1; workers <= 70; ++workers) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    const auto pl = make_placement(t, place_kind::numa, workers, 64);
    ASSERT_EQ(pl.num_places, std::min(workers, 4));
    ASSERT_EQ(pl.worker_core.size(), static_cast<std::size_t>(workers));
    std::size_t smallest = SIZE_MAX, largest = 0;
    int next_worker = 0;
    for (int p = 0; p < pl.num_places; ++p) {
      smallest = std::min(smallest, pl.place_workers[p].size());
      largest = std::max(largest, pl.place_workers[p].size());
      for (const int w : pl.place_workers[p]) {
        EXPECT_EQ(w, next_worker++);  // contiguous and in order
        EXPECT_EQ(pl.worker_place[w], p);
        EXPECT_EQ(t.cores[pl.worker_core[w]].numa_node, p);
      }
    }
    EXPECT_EQ(next_worker, workers);
    EXPECT_LE(largest - smallest, 1u);
  }
}

TEST(Placement, FewerWorkersThanPlacesKeepsOnlyPlacesWithWorkers) {
  const auto t = parse_topology("4x8");
  const auto pl = make_placement(t, place_kind::numa, 2, 64);
  EXPECT_EQ(pl.num_places, 2);
  ASSERT_EQ(pl.place_cores.size(), 2u);
  EXPECT_EQ(pl.place_cores[0], iota(0, 8));
  EXPECT_EQ(pl.place_cores[1], iota(8, 8));
  EXPECT_EQ(pl.worker_core, (std::vector<int>{0, 8}));
  EXPECT_EQ(pl.place_distance.size(), 2u);
}

TEST(Placement, SocketAndCorePlaces) {
  const auto t = parse_topology("2x4x2");
  const auto sockets = make_placement(t, place_kind::socket, 8, 64);
  ASSERT_EQ(sockets.num_places, 2);
  EXPECT_EQ(sockets.place_cores[1], iota(4, 4));
  const auto cores = make_placement(t, place_kind::core, 8, 64);
  ASSERT_EQ(cores.num_places, 8);
  for (int p = 0; p < 8; ++p) EXPECT_EQ(cores.place_cores[p], std::vector<int>{p});
}

TEST(Placement, CachePlacesAreCacheInstances) {
  const auto t = parse_topology("2x4x2");
  const auto l3 = make_placement(t, place_kind::l3, 8, 64);
  ASSERT_EQ(l3.num_places, 4);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(l3.place_cores[p], iota(2 * p, 2));
    EXPECT_EQ(l3.place_workers[p], iota(2 * p, 2));
  }
  const auto l2 = make_placement(parse_topology("2x2"), place_kind::l2, 4, 64);
  EXPECT_EQ(l2.num_places, 4);
}

TEST(Placement, MissingCacheLevelIsAnError) {
  const auto t = parse_topology("2x4:L3=0");
  const auto message = config_error_message([&] { make_placement(t, place_kind::l3, 4, 64); });
  EXPECT_NE(message.find("LOCUS_PLACES=\"l3\""), std::string::npos) << message;
  EXPECT_NE(message.find("no L3 cache"), std::string::npos) << message;
}

TEST(Placement, MoreWorkersThanCoresWrapWithinThePlace) {
  const auto t = parse_topology("2x2");
  const auto pl = make_placement(t, place_kind::numa, 6, 64);
  EXPECT_EQ(pl.worker_core, (std::vector<int>{0, 1, 0, 2, 3, 2}));
  EXPECT_TRUE(pl.pinning_wrapped);
}

TEST(Placement, VirtualCoresWrapAroundHostCpus) {
  const auto t = parse_topology("1x4");
  const auto fits = make_placement(t, place_kind::numa, 4, 4);
  EXPECT_EQ(fits.worker_os_cpu, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(fits.pinning_wrapped);
  const auto wraps = make_placement(t, place_kind::numa, 4, 2);
  EXPECT_EQ(wraps.worker_os_cpu, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_TRUE(wraps.pinning_wrapped);
  // Three virtual cores on two cpus still wrap.
  EXPECT_TRUE(make_placement(t, place_kind::numa, 3, 2).pinning_wrapped);
}

TEST(Placement, VirtualCoresPinInsideTheAllowedCpus) {
  // A process bound to cpus 5 and 7 (taskset -c 5,7) pins a virtual
  // topology's workers there, never on cpus 0..n-1 of the whole machine.
  const auto t = parse_topology("1x4");
  const auto pl = make_placement(t, place_kind::numa, 4, std::vector<int>{5, 7});
  EXPECT_EQ(pl.worker_os_cpu, (std::vector<int>{5, 7, 5, 7}));
  EXPECT_TRUE(pl.pinning_wrapped);
  EXPECT_THROW(make_placement(t, place_kind::numa, 4, std::vector<int>{}), std::invalid_argument);
}

TEST(Placement, HostCoresPinToTheirOsCpu) {
  topology host;
  host.description = "host";
  host.num_packages = 1;
  host.num_numa_nodes = 1;
  host.cores = {{0, 4, 0, 0}, {1, 6, 0, 0}};
  host.numa_distance = {{10}};
  const auto pl = make_placement(host, place_kind::numa, 2, 1);
  EXPECT_EQ(pl.worker_os_cpu, (std::vector<int>{4, 6}));
  EXPECT_FALSE(pl.pinning_wrapped);
  const auto over = make_placement(host, place_kind::numa, 3, 1);
  EXPECT_EQ(over.worker_os_cpu, (std::vector<int>{4, 6, 4}));
  EXPECT_TRUE(over.pinning_wrapped);
}

TEST(Placement, WorkerCountMustBePositive) {
  const auto t = parse_topology("2x4");
  for (const int workers : {0, -3}) {
    const auto message =
        config_error_message([&] { make_placement(t, place_kind::numa, workers, 4); });
    EXPECT_NE(message.find("LOCUS_WORKERS=\"" + std::to_string(workers) + "\""),
              std::string::npos)
        << message;
  }
}

TEST(Placement, DistancesAreSymmetricWithLocalDiagonal) {
  const auto t = parse_topology("4x8:dist=10/20/30");
  const auto pl = make_placement(t, place_kind::numa, 32, 64);
  expect_symmetric_with_diagonal(pl.place_distance, 10);
  EXPECT_EQ(pl.place_distance[0][2], 30);
  EXPECT_EQ(pl.place_distance[0][1], 20);
  // Core places inherit the distance of their nodes.
  const auto cores = make_placement(t, place_kind::core, 32, 64);
  expect_symmetric_with_diagonal(cores.place_distance, 10);
  EXPECT_EQ(cores.place_distance[0][7], 10);
  EXPECT_EQ(cores.place_distance[0][16], 30);
}

TEST(Placement, PlaceSpanningNodesTakesTheLargestDistance) {
  const auto t = parse_topology("4x2x2:dist=10/15/30");
  const auto pl = make_placement(t, place_kind::socket, 8, 64);
  expect_symmetric_with_diagonal(pl.place_distance, 15);
  EXPECT_EQ(pl.place_distance[0][1], 15);
  EXPECT_EQ(pl.place_distance[0][2], 30);
}

// ---------------------------------------------------------------------------
// Host discovery

// discover_host reads the binding of the whole process; a thread bound to
// one cpu of a process whose other threads are not leaves the set whole, so
// this test binds the process's only thread (gtest runs tests on the main
// thread and starts no other) and restores it after.
TEST(DiscoverHost, KeepsOnlyTheCpusTheProcessIsBoundTo) {
  const std::vector<int> before = allowed_os_cpus();
  if (before.size() < 2) GTEST_SKIP() << "needs two cpus";
  const int last = before.back();
  cpu_set_t one, all;
  CPU_ZERO(&one);
  CPU_SET(last, &one);
  CPU_ZERO(&all);
  for (const int cpu : before) CPU_SET(cpu, &all);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const topology bound = discover_host();
  const topology machine = discover_host(/*whole_machine=*/true);
  const std::vector<int> allowed = allowed_os_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  ASSERT_EQ(bound.num_cores(), 1) << bound.allowed_cpus;
  EXPECT_EQ(bound.cores[0].os_cpu, last);
  EXPECT_EQ(bound.allowed_cpus, std::to_string(last));
  EXPECT_NE(bound.left_out.find("cpus "), std::string::npos) << bound.left_out;
  for (const auto& cache : bound.caches) EXPECT_EQ(cache.cores, (std::vector<int>{0}));
  EXPECT_EQ(allowed, (std::vector<int>{last}));
  EXPECT_GE(machine.num_cores(), 2);
  EXPECT_TRUE(machine.allowed_cpus.empty());
  EXPECT_EQ(discover_host().allowed_cpus, range_list(before));
}

TEST(DiscoverHost, FindsCoresAndASquareDistanceMatrix) {
  const auto t = discover_host();
  EXPECT_FALSE(t.is_virtual);
  ASSERT_GE(t.num_cores(), 1);
  EXPECT_GE(t.num_packages, 1);
  EXPECT_GE(t.num_numa_nodes, 1);
  for (int id = 0; id < t.num_cores(); ++id) {
    EXPECT_EQ(t.cores[id].id, id);
    EXPECT_GE(t.cores[id].os_cpu, 0);
    EXPECT_LT(t.cores[id].numa_node, t.num_numa_nodes);
    EXPECT_LT(t.cores[id].package, t.num_packages);
  }
  ASSERT_EQ(t.numa_distance.size(), static_cast<std::size_t>(t.num_numa_nodes));
  for (const auto& row : t.numa_distance) {
    ASSERT_EQ(row.size(), t.numa_distance.size());
    for (const int d : row) EXPECT_GT(d, 0);
  }
  for (const auto& cache : t.caches) {
    EXPECT_GE(cache.level, 1);
    EXPECT_GT(cache.size_bytes, 0u);
    ASSERT_FALSE(cache.cores.empty());
    for (const int core : cache.cores) EXPECT_LT(core, t.num_cores());
  }
  const auto pl = make_placement(t, place_kind::numa, t.num_cores(), t.num_cores());
  EXPECT_FALSE(pl.pinning_wrapped);
  for (int w = 0; w < t.num_cores(); ++w)
    EXPECT_EQ(pl.worker_os_cpu[w], t.cores[pl.worker_core[w]].os_cpu);
}

// ---------------------------------------------------------------------------
// Renderings

TEST(Render, JsonHasEveryKeyAndBalances) {
  const auto t = parse_topology("2x4x2:L3=16M");
  const auto json = to_json(t, make_placement(t, place_kind::l3, 6, 2));
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
  EXPECT_TRUE(json_is_balanced(json)) << json;
  for (const char* key :
       {"\"virtual\":true", "\"description\":\"2x4x2:L3=16M\"", "\"packages\":2",
        "\"numa_nodes\":4", "\"cores\":[{\"id\":0,\"os_cpu\":-1,\"package\":0,\"numa_node\":0}",
        "\"caches\":[{\"level\":1", "\"numa_distance\":[[10,20,20,20]",
        "\"places\":{\"kind\":\"l3\",\"count\":4", "\"workers\":[[0],[1,2],[3],[4,5]]",
        "\"distance\":[[10,20,20,20]", "{\"id\":5,\"core\":7,\"place\":3,\"os_cpu\":1}",
        "\"pinning_wrapped\":true"})
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
}

TEST(Render, JsonEscapesStrings) {
  topology t = parse_topology("1x1");
  t.description = "say \"hi\"\\\n\x01";
  const auto json = to_json(t, make_placement(t, place_kind::core, 1, 1));
  EXPECT_NE(json.find(R"("description":"say \"hi\"\\\n\u0001")"), std::string::npos) << json;
  EXPECT_TRUE(json_is_balanced(json)) << json;
}

TEST(Render, DescribeShowsMachinePlacesCachesAndDistances) {
  const auto t = parse_topology("2x4:L3=16M");
  const auto text = describe(t, make_placement(t, place_kind::numa, 8, 64));
  for (const char* part :
       {"virtual \"2x4:L3=16M\": 2 sockets, 2 NUMA nodes, 8 cores", "2 numa places, 8 workers",
        "place 1: cores 4-7; workers 4-7 on cores 4-7, os cpus 4-7",
        "L1: 32 KiB, 64 B line, 8-way, private to each of 8 cores",
        "L3: 16 MiB, 64 B line, 16-way, 2 instances, shared by cores 0-3 | 4-7",
        "place distances:", "    1   20   10"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  EXPECT_EQ(text.find("pinning wrapped"), std::string::npos) << text;
}

}  // namespace
}  // namespace locus::detail
