// The simulator's machine model and memory model, against hand-computed
// cases: LRU order, hits by level, sharing and invalidation, page homes
// (first touch, interleave, binding), the remote rule, the presets, machine
// files and their errors. A brute-force reference model checks the
// directory-based one on random access streams.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <locus/errors.hpp>
#include <locus/runtime.hpp>

#include "sim/block_directory.hpp"
#include "sim/lru_cache.hpp"
#include "sim/machine_model.hpp"
#include "sim/memory_model.hpp"
#include "topology/topology.hpp"

namespace locus::detail::sim {

// Failure messages say "remote_l3", not a byte value (found by argument-
// dependent lookup, so it lives in served_by's namespace).
void PrintTo(served_by where, std::ostream* out) { *out << to_string(where); }
void PrintTo(const access_counts& c, std::ostream* out) {
  for (std::size_t i = 0; i < served_by_count; ++i)
    *out << to_string(static_cast<served_by>(i)) << " " << c.served[i] << ", ";
  *out << c.total_cycles << " cycles, " << c.writebacks << " writebacks, " << c.invalidations
       << " invalidations";
}

namespace {

// ---------------------------------------------------------------------------
// Helpers

// Round numbers, so every expected cycle count below is easy to check by
// hand: L1 1, L2 10, own L3 100, remote L3 300, local DRAM 1000, remote
// DRAM 2000, the remote figures at distance 20.
constexpr latency_table round_latencies{.l1_hit = 1,
                                        .l2_hit = 10,
                                        .l3_hit = 100,
                                        .remote_l3_hit = 300,
                                        .local_dram = 1000,
                                        .remote_dram = 2000,
                                        .reference_distance = 20};

machine_model test_machine(const std::string& topology_text) {
  machine_model m;
  m.name = "test";
  m.topo = parse_topology(topology_text);
  m.clock_ghz = 1;
  m.latency = round_latencies;
  m.costs = derive_scheduling_costs(m.latency);
  return m;
}

// Where one access of `bytes` (default: a word) was served, when it touched
// exactly one block.
served_by served_once(memory_model& mm, int core, std::uint64_t address, access_kind kind,
                      std::uint64_t bytes = 8) {
  const access_counts c = mm.access(core, address, bytes, kind);
  EXPECT_EQ(c.accesses(), 1u);
  for (std::size_t i = 0; i < served_by_count; ++i)
    if (c.served[i] == 1) return static_cast<served_by>(i);
  ADD_FAILURE() << "no level served the access";
  return served_by::l1;
}

access_counts counts(std::initializer_list<std::pair<served_by, std::uint64_t>> served,
                     cycles total) {
  access_counts c;
  for (const auto& [where, n] : served) c.served[static_cast<std::size_t>(where)] = n;
  c.total_cycles = total;
  return c;
}

template <typename Fn>
std::string config_error_message(Fn fn) {
  try {
    fn();
  } catch (const config_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected locus::config_error";
  return {};
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "\"" << part << "\" not in: " << text;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "locus_sim_" + name + ".machine";
  std::ofstream(path) << text;
  return path;
}

constexpr std::uint64_t page = 4096;
constexpr std::uint64_t line = 64;

// ---------------------------------------------------------------------------
// One cache: LRU order within a set

TEST(LruCache, EvictsTheLeastRecentlyUsedBlockOfTheSet) {
  lru_cache cache(4, 2);  // 2 sets of 2 ways: even blocks in set 0, odd in set 1
  EXPECT_EQ(cache.sets(), 2u);
  EXPECT_EQ(cache.ways(), 2);

  EXPECT_EQ(cache.insert(0), lru_cache::no_block);
  EXPECT_EQ(cache.insert(2), lru_cache::no_block);  // set 0: 2, 0
  EXPECT_TRUE(cache.touch(0));                       // set 0: 0, 2
  EXPECT_FALSE(cache.touch(4));
  EXPECT_EQ(cache.insert(4), 2u);                    // set 0: 4, 0
  EXPECT_TRUE(cache.contains(0));
  EXPECT_FALSE(cache.contains(2));

  // Set 1 is independent of set 0's traffic.
  EXPECT_EQ(cache.insert(1), lru_cache::no_block);
  EXPECT_EQ(cache.insert(3), lru_cache::no_block);
  EXPECT_EQ(cache.insert(5), 1u);                    // set 1: 5, 3

  // An invalidated slot is reused before anything is evicted.
  EXPECT_TRUE(cache.invalidate(0));                  // set 0: 4
  EXPECT_FALSE(cache.invalidate(0));
  EXPECT_EQ(cache.insert(6), lru_cache::no_block);   // set 0: 6, 4
  EXPECT_EQ(cache.insert(8), 4u);                    // set 0: 8, 6
}

TEST(LruCache, ZeroWaysIsFullyAssociative) {
  lru_cache cache(4, 0);
  EXPECT_EQ(cache.sets(), 1u);
  EXPECT_EQ(cache.ways(), 4);
  for (std::uint64_t b : {0, 2, 4, 6}) EXPECT_EQ(cache.insert(b), lru_cache::no_block);
  EXPECT_EQ(cache.insert(8), 0u);
}

// The set walks are compiled apart for 8 and 16 ways: each associativity
// against a plain model of a set (a vector, most recently used first), over
// a deterministic mix of every operation on a few sets.
TEST(LruCache, EveryAssociativityAgreesWithAPlainModel) {
  for (const int ways : {1, 2, 8, 12, 16}) {
    const std::uint64_t sets = 4;
    lru_cache cache(sets * static_cast<std::uint64_t>(ways), ways);
    std::vector<std::vector<std::uint64_t>> model(sets);  // slots, no empty ones
    std::uint64_t state = 12345;
    for (int step = 0; step < 20000; ++step) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      const std::uint64_t block = (state >> 33) % (sets * static_cast<std::uint64_t>(ways) * 3);
      auto& set = model[block % sets];
      const auto found = std::find_if(set.begin(), set.end(),
                                      [&](std::uint64_t s) { return lru_cache::block_of(s) == block; });
      const bool held = found != set.end();
      switch ((state >> 20) % 3) {
        case 0: {  // touch_or_insert, or insert of an absent block
          std::uint64_t evicted = lru_cache::no_block;
          if (!held && (state >> 40) % 2 == 0)
            evicted = cache.insert(block);
          else
            ASSERT_EQ(cache.touch_or_insert(block, evicted), held) << ways << " ways, step " << step;
          std::uint64_t slot = block;
          if (held) {
            slot = *found;
            set.erase(found);
          }
          set.insert(set.begin(), slot);
          std::uint64_t expected = lru_cache::no_block;
          if (set.size() > static_cast<std::size_t>(ways)) {
            expected = set.back();
            set.pop_back();
          }
          if (!held) {
            ASSERT_EQ(evicted, expected) << ways << " ways, step " << step;
          }
          break;
        }
        case 1:  // mark_dirty
          ASSERT_EQ(cache.mark_dirty(block), held) << ways << " ways, step " << step;
          if (held) *found |= lru_cache::dirty_bit;
          break;
        default:  // invalidate
          ASSERT_EQ(cache.invalidate(block), held) << ways << " ways, step " << step;
          if (held) set.erase(found);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The directory: holders per block

// Adds one cache as a holder of `block`.
void add_holder(block_directory& dir, std::uint64_t block, int cache) {
  std::vector<std::uint64_t> bits(dir.words(), 0);
  bits[static_cast<std::size_t>(cache) / 64] = std::uint64_t{1} << (cache % 64);
  dir.add(block, bits.data());
}

TEST(BlockDirectory, TracksHoldersAndForgetsBlocksNobodyHolds) {
  block_directory dir(130);  // three words of holder bits
  EXPECT_EQ(dir.words(), 3u);
  EXPECT_EQ(dir.holders(7), nullptr);
  add_holder(dir, 7, 0);
  add_holder(dir, 7, 129);
  ASSERT_NE(dir.holders(7), nullptr);
  EXPECT_EQ(dir.holders(7)[0], 1u);
  EXPECT_EQ(dir.holders(7)[2], 2u);  // cache 129 = bit 1 of word 2
  dir.remove(7, 0);
  EXPECT_EQ(dir.size(), 1u);
  dir.remove(7, 129);
  EXPECT_EQ(dir.holders(7), nullptr);
  EXPECT_EQ(dir.size(), 0u);
}

TEST(BlockDirectory, AgreesWithAMapThroughGrowthAndDeletion) {
  // Enough blocks to grow the table several times, removed in an order
  // unrelated to insertion, so deletions land inside probe runs.
  block_directory dir(2);
  std::map<std::uint64_t, std::uint64_t> expected;  // block -> holder bits
  std::uint64_t state = 99;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t block = next() % 5000;
    const int cache = static_cast<int>(next() % 2);
    if (next() % 3 != 0) {
      add_holder(dir, block, cache);
      expected[block] |= std::uint64_t{1} << cache;
    } else {
      dir.remove(block, cache);
      if (const auto it = expected.find(block); it != expected.end()) {
        it->second &= ~(std::uint64_t{1} << cache);
        if (it->second == 0) expected.erase(it);
      }
    }
  }
  EXPECT_EQ(dir.size(), expected.size());
  for (std::uint64_t block = 0; block < 5000; ++block) {
    const auto it = expected.find(block);
    const std::uint64_t* bits = dir.holders(block);
    if (it == expected.end()) {
      EXPECT_EQ(bits, nullptr) << "block " << block;
    } else {
      ASSERT_NE(bits, nullptr) << "block " << block;
      EXPECT_EQ(bits[0], it->second) << "block " << block;
    }
  }
}

// ---------------------------------------------------------------------------
// Hits by level

TEST(MemoryModel, LruEvictionOrderInATinyCache) {
  // One core, one 256-byte L1 of 2 ways: 4 lines in 2 sets; no L2 or L3.
  memory_model mm(test_machine("1x1:L1=256,L1assoc=2,L2=0,L3=0"));
  ASSERT_EQ(mm.geometry().size(), 1u);
  EXPECT_EQ(mm.geometry()[0].sets, 2u);
  EXPECT_EQ(mm.geometry()[0].ways, 2);

  // Lines 0, 2 and 4 (addresses 0, 128, 256) all fall in set 0.
  EXPECT_EQ(served_once(mm, 0, 0, access_kind::read), served_by::local_dram);
  EXPECT_EQ(served_once(mm, 0, 2 * line, access_kind::read), served_by::local_dram);
  EXPECT_EQ(served_once(mm, 0, 0, access_kind::read), served_by::l1);  // 0 is now MRU
  EXPECT_EQ(served_once(mm, 0, 4 * line, access_kind::read), served_by::local_dram);  // evicts 2
  EXPECT_EQ(served_once(mm, 0, 0, access_kind::read), served_by::l1);
  EXPECT_EQ(served_once(mm, 0, 2 * line, access_kind::read), served_by::local_dram);  // evicts 4
  EXPECT_EQ(served_once(mm, 0, 4 * line, access_kind::read), served_by::local_dram);
  // Line 1 is in set 1, untouched by all of the above.
  EXPECT_EQ(served_once(mm, 0, 1 * line, access_kind::read), served_by::local_dram);
  EXPECT_EQ(served_once(mm, 0, 1 * line, access_kind::read), served_by::l1);
}

TEST(MemoryModel, SecondAccessHitsL1) {
  memory_model mm(test_machine("1x1:L1=1K,L2=4K,L3=16K"));
  EXPECT_EQ(mm.block_bytes(), 64u);
  EXPECT_EQ(mm.access(0, 0x1000, 8, access_kind::read),
            counts({{served_by::local_dram, 1}}, 1000));
  EXPECT_EQ(mm.access(0, 0x1008, 8, access_kind::read), counts({{served_by::l1, 1}}, 1));
  // 16 bytes from address 60 span two lines: 0x0 and 0x40.
  EXPECT_EQ(mm.access(0, 60, 16, access_kind::read), counts({{served_by::local_dram, 2}}, 2000));
}

TEST(MemoryModel, WorkingSetBetweenL1AndL2HitsL2OnTheSecondPass) {
  // L1: 1 KB, 2 ways = 16 lines in 8 sets. L2: 4 KB, 4 ways = 64 lines in
  // 16 sets. A 2 KB sweep (32 lines) fits L2 but not L1. On the second pass
  // L1 set s holds lines s+16 and s+24 when line s is wanted: with LRU, a
  // sweep twice the size of a cache misses in it on every access.
  memory_model mm(test_machine("1x1:L1=1K,L1assoc=2,L2=4K,L2assoc=4,L3=0"));
  EXPECT_EQ(mm.access(0, 0, 2048, access_kind::read), counts({{served_by::local_dram, 32}}, 32000));
  EXPECT_EQ(mm.access(0, 0, 2048, access_kind::read), counts({{served_by::l2, 32}}, 320));
  // Half of it (16 lines: 2 per L1 set) fits L1: read once from L2, then L1.
  EXPECT_EQ(mm.access(0, 0, 1024, access_kind::read), counts({{served_by::l2, 16}}, 160));
  EXPECT_EQ(mm.access(0, 0, 1024, access_kind::read), counts({{served_by::l1, 16}}, 16));
}

// ---------------------------------------------------------------------------
// Sharing and invalidation

TEST(MemoryModel, SharingAcrossCoresAndSockets) {
  // Two sockets (= NUMA nodes) of two cores: cores 0, 1 share socket 0's L3,
  // cores 2, 3 socket 1's.
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  const std::uint64_t x = 0;

  EXPECT_EQ(served_once(mm, 0, x, access_kind::write), served_by::local_dram);  // first touch
  EXPECT_EQ(mm.home_of(x), 0);
  EXPECT_EQ(served_once(mm, 1, x, access_kind::read), served_by::local_l3);   // shared L3
  EXPECT_EQ(served_once(mm, 2, x, access_kind::read), served_by::remote_l3);  // socket 0's L3
  EXPECT_EQ(served_once(mm, 2, x, access_kind::read), served_by::l1);
  EXPECT_EQ(served_once(mm, 3, x, access_kind::read), served_by::local_l3);   // filled by core 2
  // Reads invalidate nothing: core 0 still holds x.
  EXPECT_EQ(served_once(mm, 0, x, access_kind::write), served_by::l1);
  // That write removed x from cores 1-3's private caches and socket 1's L3,
  // but not from socket 0's L3, which is in the writer's chain.
  EXPECT_EQ(served_once(mm, 2, x, access_kind::read), served_by::remote_l3);
  EXPECT_EQ(served_once(mm, 1, x, access_kind::read), served_by::local_l3);
  EXPECT_EQ(served_once(mm, 3, x, access_kind::read), served_by::local_l3);  // core 2 refilled it

  // Counters accumulate per core: core 2 had remote L3, L1, remote L3.
  EXPECT_EQ(mm.counters(2), counts({{served_by::remote_l3, 2}, {served_by::l1, 1}}, 601));
  // Core 0's second write hit its L1 but waited for the copies it removed:
  // core 1's (own L3 figure, 100), cores 2 and 3's and socket 1's L3 (300).
  access_counts core0 = counts({{served_by::local_dram, 1}, {served_by::l1, 1}}, 1000 + 300);
  core0.invalidations = 4;
  EXPECT_EQ(mm.counters(0), core0);
  mm.reset_counters();
  for (int core = 0; core < 4; ++core) EXPECT_EQ(mm.counters(core), access_counts{});
  // Resetting counters leaves the caches as they were.
  EXPECT_EQ(served_once(mm, 2, x, access_kind::read), served_by::l1);
}

TEST(MemoryModel, WriteInvalidatesOnlyTheWrittenLine) {
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  mm.access(2, 0, 2 * line, access_kind::read);  // core 2 holds lines 0 and 1
  mm.access(0, 0, 8, access_kind::write);        // core 0 writes line 0
  EXPECT_EQ(served_once(mm, 2, line, access_kind::read), served_by::l1);
  EXPECT_EQ(served_once(mm, 2, 0, access_kind::read), served_by::remote_l3);
}

// ---------------------------------------------------------------------------
// Writes: dirty lines, write-backs, invalidations

access_counts with_traffic(access_counts c, std::uint64_t writebacks, std::uint64_t invalidations) {
  c.writebacks = writebacks;
  c.invalidations = invalidations;
  return c;
}

TEST(MemoryModel, EvictingADirtyLineWritesItBackAndACleanOneDoesNot) {
  // One core, an L1 of two lines (one set) and nothing else.
  memory_model mm(test_machine("1x1:L1=128,L1assoc=2,L2=0,L3=0"));
  EXPECT_EQ(mm.access(0, 0, 8, access_kind::write), counts({{served_by::local_dram, 1}}, 1000));
  EXPECT_EQ(mm.access(0, line, 8, access_kind::read), counts({{served_by::local_dram, 1}}, 1000));
  // Line 2 evicts line 0, dirty: a write-back to node 0 that costs the
  // evicting core nothing.
  EXPECT_EQ(mm.access(0, 2 * line, 8, access_kind::read),
            with_traffic(counts({{served_by::local_dram, 1}}, 1000), 1, 0));
  EXPECT_EQ(mm.last_writeback_blocks_by_node(), std::vector<std::uint64_t>{1});
  // Line 3 evicts line 1, clean: none.
  EXPECT_EQ(mm.access(0, 3 * line, 8, access_kind::read), counts({{served_by::local_dram, 1}}, 1000));
  EXPECT_EQ(mm.last_writeback_blocks_by_node(), std::vector<std::uint64_t>{0});
  // Written again after it came back: dirty again, written back again.
  EXPECT_EQ(mm.access(0, 0, 8, access_kind::write), counts({{served_by::local_dram, 1}}, 1000));
  EXPECT_EQ(mm.access(0, 0, 8, access_kind::write), counts({{served_by::l1, 1}}, 1));
  mm.access(0, line, 2 * line, access_kind::read);
  EXPECT_EQ(mm.counters(0).writebacks, 2u);
  EXPECT_EQ(mm.counters(0).invalidations, 0u);
}

TEST(MemoryModel, ADirtyLineGoesToTheNextLevelHoldingItBeforeDram) {
  // L1 of two lines, L2 of four, each one set, no L3.
  memory_model mm(test_machine("1x1:L1=128,L1assoc=2,L2=256,L2assoc=4,L3=0"));
  mm.access(0, 0, 8, access_kind::write);           // L1 [0 dirty], L2 [0]
  mm.access(0, line, 8, access_kind::read);         // L1 [1, 0], L2 [1, 0]
  // Line 2 evicts the dirty line 0 from L1 into L2, which holds it: no DRAM.
  EXPECT_EQ(mm.access(0, 2 * line, 8, access_kind::read).writebacks, 0u);
  EXPECT_EQ(mm.access(0, 3 * line, 8, access_kind::read).writebacks, 0u);  // L2 [3, 2, 1, 0]
  // Line 4 evicts line 0, now dirty in L2, the last level: written back.
  EXPECT_EQ(mm.access(0, 4 * line, 8, access_kind::read).writebacks, 1u);
  EXPECT_EQ(mm.access(0, 5 * line, 8, access_kind::read).writebacks, 0u);  // line 1, clean
}

TEST(MemoryModel, AWriteInvalidatesOtherCopiesAndWaitsForTheFarthest) {
  // Two sockets of two cores; a remote line costs 300, the own L3 100.
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  const std::uint64_t x = 0;
  mm.access(2, x, 8, access_kind::read);  // home on node 1; socket 1's L3 and core 2
  mm.access(0, x, 8, access_kind::read);  // remote L3 hit; socket 0's L3 and core 0
  mm.access(1, x, 8, access_kind::read);  // own L3 hit; core 1
  // Core 1 hits its L1 but removes the copies of core 0 (same socket),
  // core 2 and socket 1's L3 (the other): three holders, the farthest at 300.
  EXPECT_EQ(mm.access(1, x, 8, access_kind::write),
            with_traffic(counts({{served_by::l1, 1}}, 300), 0, 3));
  // Core 0 gets it from the L3 they share, then writes it: only core 1's
  // copy is elsewhere, on its own socket, at the own L3's 100 cycles.
  EXPECT_EQ(mm.access(0, x, 8, access_kind::read), counts({{served_by::local_l3, 1}}, 100));
  EXPECT_EQ(mm.access(0, x, 8, access_kind::write),
            with_traffic(counts({{served_by::l1, 1}}, 100), 0, 1));
  // Nobody else holds it now: the next write is a plain L1 hit.
  EXPECT_EQ(mm.access(0, x, 8, access_kind::write), counts({{served_by::l1, 1}}, 1));
  // A dirty copy removed by a write is not written back: its data moves to
  // the writer. Core 2 misses everything but socket 0's L3 (remote, 300).
  EXPECT_EQ(mm.access(2, x, 8, access_kind::write),
            with_traffic(counts({{served_by::remote_l3, 1}}, 300), 0, 2));
  EXPECT_EQ(mm.counters(1).invalidations, 3u);
  EXPECT_EQ(mm.counters(0).invalidations, 1u);
}

TEST(MemoryModel, WritesGiveTheSameCountsOnEveryRun) {
  const machine_model m = test_machine("4x2:L1=256,L1assoc=2,L2=1K,L2assoc=4,L3=4K,dist=10/20/30");
  memory_model a(m), b(m);
  std::uint64_t state = 7;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int i = 0; i < 20000; ++i) {
    const int core = static_cast<int>(next() % 8);
    const std::uint64_t address = next() % (64 * page);
    const std::uint64_t bytes = 1 + next() % 300;
    const auto kind = next() % 2 == 0 ? access_kind::write : access_kind::read;
    ASSERT_EQ(a.access(core, address, bytes, kind), b.access(core, address, bytes, kind));
    ASSERT_EQ(a.last_writeback_blocks_by_node(), b.last_writeback_blocks_by_node());
  }
  access_counts total;
  for (int core = 0; core < 8; ++core) total += a.counters(core);
  EXPECT_GT(total.writebacks, 0u);
  EXPECT_GT(total.invalidations, 0u);
}

// ---------------------------------------------------------------------------
// Page homes

TEST(MemoryModel, FirstTouchHomesPagesOnTheTouchersNode) {
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  EXPECT_EQ(mm.policy(), page_policy::first_touch);
  EXPECT_EQ(mm.home_of(page), std::nullopt);

  EXPECT_EQ(served_once(mm, 0, page, access_kind::read), served_by::local_dram);
  EXPECT_EQ(mm.home_of(page), 0);
  EXPECT_EQ(mm.home_of(page + 4095), 0);
  EXPECT_EQ(mm.home_of(2 * page), std::nullopt);
  // Another line of the same page, from socket 1: in no cache, so DRAM, and
  // the page lives on node 0.
  EXPECT_EQ(mm.access(2, page + line, 8, access_kind::read),
            counts({{served_by::remote_dram, 1}}, 2000));

  EXPECT_EQ(served_once(mm, 3, 2 * page, access_kind::write), served_by::local_dram);
  EXPECT_EQ(mm.home_of(2 * page), 1);
  EXPECT_EQ(served_once(mm, 1, 2 * page + line, access_kind::read), served_by::remote_dram);
}

TEST(MemoryModel, InterleaveAlternatesHomesByPage) {
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"),
                  {.policy = page_policy::interleave});
  access_counts total;
  for (std::uint64_t p = 0; p < 4; ++p) total += mm.access(0, p * page, 8, access_kind::read);
  EXPECT_EQ(total, counts({{served_by::local_dram, 2}, {served_by::remote_dram, 2}}, 6000));
  EXPECT_EQ(mm.home_of(0), 0);
  EXPECT_EQ(mm.home_of(page), 1);
  EXPECT_EQ(mm.home_of(2 * page), 0);
  EXPECT_EQ(mm.home_of(3 * page), 1);
  // Core 2 (node 1) sees the same homes the other way round.
  EXPECT_EQ(served_once(mm, 2, 4 * page, access_kind::read), served_by::remote_dram);
  EXPECT_EQ(served_once(mm, 2, 5 * page, access_kind::read), served_by::local_dram);
}

TEST(MemoryModel, InterleaveARangeUnderFirstTouch) {
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  mm.interleave(10 * page + 100, 2 * page);  // overlaps pages 10, 11 and 12
  EXPECT_EQ(mm.home_of(10 * page), 0);
  EXPECT_EQ(mm.home_of(11 * page), 1);
  EXPECT_EQ(mm.home_of(12 * page), 0);
  EXPECT_EQ(mm.home_of(13 * page), std::nullopt);
  EXPECT_EQ(served_once(mm, 0, 11 * page, access_kind::read), served_by::remote_dram);
}

TEST(MemoryModel, ExplicitBindingHomesARangeAndMovesPages) {
  memory_model mm(test_machine("2x2:L1=1K,L2=4K,L3=16K,dist=10/20"));
  mm.bind(4 * page, 2 * page, 1);
  EXPECT_EQ(mm.home_of(4 * page), 1);
  EXPECT_EQ(mm.home_of(5 * page + 4095), 1);
  EXPECT_EQ(mm.home_of(6 * page), std::nullopt);
  EXPECT_EQ(served_once(mm, 0, 4 * page, access_kind::read), served_by::remote_dram);
  EXPECT_EQ(served_once(mm, 2, 5 * page, access_kind::read), served_by::local_dram);

  // A first-touched page moves when bound.
  EXPECT_EQ(served_once(mm, 0, 7 * page, access_kind::read), served_by::local_dram);
  mm.bind(7 * page, 1, 1);
  EXPECT_EQ(mm.home_of(7 * page), 1);
  EXPECT_EQ(served_once(mm, 0, 7 * page + line, access_kind::read), served_by::remote_dram);

  EXPECT_THROW(mm.bind(0, page, 2), std::out_of_range);
  EXPECT_THROW(mm.bind(0, page, -1), std::out_of_range);
}

// ---------------------------------------------------------------------------
// The remote rule

TEST(RemoteRule, LinearInDistanceThroughLocalAndReference) {
  EXPECT_EQ(at_distance(1000, 2000, 20, 10), 1000u);
  EXPECT_EQ(at_distance(1000, 2000, 20, 20), 2000u);
  EXPECT_EQ(at_distance(1000, 2000, 20, 30), 3000u);
  EXPECT_EQ(at_distance(1000, 2000, 20, 15), 1500u);
  EXPECT_EQ(at_distance(0, 1, 20, 15), 1u);      // 0.5 rounds up
  EXPECT_EQ(at_distance(100, 130, 21, 32), 160u);  // 100 + 30 * 22 / 11
  EXPECT_EQ(at_distance(190, 310, 20, 5), 190u);  // below 10 is local
}

TEST(MemoryModel, RemoteCostsScaleWithDistance) {
  // A ring of four one-core sockets: node 0 is 20 from nodes 1 and 3 and 30
  // from node 2.
  memory_model mm(test_machine("4x1:L1=1K,L2=0,L3=16K,dist=10/20/30"));
  mm.bind(page, page, 1);
  mm.bind(2 * page, page, 2);
  EXPECT_EQ(mm.access(0, page, 8, access_kind::read), counts({{served_by::remote_dram, 1}}, 2000));
  // 1000 + (2000 - 1000) * (30 - 10) / (20 - 10)
  EXPECT_EQ(mm.access(0, 2 * page, 8, access_kind::read),
            counts({{served_by::remote_dram, 1}}, 3000));

  // A line in node 2's L3 only: 100 + (300 - 100) * (30 - 10) / (20 - 10).
  mm.access(2, 3 * page, 8, access_kind::read);
  EXPECT_EQ(mm.access(0, 3 * page, 8, access_kind::read),
            counts({{served_by::remote_l3, 1}}, 500));
  // Node 1 is one hop from both holders now (nodes 0 and 2).
  EXPECT_EQ(mm.access(1, 3 * page, 8, access_kind::read),
            counts({{served_by::remote_l3, 1}}, 300));

  // Held by nodes 1 (one hop from node 0) and 2 (two hops): the nearer
  // serves, whatever the cache order.
  mm.access(2, 4 * page, 8, access_kind::read);
  mm.access(1, 4 * page, 8, access_kind::read);
  EXPECT_EQ(mm.access(0, 4 * page, 8, access_kind::read),
            counts({{served_by::remote_l3, 1}}, 300));
}

TEST(MachineModel, PresetRemoteCostsFollowTheRule) {
  const machine_model m = find_machine("numa-ws-4x8");
  EXPECT_EQ(m.topo.numa_distance[0][2], 30);
  EXPECT_EQ(m.dram_cycles(10), 143u);
  EXPECT_EQ(m.dram_cycles(20), 229u);
  EXPECT_EQ(m.dram_cycles(30), 315u);       // 143 + 2 x (229 - 143)
  EXPECT_EQ(m.remote_l3_cycles(30), 264u);  // 30 + 2 x (147 - 30)
  EXPECT_EQ(m.steal_cycles(10), 110u);      // 3 x 30 + 20
  EXPECT_EQ(m.steal_cycles(20), 461u);      // 3 x 147 + 20
  EXPECT_EQ(m.steal_cycles(30), 812u);
  // A policy's one-line operation (NUMA-WS's mailbox), derived.
  EXPECT_EQ(m.operation_cycles(m.resolve_operation("mailbox", 1), 20), 167u);  // 147 + 20
}

// ---------------------------------------------------------------------------
// Presets

struct expected_shape {
  int cores, packages, nodes;
  std::size_t l1, l2, l3;
  double ghz;
};

TEST(MachinePresets, AllBuildAndListInOrder) {
  const std::map<std::string, expected_shape> shapes = {
      {"numa-ws-4x8", {32, 4, 4, 32 << 10, 256 << 10, 16 << 20, 2.2}},
      {"tbb-numa-westmere-4x8", {32, 4, 4, 32 << 10, 256 << 10, 24 << 20, 2.13}},
      {"tbb-numa-nehalem-2x4", {8, 2, 2, 32 << 10, 256 << 10, 8 << 20, 2.26}},
      {"tbb-numa-bulldozer-4x4", {16, 4, 4, 16 << 10, 1 << 20, 8 << 20, 2.6}},
      {"cats-opteron-4x4", {16, 4, 4, 64 << 10, 512 << 10, 6 << 20, 2.5}},
      {"adws-cascadelake-2x28", {56, 2, 2, 32 << 10, 1 << 20, 40370176, 2.7}},  // 38.5 MiB
      {"nabbitc-8x10", {80, 8, 8, 32 << 10, 256 << 10, 24 << 20, 2.27}},
  };
  std::vector<std::string> names;
  for (const auto& preset : machine_presets()) {
    names.emplace_back(preset.name);
    EXPECT_FALSE(preset.summary.empty()) << preset.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"numa-ws-4x8", "tbb-numa-westmere-4x8",
                                             "tbb-numa-nehalem-2x4", "tbb-numa-bulldozer-4x4",
                                             "cats-opteron-4x4", "adws-cascadelake-2x28",
                                             "nabbitc-8x10", "host"}));

  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const machine_model m = find_machine(name);
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.source.empty());
    // Bandwidth and memory-level parallelism are on for every preset.
    EXPECT_GT(m.memory_controller_gbps, 0.0);
    EXPECT_GT(m.link_gbps, 0.0);
    EXPECT_GE(m.links_per_hop, 1);
    EXPECT_GT(m.outstanding_misses, 1u);
    EXPECT_GE(m.prefetch_outstanding, m.outstanding_misses / 2);
    const latency_table& t = m.latency;
    EXPECT_LT(t.l1_hit, t.l2_hit);
    EXPECT_LT(t.l2_hit, t.l3_hit);
    EXPECT_LT(t.l3_hit, t.remote_l3_hit);
    EXPECT_LT(t.local_dram, t.remote_dram);
    EXPECT_EQ(m.costs.steal_local, 3 * t.l3_hit + 20);
    EXPECT_EQ(m.costs.steal_remote, 3 * t.remote_l3_hit + 20);
    EXPECT_EQ(m.costs.fiber_switch, 19u);
    EXPECT_GE(m.topo.num_cores(), 1);

    if (const auto it = shapes.find(name); it != shapes.end()) {
      const expected_shape& s = it->second;
      EXPECT_EQ(m.topo.num_cores(), s.cores);
      EXPECT_EQ(m.topo.num_packages, s.packages);
      EXPECT_EQ(m.topo.num_numa_nodes, s.nodes);
      EXPECT_DOUBLE_EQ(m.clock_ghz, s.ghz);
      std::map<int, std::size_t> size_by_level;
      for (const auto& c : m.topo.caches) size_by_level[c.level] = c.size_bytes;
      EXPECT_EQ(size_by_level[1], s.l1);
      EXPECT_EQ(size_by_level[2], s.l2);
      EXPECT_EQ(size_by_level[3], s.l3);
    }

    // The memory model accepts every preset; a first access goes to DRAM.
    memory_model mm(m);
    EXPECT_EQ(served_once(mm, 0, 0, access_kind::read), served_by::local_dram);
    EXPECT_EQ(served_once(mm, 0, 0, access_kind::read), served_by::l1);
  }
}

TEST(MachinePresets, NehalemUsesTheLatenciesTbbNumaCites) {
  const latency_table t = find_machine("tbb-numa-nehalem-2x4").latency;
  EXPECT_EQ(t.l3_hit, 38u);
  EXPECT_EQ(t.remote_l3_hit, 186u);
  EXPECT_EQ(t.local_dram, 190u);
  EXPECT_EQ(t.remote_dram, 310u);
}

TEST(MachinePresets, UnknownNameNamesTheSettingValueAndPresets) {
  const auto message = config_error_message([] { find_machine("numa-ws-4x9"); });
  expect_contains(message, "LOCUS_MACHINE");
  expect_contains(message, "\"numa-ws-4x9\"");
  for (const auto& preset : machine_presets()) expect_contains(message, std::string(preset.name));
  expect_contains(message, "machine file");
}

// ---------------------------------------------------------------------------
// Machine files

TEST(MachineFile, ReadsEveryKeyAndDerivesMissingCosts) {
  const auto path = write_file("full",
                               "# a small machine\n"
                               "name = tiny\n"
                               "topology = 2x2:L1=1K,L2=4K,L3=16K,dist=10/20\n"
                               "clock_ghz = 3.5\n"
                               "\n"
                               "l1_hit = 2\n"
                               "l2_hit = 12\n"
                               "l3_hit = 40\n"
                               "remote_l3_hit = 150\n"
                               "local_dram = 200\n"
                               "remote_dram = 320\n"
                               "reference_distance = 21\n"
                               "steal_remote = 999\n"
                               "source = made up for a test\n");
  const machine_model m = find_machine(path);
  EXPECT_EQ(m.name, "tiny");
  EXPECT_EQ(m.source, "made up for a test");
  EXPECT_EQ(m.topo.num_cores(), 4);
  EXPECT_DOUBLE_EQ(m.clock_ghz, 3.5);
  EXPECT_EQ(m.latency, (latency_table{.l1_hit = 2,
                                      .l2_hit = 12,
                                      .l3_hit = 40,
                                      .remote_l3_hit = 150,
                                      .local_dram = 200,
                                      .remote_dram = 320,
                                      .reference_distance = 21}));
  EXPECT_EQ(m.costs.steal_remote, 999u);              // given
  EXPECT_EQ(m.costs.steal_local, 140u);               // 3 x 40 + 20
  EXPECT_EQ(m.resolve_operation("mailbox", 1), (operation_cost{60, 170}));  // 40 + 20, 150 + 20
  EXPECT_EQ(m.costs.deque_push, 10u);
  EXPECT_EQ(m.costs.sleep, 1000u);
  EXPECT_EQ(m.memory_controller_gbps, 0.0);
}

TEST(MachineFile, BaseMachineWithOverrides) {
  const auto path = write_file("base",
                               "base = tbb-numa-nehalem-2x4\n"
                               "l3_hit = 40\n"
                               "mailbox_remote = 500\n"
                               "memory_controller_gbps = 12.5\n"
                               "link_gbps = 6\n"
                               "links_per_hop = 2\n"
                               "link_data_header_bytes = 4\n"
                               "link_request_bytes = 12\n"
                               "snoop_bytes = 0\n"
                               "snoop_response_bytes = 2.5\n"
                               "outstanding_misses = 4\n"
                               "prefetch_outstanding = 0\n");
  const machine_model m = load_machine_file(path);
  // A policy's operation: the file's figure where it gives one, else derived.
  EXPECT_EQ(m.resolve_operation("mailbox", 1), (operation_cost{60, 500}));
  EXPECT_EQ(m.topo.num_cores(), 8);
  EXPECT_EQ(m.latency.l3_hit, 40u);
  EXPECT_EQ(m.latency.remote_l3_hit, 186u);
  EXPECT_EQ(m.costs.steal_local, 140u);   // derived again from the new L3 latency
  EXPECT_EQ(m.costs.steal_remote, 578u);  // 3 x 186 + 20
  EXPECT_DOUBLE_EQ(m.memory_controller_gbps, 12.5);
  EXPECT_DOUBLE_EQ(m.link_gbps, 6.0);
  EXPECT_EQ(m.links_per_hop, 2);
  // The link protocol: each key given, none taken from the base's QPI 8/8/8/8.
  EXPECT_DOUBLE_EQ(m.protocol.data_header_bytes, 4.0);
  EXPECT_DOUBLE_EQ(m.protocol.request_bytes, 12.0);
  EXPECT_DOUBLE_EQ(m.protocol.snoop_bytes, 0.0);
  EXPECT_DOUBLE_EQ(m.protocol.snoop_response_bytes, 2.5);
  EXPECT_EQ(m.outstanding_misses, 4u);
  EXPECT_EQ(m.prefetch_outstanding, 0u);
  EXPECT_EQ(m.prefetch_trigger, 2u);  // the base's
  expect_contains(m.source, "tbb-numa-nehalem-2x4");
}

// Operation keys are checked against what the registered policies declare
// when the runtime starts.
TEST(MachineFile, OperationKeysMustBeDeclaredByAPolicy) {
  const auto path = write_file("unknown_op", "base = numa-ws-4x8\nfrobnicate_local = 3\n");
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = path;
  std::string message;
  try {
    locus::runtime rt(o);
  } catch (const locus::config_error& e) {
    message = e.what();
  }
  expect_contains(message, "frobnicate_local");
  expect_contains(message, "mailbox");
}

struct bad_file_case {
  std::string name;
  std::string text;
  std::vector<std::string> expected;  // parts of the message besides the path
};

TEST(MachineFile, ErrorsNameTheFileLineAndKey) {
  const std::string complete_but_remote_dram =
      "topology = 1x2\nclock_ghz = 2\nl1_hit = 4\nl2_hit = 12\nl3_hit = 40\n"
      "remote_l3_hit = 150\nlocal_dram = 200\n";
  const std::vector<bad_file_case> cases = {
      {"unknown_key", "name = x\nl4_hit = 3\n", {"line 2", "key l4_hit", "unknown key", "l3_hit"}},
      {"bad_number", "name = x\n\nl1_hit = four\n", {"line 3", "key l1_hit", "\"four\""}},
      {"zero_latency", "l2_hit = 0\n", {"line 1", "key l2_hit", "at least 1"}},
      {"twice", "clock_ghz = 2\nclock_ghz = 3\n", {"line 2", "key clock_ghz", "first on line 1"}},
      {"bad_topology", "topology = 4y8\n", {"line 1", "key topology", "\"4y8\""}},
      {"no_equals", "# comment\nclock_ghz 2.0\n", {"line 2", "key clock_ghz", "key = value"}},
      {"no_value", "name =\n", {"line 1", "key name", "no value"}},
      {"bad_clock", "clock_ghz = 0\n", {"line 1", "key clock_ghz", "positive"}},
      {"bad_distance", "reference_distance = 10\n", {"line 1", "key reference_distance"}},
      {"bad_outstanding", "base = numa-ws-4x8\noutstanding_misses = 0\n",
       {"line 2", "key outstanding_misses", "from 1 to 1024", "\"0\""}},
      {"bad_links", "base = numa-ws-4x8\nlinks_per_hop = 65\n", {"line 2", "key links_per_hop", "\"65\""}},
      {"bad_link_gbps", "base = numa-ws-4x8\nlink_gbps = -1\n", {"line 2", "key link_gbps", "non-negative"}},
      {"bad_snoop", "base = numa-ws-4x8\nsnoop_bytes = -8\n", {"line 2", "key snoop_bytes", "non-negative"}},
      {"bad_header", "base = numa-ws-4x8\nlink_data_header_bytes = eight\n",
       {"line 2", "key link_data_header_bytes", "\"eight\""}},
      {"unknown_base", "base = nehalem\n", {"line 1", "key base", "\"nehalem\"", "numa-ws-4x8"}},
      {"missing_key", "topology = 1x2\n", {"missing key clock_ghz"}},
      {"remote_below_local", complete_but_remote_dram + "remote_dram = 100\n",
       {"line 8", "key remote_dram", "remote_dram (100) must not be below local_dram (200)"}},
      {"remote_l3_below_l3", "base = numa-ws-4x8\nremote_l3_hit = 20\n",
       {"line 2", "key remote_l3_hit", "must not be below l3_hit"}},
      // Two bad lines: the first in the file is reported (keys sort the
      // other way).
      {"first_in_file", "l2_hit = x\nclock_ghz = -1\n", {"line 1", "key l2_hit"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto path = write_file(c.name, c.text);
    const auto message = config_error_message([&] { load_machine_file(path); });
    expect_contains(message, "machine file \"" + path + "\"");
    for (const auto& part : c.expected) expect_contains(message, part);
  }
  const auto missing = config_error_message([] { load_machine_file("/nonexistent/x.machine"); });
  expect_contains(missing, "\"/nonexistent/x.machine\"");
  expect_contains(missing, "cannot be opened");
}

// ---------------------------------------------------------------------------
// Block and page sizes

TEST(MemoryModel, CoarserBlocksAreReportedAndCounted) {
  memory_model mm(test_machine("1x1:L1=1K,L2=4K,L3=16K"), {.block_bytes = 256});
  EXPECT_EQ(mm.block_bytes(), 256u);
  EXPECT_EQ(mm.page_bytes(), 4096u);
  // L1: 1 KB holds 4 blocks of 256; 8 ways become 4, in one set.
  EXPECT_EQ(mm.geometry()[0].level, 1);
  EXPECT_EQ(mm.geometry()[0].sets, 1u);
  EXPECT_EQ(mm.geometry()[0].ways, 4);
  EXPECT_EQ(mm.access(0, 0, 256, access_kind::read), counts({{served_by::local_dram, 1}}, 1000));
  EXPECT_EQ(mm.access(0, 128, 256, access_kind::read),
            counts({{served_by::l1, 1}, {served_by::local_dram, 1}}, 1001));
}

TEST(MemoryModel, UnusableBlockAndPageSizesAreConfigErrors) {
  const machine_model m = test_machine("1x1:L1=1K,L2=4K,L3=16K");
  const auto error_for = [&](const memory_options& options) {
    return config_error_message([&] { memory_model mm(m, options); });
  };
  expect_contains(error_for({.block_bytes = 96}), "block size 96 bytes is not a power of two");
  expect_contains(error_for({.block_bytes = 32}), "smaller than the cache line (64 bytes)");
  expect_contains(error_for({.block_bytes = 8192}), "larger than a page (4096 bytes)");
  expect_contains(error_for({.page_bytes = 1000}), "page size 1000 bytes is not a power of two");
  expect_contains(error_for({.block_bytes = 2048}),
                  "the L1 cache of 1024 bytes holds no block of 2048 bytes");
  expect_contains(config_error_message([] { memory_model mm(test_machine("1x1:L1=1K,line=2")); }),
                  "block size 2 bytes is below 4 bytes");
}

TEST(MemoryModel, BadCoresAndRangesAreRejected) {
  memory_model mm(test_machine("1x2:L1=1K,L2=4K,L3=16K"));
  EXPECT_THROW(mm.access(2, 0, 8, access_kind::read), std::out_of_range);
  EXPECT_THROW(mm.access(-1, 0, 8, access_kind::read), std::out_of_range);
  EXPECT_THROW(mm.access(0, ~std::uint64_t{0}, 1, access_kind::read), std::out_of_range);
  EXPECT_EQ(mm.access(0, 0, 0, access_kind::read), access_counts{});
  EXPECT_EQ(mm.access(0, ~std::uint64_t{0} - 8, 8, access_kind::read).accesses(), 1u);
}

// ---------------------------------------------------------------------------
// The directory against a brute-force reference

// The memory model's rules with no directory: every question is answered by
// searching every cache. Slow and obviously faithful to the rules.
class reference_model {
 public:
  explicit reference_model(const machine_model& m) : m_(m) {
    for (const auto& info : m.topo.caches) {
      const std::uint64_t blocks = info.size_bytes / line;
      const std::uint64_t ways =
          info.associativity == 0 ? blocks : static_cast<std::uint64_t>(info.associativity);
      caches_.push_back({info.level, m.topo.cores[info.cores.front()].numa_node, info.cores,
                         std::vector<std::vector<std::uint64_t>>(blocks / ways), ways});
    }
  }

  // One block access: where it was served and what it cost.
  access_counts access(int core, std::uint64_t block, access_kind kind) {
    std::vector<int> chain;
    for (int i = 0; i < static_cast<int>(caches_.size()); ++i)
      if (std::count(caches_[i].cores.begin(), caches_[i].cores.end(), core) > 0)
        chain.push_back(i);
    std::stable_sort(chain.begin(), chain.end(),
                     [&](int a, int b) { return caches_[a].level < caches_[b].level; });
    const int node = m_.topo.cores[core].numa_node;

    std::size_t hit = 0;
    while (hit < chain.size() && !take(caches_[chain[hit]], block)) ++hit;
    served_by where;
    cycles cost = 0;
    if (hit < chain.size()) {
      const int level = caches_[chain[hit]].level;
      where = level == 1 ? served_by::l1 : level == 2 ? served_by::l2 : served_by::local_l3;
      cost = level == 1 ? m_.latency.l1_hit : level == 2 ? m_.latency.l2_hit : m_.latency.l3_hit;
    } else {
      int nearest = -1;
      for (int i = 0; i < static_cast<int>(caches_.size()); ++i) {
        if (caches_[i].level != 3 || !holds(caches_[i], block)) continue;
        if (nearest < 0 || distance(node, caches_[i].node) < distance(node, caches_[nearest].node))
          nearest = i;
      }
      if (nearest >= 0) {
        where = served_by::remote_l3;
        cost = m_.remote_l3_cycles(distance(node, caches_[nearest].node));
      } else {
        const int home = homes_.try_emplace(block * line / page, node).first->second;
        where = home == node ? served_by::local_dram : served_by::remote_dram;
        cost = m_.dram_cycles(distance(node, home));
      }
    }
    access_counts counts;
    for (std::size_t i = 0; i < hit; ++i) {
      const std::optional<std::uint64_t> evicted = put(caches_[chain[i]], block);
      if (!evicted || caches_[chain[i]].dirty.erase(*evicted) == 0) continue;
      // A dirty block goes to the next outer level of the chain holding it,
      // else back to DRAM at its page's home.
      std::size_t outer = i + 1;
      while (outer < chain.size() && !holds(caches_[chain[outer]], *evicted)) ++outer;
      if (outer < chain.size()) {
        caches_[chain[outer]].dirty.insert(*evicted);
      } else {
        ++counts.writebacks;
        ++writebacks_by_node_[static_cast<std::size_t>(homes_.at(*evicted * line / page))];
      }
    }
    if (kind == access_kind::write) {
      if (!chain.empty()) caches_[chain.front()].dirty.insert(block);
      // Every copy outside the chain goes; a core's private caches are one
      // holder, every other cache is one; the write waits for the farthest.
      std::set<std::pair<int, int>> holders;
      cycles farthest = 0;
      for (int i = 0; i < static_cast<int>(caches_.size()); ++i) {
        cache& c = caches_[i];
        if (std::find(chain.begin(), chain.end(), i) != chain.end() || !holds(c, block)) continue;
        drop(c, block);
        c.dirty.erase(block);
        holders.insert(c.level < 3 && c.cores.size() == 1 ? std::pair{0, c.cores.front()}
                                                           : std::pair{1, i});
        farthest = std::max(farthest, m_.remote_l3_cycles(distance(node, c.node)));
      }
      counts.invalidations = holders.size();
      cost = std::max(cost, farthest);
    }
    counts.served[static_cast<std::size_t>(where)] = 1;
    counts.total_cycles = cost;
    return counts;
  }

  const std::vector<std::uint64_t>& writebacks_by_node() const { return writebacks_by_node_; }

 private:
  struct cache {
    int level;
    int node;
    std::vector<int> cores;
    std::vector<std::vector<std::uint64_t>> sets;  // most recent first
    std::uint64_t ways;
    std::set<std::uint64_t> dirty;
  };

  int distance(int a, int b) const { return m_.topo.numa_distance[a][b]; }
  static std::vector<std::uint64_t>& set_of(cache& c, std::uint64_t block) {
    return c.sets[block % c.sets.size()];
  }
  static bool holds(cache& c, std::uint64_t block) {
    auto& set = set_of(c, block);
    return std::find(set.begin(), set.end(), block) != set.end();
  }
  static bool take(cache& c, std::uint64_t block) {
    auto& set = set_of(c, block);
    const auto it = std::find(set.begin(), set.end(), block);
    if (it == set.end()) return false;
    set.erase(it);
    set.insert(set.begin(), block);
    return true;
  }
  // Returns the block it evicted, if any.
  static std::optional<std::uint64_t> put(cache& c, std::uint64_t block) {
    auto& set = set_of(c, block);
    set.insert(set.begin(), block);
    if (set.size() <= c.ways) return std::nullopt;
    const std::uint64_t evicted = set.back();
    set.pop_back();
    return evicted;
  }
  static void drop(cache& c, std::uint64_t block) {
    auto& set = set_of(c, block);
    set.erase(std::remove(set.begin(), set.end(), block), set.end());
  }

  const machine_model& m_;
  std::vector<cache> caches_;
  std::map<std::uint64_t, int> homes_;
  std::vector<std::uint64_t> writebacks_by_node_ =
      std::vector<std::uint64_t>(static_cast<std::size_t>(m_.topo.num_numa_nodes), 0);
};

void expect_same_as_reference(const std::string& topology_text, std::uint64_t lines_touched,
                              int accesses) {
  SCOPED_TRACE(topology_text);
  const machine_model m = test_machine(topology_text);
  memory_model mm(m);
  reference_model ref(m);
  std::vector<std::uint64_t> written_back(static_cast<std::size_t>(m.topo.num_numa_nodes), 0);
  access_counts total;
  // A fixed linear congruential sequence (Knuth's MMIX constants): the same
  // stream on every run and platform.
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int i = 0; i < accesses; ++i) {
    const int core = static_cast<int>(next() % static_cast<std::uint64_t>(m.topo.num_cores()));
    const std::uint64_t block = next() % lines_touched;
    const auto kind = next() % 4 == 0 ? access_kind::write : access_kind::read;
    const access_counts expected = ref.access(core, block, kind);
    ASSERT_EQ(mm.access(core, block * line, 8, kind), expected)
        << "access " << i << ": core " << core << ", line " << block;
    const auto& nodes = mm.last_writeback_blocks_by_node();
    for (std::size_t node = 0; node < nodes.size(); ++node) written_back[node] += nodes[node];
    total += expected;
  }
  EXPECT_EQ(written_back, ref.writebacks_by_node());
  // The streams exercise every rule: write-backs and invalidations happen.
  EXPECT_GT(total.writebacks, 0u);
  EXPECT_GT(total.invalidations, 0u);
}

TEST(MemoryModel, AgreesWithABruteForceReference) {
  // Tiny caches and few lines: constant eviction, sharing and invalidation.
  expect_same_as_reference("2x2:L1=256,L1assoc=2,L2=512,L2assoc=4,L3=1K,L3assoc=4,dist=10/20",
                           96, 20000);
  // Four sockets in a ring: remote L3 choice by distance; more lines than
  // the directory's first table holds, so it grows.
  expect_same_as_reference("4x2:L1=1K,L2=4K,L3=16K,dist=10/20/30", 4096, 60000);
}

}  // namespace
}  // namespace locus::detail::sim
