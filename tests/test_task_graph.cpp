// The task-graph library (Nabbit, NabbitC: include/locus/task_graph.hpp)
// and the nabbitc policy's colors (src/policy/nabbitc).
//
// Random DAGs with random keys, fan-in, colors (invalid ones included) and
// exceptions, built on demand from a sink and statically, under every
// registered policy on 1 to 8 real workers and under the simulator; every
// node must run exactly once (or not at all, past a failed node), after all
// of its predecessors, and never after run() has returned. Nothing here
// waits on time: the checks are what the protocol guarantees.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "locus/detail/deque.hpp"
#include "locus/locus.hpp"
#include "fiber/sanitizers.hpp"  // LOCUS_ASAN, LOCUS_TSAN
#include "policy/nabbitc/color_sets.hpp"
#include "common/graph_colors.hpp"  // bench::block_color, bench::g_colors

namespace {

// A random DAG: node i's predecessors are among nodes 0..i-1; keys are
// random 64-bit numbers; colors from -1 (no color) to colors + 1 (two that
// no worker has).
struct dag {
  std::vector<std::uint64_t> keys;
  std::vector<std::vector<int>> preds;
  std::vector<int> colors;
  std::unordered_map<std::uint64_t, int> index;
  int throws_at = -1;  // the node whose compute throws, or -1

  dag(std::uint64_t seed, int n, int max_fan_in, int num_colors, bool with_exception) {
    std::mt19937_64 rng(seed);
    while (static_cast<int>(keys.size()) < n) {
      const std::uint64_t k = rng();
      if (index.emplace(k, static_cast<int>(keys.size())).second) keys.push_back(k);
    }
    preds.resize(static_cast<std::size_t>(n));
    for (int i = 1; i < n; ++i) {
      const int fan = static_cast<int>(rng() % static_cast<std::uint64_t>(max_fan_in + 1));
      for (int f = 0; f < fan; ++f) preds[static_cast<std::size_t>(i)].push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(i)));
    }
    // The last node needs most of the others, so that the on-demand run
    // explores a large part of the graph.
    for (int i = std::max(0, n - 1 - 3 * max_fan_in); i < n - 1; ++i) preds.back().push_back(i);
    for (int i = 0; i < n; ++i) colors.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(num_colors + 3)) - 1);
    if (with_exception) throws_at = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
  }
  int size() const { return static_cast<int>(keys.size()); }

  // Nodes the sink needs (itself included).
  std::vector<bool> ancestors_of(int sink) const {
    std::vector<bool> in(keys.size(), false);
    std::vector<int> todo{sink};
    in[static_cast<std::size_t>(sink)] = true;
    while (!todo.empty()) {
      const int u = todo.back();
      todo.pop_back();
      for (int p : preds[static_cast<std::size_t>(u)])
        if (!in[static_cast<std::size_t>(p)]) in[static_cast<std::size_t>(p)] = true, todo.push_back(p);
    }
    return in;
  }
  // Nodes that depend on `bad` (itself included).
  std::vector<bool> descendants_of(int bad) const {
    std::vector<bool> d(keys.size(), false);
    if (bad < 0) return d;
    d[static_cast<std::size_t>(bad)] = true;
    for (int i = bad + 1; i < size(); ++i)
      for (int p : preds[static_cast<std::size_t>(i)])
        if (d[static_cast<std::size_t>(p)]) d[static_cast<std::size_t>(i)] = true;
    return d;
  }
};

// What the nodes record while they run.
struct observed {
  explicit observed(int n) : runs(new std::atomic<int>[static_cast<std::size_t>(n)]), done(new std::atomic<bool>[static_cast<std::size_t>(n)]) {
    for (int i = 0; i < n; ++i) runs[i] = 0, done[i] = false;
  }
  std::unique_ptr<std::atomic<int>[]> runs;
  std::unique_ptr<std::atomic<bool>[]> done;
  std::atomic<int> early{0};     // a node that ran before one of its predecessors finished
  std::atomic<int> late{0};      // a node that ran after run() returned
  std::atomic<int> running{0};   // computes in progress
  std::atomic<bool> returned{false};

  void compute(const dag& g, int i) {
    running.fetch_add(1);
    if (returned.load()) late.fetch_add(1);
    runs[i].fetch_add(1);
    for (int p : g.preds[static_cast<std::size_t>(i)])
      if (!done[p].load(std::memory_order_acquire)) early.fetch_add(1);
    // A little work, so that thieves find frames to take.
    volatile std::uint64_t x = g.keys[static_cast<std::size_t>(i)];
    for (int k = 0; k < 200; ++k) x = x * 6364136223846793005ull + 1;
    locus::compute(2000);  // under the simulator: time, so that thieves get a turn
    if (i == g.throws_at) {
      running.fetch_sub(1);
      throw std::runtime_error("node " + std::to_string(i));
    }
    done[i].store(true, std::memory_order_release);
    running.fetch_sub(1);
  }
};

enum class form { dynamic, fixed };  // on demand from the sink; static

// Runs one DAG in one form and checks everything the protocol promises.
// Returns whether it threw (as it must when the failed node is needed).
bool check_dag(const dag& g, form f, const std::string& where) {
  SCOPED_TRACE(where);
  const int n = g.size();
  const int sink = n - 1;
  observed obs(n);
  auto preds = [&](std::uint64_t key) {
    std::vector<std::uint64_t> ks;
    for (int p : g.preds[static_cast<std::size_t>(g.index.at(key))]) ks.push_back(g.keys[static_cast<std::size_t>(p)]);
    return ks;
  };
  auto compute = [&](std::uint64_t key) { obs.compute(g, g.index.at(key)); };
  auto color = [&](std::uint64_t key) { return g.colors[static_cast<std::size_t>(g.index.at(key))]; };

  std::vector<bool> needed(static_cast<std::size_t>(n), true);
  std::string error;
  if (f == form::dynamic) {
    needed = g.ancestors_of(sink);
    auto graph = locus::make_task_graph<std::uint64_t>(preds, compute, color);
    try {
      graph.run(g.keys[static_cast<std::size_t>(sink)]);
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    obs.returned = true;
    if (error.empty()) {
      EXPECT_TRUE(graph.computed(g.keys[static_cast<std::size_t>(sink)]));
      EXPECT_EQ(graph.size(), static_cast<std::size_t>(std::count(needed.begin(), needed.end(), true)));
    }
  } else {
    auto graph = locus::make_static_task_graph<std::uint64_t>(preds, compute, color);
    for (auto k : g.keys) graph.add(k);
    try {
      graph.run();
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    obs.returned = true;
  }
  EXPECT_EQ(obs.running.load(), 0) << "a node was still running when run() returned";
  EXPECT_EQ(obs.early.load(), 0) << "a node ran before its predecessors";

  const bool must_throw = g.throws_at >= 0 && needed[static_cast<std::size_t>(g.throws_at)];
  const std::vector<bool> blocked = g.descendants_of(must_throw ? g.throws_at : -1);
  if (must_throw) {
    EXPECT_EQ(error, "node " + std::to_string(g.throws_at));
  } else {
    EXPECT_EQ(error, "");
  }
  for (int i = 0; i < n; ++i) {
    const int runs = obs.runs[i].load();
    if (!needed[static_cast<std::size_t>(i)]) {
      EXPECT_EQ(runs, 0) << "node " << i << " is not needed by the sink";
    } else if (blocked[static_cast<std::size_t>(i)] && i != g.throws_at) {
      EXPECT_EQ(runs, 0) << "node " << i << " depends on the failed node";
    } else if (must_throw) {
      EXPECT_LE(runs, 1) << "node " << i;  // the run stops early: some nodes may not run
    } else {
      EXPECT_EQ(runs, 1) << "node " << i;
    }
    if (::testing::Test::HasFailure()) return must_throw;
  }
  // No node starts after run() returned: checked once the pool stops (the
  // caller's runtime), here as far as it is visible now.
  EXPECT_EQ(obs.late.load(), 0);
  return must_throw;
}

int seeds_from(const char* env, int fallback) {
  const char* v = std::getenv(env);
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
  fallback = std::max(1, fallback / 4);  // 10 to 50 times slower: races and memory, not interleavings
#endif
  return v != nullptr ? std::max(1, std::atoi(v)) : fallback;
}

// ---------------------------------------------------------------- the API

struct cell {
  using key_type = std::pair<int, int>;  // (row, column) of a wavefront
  explicit cell(const key_type& k) : key(k) {}
  void init() { initialized = true; }
  std::vector<key_type> predecessors() const {
    std::vector<key_type> p;
    if (key.first > 0) p.push_back({key.first - 1, key.second});
    if (key.second > 0) p.push_back({key.first, key.second - 1});
    return p;
  }
  void compute();
  static int color(const key_type& k) { return k.first % 3; }
  key_type key;
  bool initialized = false;
  long value = 0;
};

struct pair_hash {
  std::size_t operator()(const std::pair<int, int>& p) const noexcept {
    return std::hash<long long>{}((static_cast<long long>(p.first) << 32) ^ p.second);
  }
};

locus::task_graph<cell, pair_hash>* g_wavefront = nullptr;

// Paths from (0, 0): the binomial coefficient, from the predecessors' values.
void cell::compute() {
  ASSERT_TRUE(initialized);
  if (key.first == 0 || key.second == 0) {
    value = 1;
    return;
  }
  value = g_wavefront->find({key.first - 1, key.second})->value + g_wavefront->find({key.first, key.second - 1})->value;
}

locus::runtime_options threaded(const std::string& policy, int workers) {
  locus::runtime_options o;
  o.policy = policy;
  o.workers = workers;
  o.spin_us = 20;
  return o;
}

// The paper's machine under the simulator (8 sockets of 10 cores); seed -1
// is the runtime's default (LOCUS_SEED, else random).
locus::runtime_options simulated(const std::string& policy, int workers, long long seed = -1) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "nabbitc-8x10";
  o.policy = policy;
  o.workers = workers;
  o.seed = seed;
  return o;
}

TEST(TaskGraph, AUserNodeTypeOnDemand) {
  for (const auto& policy : locus::available_policies()) {
    locus::runtime rt(threaded(policy, 3));
    locus::task_graph<cell, pair_hash> g;
    g_wavefront = &g;
    g.run({20, 20});
    EXPECT_EQ(g.find({20, 20})->value, 137846528820L) << policy;  // C(40, 20)
    EXPECT_EQ(g.size(), 21u * 21u) << policy;
    EXPECT_EQ(g.find({21, 0}), nullptr);
    // A later run reuses what is computed and creates only what is new.
    g.run({21, 20});
    EXPECT_EQ(g.size(), 22u * 21u);
    EXPECT_EQ(g.find({21, 20})->value, 137846528820L * 41 / 21) << policy;  // C(41, 20)
    g_wavefront = nullptr;
  }
}

TEST(TaskGraph, FromAThreadOutsideThePool) {
  locus::runtime rt(threaded("ws", 2));
  std::atomic<int> runs{0};
  auto g = locus::make_task_graph<int>([](int k) { return k > 0 ? std::vector<int>{k - 1} : std::vector<int>{}; },
                                       [&](int) { runs.fetch_add(1); });
  g.run(100000);  // a chain on demand: the loops keep the stack flat
  EXPECT_EQ(runs.load(), 100001);
}

TEST(TaskGraph, StaticForm) {
  locus::runtime rt(threaded("nabbitc", 2));
  std::vector<std::atomic<int>> order(64);
  std::atomic<int> clock{0};
  auto g = locus::make_static_task_graph<int>(
      [](int k) { return k >= 8 ? std::vector<int>{k - 8, (k - 8) ^ 1} : std::vector<int>{}; },
      [&](int k) { order[static_cast<std::size_t>(k)] = clock.fetch_add(1); }, [](int k) { return k % 8; });
  for (int k = 0; k < 64; ++k) g.add(k);
  g.run();
  for (int k = 8; k < 64; ++k) {
    EXPECT_GT(order[static_cast<std::size_t>(k)].load(), order[static_cast<std::size_t>(k - 8)].load());
    EXPECT_GT(order[static_cast<std::size_t>(k)].load(), order[static_cast<std::size_t>((k - 8) ^ 1)].load());
  }
  EXPECT_THROW(g.run(), std::logic_error);
  EXPECT_THROW(g.add(100), std::logic_error);
}

TEST(TaskGraph, BadGraphsAreReported) {
  locus::runtime rt(threaded("nabbitc", 2));
  {  // a cycle the sink needs: the nodes outside it run, then run() says so
    std::atomic<int> runs{0};
    auto g = locus::make_task_graph<int>(
        [](int k) { return k == 0 ? std::vector<int>{1, 3} : k == 1 ? std::vector<int>{2} : k == 2 ? std::vector<int>{1} : std::vector<int>{}; },
        [&](int) { runs.fetch_add(1); });
    try {
      g.run(0);
      ADD_FAILURE() << "a cycle was not reported";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("3 nodes could not run"), std::string::npos) << e.what();
    }
    EXPECT_EQ(runs.load(), 1);  // node 3
    EXPECT_THROW(g.run(3), std::logic_error);  // a failed graph runs no more
  }
  {
    auto g = locus::make_static_task_graph<int>([](int k) { return std::vector<int>{k + 1}; }, [](int) {});
    g.add(0);
    EXPECT_THROW(g.add(0), std::invalid_argument);
    try {
      g.run();
      ADD_FAILURE() << "a missing predecessor was not reported";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("never added"), std::string::npos) << e.what();
    }
  }
}

// ------------------------------------------------- random DAGs, every policy

class RandomDags : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RandomDags, EveryNodeOnceAfterItsPredecessors) {
  const auto& [policy, workers] = GetParam();
  int threw = 0;
  {
    locus::runtime rt(threaded(policy, workers));
    const int seeds = seeds_from("LOCUS_GRAPH_SEEDS", 40);
    for (int s = 0; s < seeds; ++s) {
      const dag g(static_cast<std::uint64_t>(s) * 7877 + static_cast<std::uint64_t>(workers), 50 + 40 * (s % 6),
                  1 + s % 6, workers, s % 3 == 0);
      for (form f : {form::dynamic, form::fixed}) {
        threw += check_dag(g, f, policy + " seed " + std::to_string(s) + (f == form::dynamic ? " dynamic" : " static"));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(threw, 0) << "no seed exercised an exception";
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndWorkers, RandomDags,
                         ::testing::Combine(::testing::ValuesIn(locus::available_policies()),
                                            ::testing::Values(1, 2, 3, 4, 8)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// The same under the simulator, the seeds taking the policies in turn, 1 to
// 12 workers on the Nehalem preset and, for nabbitc, 20 to 80 on the
// paper's 8 x 10 machine (colors past 30: the side array of color sets).
TEST(SimulatedRandomDags, EveryNodeOnceAfterItsPredecessors) {
  const int seeds = seeds_from("LOCUS_SIM_GRAPH_SEEDS", 200);
  const auto policies = locus::available_policies();
  int threw = 0;
  for (int s = 0; s < seeds; ++s) {
    locus::runtime_options o;
    o.engine = "sim";
    o.seed = s;
    if (s % 4 == 3) {
      o.policy = "nabbitc";
      o.machine = "nabbitc-8x10";
      o.workers = 20 * (1 + (s / 4) % 4);
    } else {
      o.policy = policies[static_cast<std::size_t>(s) % policies.size()];
      o.machine = "tbb-numa-nehalem-2x4";
      o.workers = 1 + s % 12;
    }
    locus::runtime rt(o);
    const dag g(static_cast<std::uint64_t>(s) * 131 + 5, 60 + 20 * (s % 5), 1 + s % 5, o.workers, s % 3 == 0);
    threw += check_dag(g, s % 2 == 0 ? form::dynamic : form::fixed,
                       o.policy + " " + std::to_string(o.workers) + " workers, seed " + std::to_string(s));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(threw, 0) << "no seed exercised an exception";
}

// Notifications under stress: wide layers where every node needs many
// nodes of the layer before, so adds race with completions all the time.
TEST(TaskGraphStress, NoNotificationIsLost) {
  for (const char* policy : {"ws", "nabbitc"}) {
    locus::runtime rt(threaded(policy, 4));
    const int rounds = seeds_from("LOCUS_GRAPH_STRESS_ROUNDS", 30);
    for (int r = 0; r < rounds; ++r) {
      constexpr int width = 24, depth = 12;
      std::vector<std::atomic<int>> runs(width * depth + 1);
      auto g = locus::make_task_graph<int>(
          [](int k) {
            std::vector<int> p;
            if (k == width * depth) {  // the sink: the whole last layer
              for (int i = 0; i < width; ++i) p.push_back((depth - 1) * width + i);
            } else if (k >= width) {
              const int layer = k / width;
              for (int i = 0; i < width; i += 2) p.push_back((layer - 1) * width + (k + i) % width);
            }
            return p;
          },
          [&](int k) { runs[static_cast<std::size_t>(k)].fetch_add(1); }, [](int k) { return k % 4; });
      g.run(width * depth);
      for (auto& n : runs) ASSERT_EQ(n.load(), 1) << policy << " round " << r;
    }
  }
}

}  // namespace

// The serial elision (LOCUS_SERIAL_ELISION, tests/task_graph_serial.cpp):
// the same library with plain calls; the order is then fixed, depth first.
std::vector<int> serial_elision_order();

namespace {

TEST(TaskGraph, SerialElision) {
  const std::vector<int> order = serial_elision_order();
  // Node k needs k - 1 and k - 2 (k >= 2); on demand, depth first from 10:
  // 1 runs first, 2 waits for 0 (its second predecessor), then the chain.
  const std::vector<int> expected = {1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(order, expected);
}

// ------------------------------------------------------- colors and steals

using locus::detail::color_sets;

TEST(ColorSets, TagsHoldExactlyTheirColors) {
  for (int colors : {4, 30, 80, 200}) {
    color_sets sets(colors);
    std::mt19937 rng(static_cast<unsigned>(colors));
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<int> set;
      const int n = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) set.push_back(static_cast<int>(rng() % static_cast<unsigned>(colors + 2)) - 1);
      const std::uint32_t tag = sets.make(set.data(), set.size());
      for (int c = -1; c < colors + 2; ++c) {
        const bool member = c >= 0 && c < colors && std::find(set.begin(), set.end(), c) != set.end();
        EXPECT_EQ(sets.has(tag, c), member) << colors << " colors, color " << c;
      }
      sets.release(tag);
    }
    EXPECT_EQ(sets.slots_in_use(), 0u);
    EXPECT_EQ(sets.has(0, 0), false);                    // a frame without colors
    EXPECT_TRUE(sets.has(color_sets::single(3), 3));     // spawn_nodes' one color
    EXPECT_FALSE(sets.has(color_sets::single(3), 2));
  }
}

// A colored attempt (steal_if with the thief's color) takes the oldest frame
// only if its set holds that color, whatever the other frames hold; sets of
// 80 colors live in the side array.
TEST(ColorSets, ColoredStealsTakeOnlyFramesOfTheThiefsColor) {
  color_sets sets(80);
  locus::detail::work_deque d;
  std::vector<locus::detail::frame> frames(6);
  const std::vector<std::vector<int>> colors = {{5}, {1, 2}, {40, 79}, {}, {79, 3, 64}, {7}};
  std::vector<std::uint32_t> tags;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    tags.push_back(sets.make(colors[i].data(), colors[i].size()));
    d.push_tagged(&frames[i], tags.back());
  }
  auto colored = [&](int c) { return d.steal_if([&](std::uint32_t tag) { return sets.has(tag, c); }); };
  EXPECT_EQ(colored(1), nullptr);           // the oldest holds only 5
  EXPECT_EQ(colored(5), &frames[0]);
  EXPECT_EQ(colored(5), nullptr);           // now {1, 2} is the oldest
  EXPECT_EQ(colored(2), &frames[1]);
  EXPECT_EQ(colored(41), nullptr);
  EXPECT_EQ(colored(79), &frames[2]);
  EXPECT_EQ(colored(0), nullptr);           // no colors: never taken by a colored attempt
  EXPECT_EQ(d.steal(), &frames[3]);         // a random attempt takes it
  EXPECT_EQ(colored(64), &frames[4]);
  EXPECT_EQ(d.pop(), &frames[5]);
  for (auto t : tags) sets.release(t);
  EXPECT_EQ(sets.slots_in_use(), 0u);
}

// The steal rule, counted per worker under the simulator: with
// colored_attempts = 0 every steal after the first is random, and the first
// must be colored, so each worker that steals has exactly one colored steal;
// with colored_attempts large, no steal is random.
TEST(NabbitcPolicy, FirstStealIsColoredThenKColoredAttemptsPerRandomOne) {
  for (const char* k : {"0", "1000000"}) {
    std::uint64_t colored = 0;
    for (int s = 0; s < 6; ++s) {
      locus::runtime_options o = simulated("nabbitc", 20, s);
      o.policy_options = {{"colored_attempts", k}, {"first_steal_patience", "1000000000"}};
      locus::runtime rt(o);
      // A heat-like block graph colored by the worker that owns the row.
      constexpr int rows = 20, steps = 6;
      auto g = locus::make_task_graph<int>(
          [](int key) {
            const int t = key / rows, r = key % rows;
            std::vector<int> p;
            if (t > 0)
              for (int dr = -1; dr <= 1; ++dr)
                if (r + dr >= 0 && r + dr < rows) p.push_back((t - 1) * rows + r + dr);
            if (key == steps * rows)  // the sink: the last step
              for (int i = 0; i < rows; ++i) p.push_back((steps - 1) * rows + i);
            return p;
          },
          [](int) { locus::compute(20000); },  // simulated cycles
          [](int key) { return key % rows; });
      locus::reset_stats();
      g.run(steps * rows);
      if (std::getenv("SHOW")) std::cerr << locus::get_stats().summary();
      for (const auto& w : locus::get_stats().workers) {
        const auto c = w.counter("colored_steals"), r = w.counter("random_steals");
        // Handed nodes taken from a place-mate's list count as steals too.
        EXPECT_EQ(c + r + w.counter("place_mate_takes") + w.counter("colorless_steals"), w.steals);
        EXPECT_EQ(w.counter("first_steal_giveups"), 0u);
        if (std::string(k) == "0") {
          EXPECT_LE(c, 1u) << "worker " << w.worker;
          if (r > 0) {
            EXPECT_EQ(c, 1u) << "worker " << w.worker << ": a random steal before a colored one";
          }
        } else {
          EXPECT_EQ(r, 0u) << "worker " << w.worker;
        }
        colored += c;
      }
    }
    EXPECT_GT(colored, 0u) << "colored_attempts=" << k << ": no colored steal at all";
  }
}

// The hand-off tests' graph: a heat-like stencil of `rows` rows and
// `steps` steps, node t * rows + r after rows r - 1 to r + 1 of step t - 1,
// and a sink (key rows * steps) after the last step.
constexpr int stencil_rows = 24, stencil_steps = 8;
std::vector<int> stencil_predecessors(int key) {
  constexpr int rows = stencil_rows, steps = stencil_steps;
  std::vector<int> p;
  if (key == rows * steps) {
    for (int r = 0; r < rows; ++r) p.push_back((steps - 1) * rows + r);
  } else if (key >= rows) {
    const int t = key / rows, r = key % rows;
    for (int dr = -1; dr <= 1; ++dr)
      if (r + dr >= 0 && r + dr < rows) p.push_back((t - 1) * rows + r + dr);
  }
  return p;
}

// Hand-offs (nabbitc, ours, option hand_offs=on): a node made ready by a worker of another color is
// handed to its color, not computed by its readier. A heat-like stencil of
// rows of alternating colors on the paper's machine, simulated: with
// colored attempts never followed by a random one (colored_attempts and
// first_steal_patience past anything the run reaches), a handed node can
// only be taken by a worker of its color or a place-mate of one, and
// colored steals take only frames holding the thief's color, so every
// node, sources included (the on-demand form hands them off too), must run
// at the place of its color, and, where each worker is its own place (4
// workers spread over 4 sockets), on the worker of its color, whatever the
// timing. Colors that no worker has stay with whoever readies them. Under
// ws the same graph hands nothing off.
TEST(NabbitcHandOff, ASuccessorOfAnotherColorRunsOnlyOnAWorkerOfItsColor) {
  for (int s = 0; s < 8; ++s) {
    const bool by_place = s % 4 == 3;
    const int workers = s < 4 && !by_place ? 4 : 20;  // by place: two places
    const bool spread = workers == 4 && s % 2 == 0;     // one worker per place
    locus::runtime_options o = simulated("nabbitc", workers, s);
    o.pack = spread ? 0 : 1;
    // handed_wait=unbounded: no handed node is taken by another color,
    // however long it waits (the default bounds that wait, see below).
    o.policy_options = {{"colored_attempts", "1000000"}, {"first_steal_patience", "1000000000"}, {"hand_offs", "on"},
                        {"handed_wait", "unbounded"}};
    if (by_place) o.policy_options.push_back({"colors", "place"});
    locus::runtime rt(o);
    const int colors = locus::num_colors();
    std::vector<int> place_of_worker;
    for (const auto& w : locus::get_stats().workers) place_of_worker.push_back(w.place);
    if (spread) {
      ASSERT_EQ(locus::num_places(), workers) << "the test wants one worker per place here";
    }
    constexpr int rows = stencil_rows, steps = stencil_steps;
    const int sink = rows * steps;
    // Row r's color: r % colors, so that neighbours differ; with s odd, one
    // row in six has a color no worker has.
    auto color = [&](int key) {
      const int r = key == sink ? 0 : key % rows;
      return s % 2 == 1 && r % 6 == 5 ? colors + 3 : r % colors;
    };
    std::vector<int> ran_on(static_cast<std::size_t>(sink + 1), -1);
    std::vector<int> ran_at(static_cast<std::size_t>(sink + 1), -1);
    auto g = locus::make_task_graph<int>(
        &stencil_predecessors,
        [&](int key) {
          EXPECT_EQ(ran_on[static_cast<std::size_t>(key)], -1) << "node " << key << " ran twice";
          ran_on[static_cast<std::size_t>(key)] = locus::worker_id();  // each node its own cell
          ran_at[static_cast<std::size_t>(key)] = locus::current_place();
          locus::compute(20000);  // simulated cycles
        },
        color);
    g.measure_locality();
    locus::reset_stats();
    g.run(sink);
    SCOPED_TRACE(std::to_string(workers) + " workers, seed " + std::to_string(s) +
                 (by_place ? ", colors by place" : ""));
    int checked = 0;
    for (int key = 0; key < sink; ++key) {
      const int c = color(key);
      ASSERT_NE(ran_on[static_cast<std::size_t>(key)], -1) << "node " << key << " did not run";
      if (c >= colors) continue;
      ++checked;
      const int place = by_place ? c : place_of_worker[static_cast<std::size_t>(c)];
      EXPECT_EQ(ran_at[static_cast<std::size_t>(key)], place) << "node " << key;
      if (spread) {
        EXPECT_EQ(ran_on[static_cast<std::size_t>(key)], c) << "node " << key;
      }
    }
    EXPECT_GT(checked, sink / 2);
    const auto total = locus::get_stats().total();
    EXPECT_EQ(total.counter("random_steals"), 0u);
    EXPECT_GT(total.counter("hand_offs"), 0u);
    EXPECT_EQ(total.counter("hand_offs"), total.counter("hand_off_takes") + total.counter("place_mate_takes"));
    const locus::graph_locality l = g.locality();
    EXPECT_EQ(l.nodes, static_cast<std::uint64_t>(sink + 1));
    EXPECT_EQ(l.handed, total.counter("hand_offs"));
    EXPECT_EQ(l.handed_remote, 0u);
    // No random attempt; but with colors no worker has, a first-steal
    // attempt takes the frames holding only those (colorless steals), and
    // the breakdown counts what follows as after a steal that was not colored.
    if (s % 2 == 0) {
      EXPECT_EQ(l.after_random, 0u);
      EXPECT_EQ(total.counter("colorless_steals"), 0u);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// The paper's algorithm is nabbitc's default (REPRODUCTION.md, rule 1):
// without options nothing of ours is on. No hand-off (a ready node stays
// with its readier, figure 3), no colored miss wakes a sleeper, and a
// node's compute() runs with the tag the library's spawns left, not its
// own color; each of the three is an option we added.
TEST(NabbitcPolicy, TheDefaultIsThePapersAlgorithm) {
  locus::runtime_options o = simulated("nabbitc", 20, 5);
  o.pack = 1;
  locus::runtime rt(o);
  locus::detail::task_colors* colors = locus::detail::running_colors();
  ASSERT_NE(colors, nullptr);
  EXPECT_FALSE(colors->hands_off());
  EXPECT_FALSE(colors->tags_compute());
  constexpr int rows = stencil_rows, steps = stencil_steps;
  auto g = locus::make_task_graph<int>(
      &stencil_predecessors, [](int) { locus::compute(20000); }, [](int key) { return key % 20; });
  g.measure_locality();
  locus::reset_stats();
  g.run(rows * steps);
  const auto total = locus::get_stats().total();
  EXPECT_EQ(total.counter("hand_offs"), 0u);
  EXPECT_EQ(total.counter("color_wakes"), 0u);
  EXPECT_GT(total.counter("colored_misses"), 0u);  // misses there were: none woke anyone
  EXPECT_EQ(g.locality().handed, 0u);
}

// Each of ours on request: hand_offs=on hands nodes off, wake_colors=on
// wakes on colored misses, tag_compute=on is what the library sees.
TEST(NabbitcPolicy, OursAreOptions) {
  locus::runtime_options o = simulated("nabbitc", 20, 5);
  o.pack = 1;
  o.policy_options = {{"hand_offs", "on"}, {"wake_colors", "on"}, {"tag_compute", "on"}};
  locus::runtime rt(o);
  locus::detail::task_colors* colors = locus::detail::running_colors();
  ASSERT_NE(colors, nullptr);
  EXPECT_TRUE(colors->hands_off());
  EXPECT_TRUE(colors->tags_compute());
  constexpr int rows = stencil_rows, steps = stencil_steps;
  auto g = locus::make_task_graph<int>(
      &stencil_predecessors, [](int) { locus::compute(20000); }, [](int key) { return key % 20; });
  locus::reset_stats();
  g.run(rows * steps);
  EXPECT_GT(locus::get_stats().total().counter("hand_offs"), 0u);
}

// A graph run inside a locus::arena keeps every node there, the handed
// ones included: a hand-off's job carries the readier's whole task context
// (its arena, its place hint), not only the color tag. With hand-offs on,
// simulated on the paper's machine, and threaded.
TEST(NabbitcHandOff, HandedNodesStayInTheGraphsArena) {
  for (int s = 0; s < 4; ++s) {
    locus::runtime_options o = s < 3 ? simulated("nabbitc", 20, s) : threaded("nabbitc", 4);
    o.pack = 1;
    o.policy_options = {{"hand_offs", "on"}};
    locus::runtime rt(o);
    locus::arena a;
    constexpr int rows = stencil_rows, steps = stencil_steps;
    const int sink = rows * steps;
    std::vector<int> ran_in(static_cast<std::size_t>(sink + 1), -1);
    auto g = locus::make_task_graph<int>(
        &stencil_predecessors,
        [&](int key) {
          ran_in[static_cast<std::size_t>(key)] = locus::this_arena::id();  // each node its own cell
          locus::compute(20000);
        },
        [](int key) { return key % locus::num_colors(); });
    g.measure_locality();
    a.execute([&] { g.run(sink); });
    SCOPED_TRACE("seed " + std::to_string(s));
    EXPECT_GT(g.locality().handed, 0u);
    for (int key = 0; key <= sink; ++key) EXPECT_EQ(ran_in[static_cast<std::size_t>(key)], a.id()) << "node " << key;
    if (::testing::Test::HasFailure()) return;
  }
}

// Hand-offs keep the greedy property (Theorem 1) with their bounded wait:
// a skewed coloring, every node of one worker's color, and that worker
// descheduled (simulated: its first node computes for 2 * 10^8 cycles,
// during which it takes nothing), 4 workers one per socket so that it has
// no place-mate, and no random attempts (colored_attempts past anything
// the run reaches). The color is that of a worker other than the one that
// starts the run (the sink's color is asked first, on that worker), so
// the nodes it readies are handed off. By default the others take the
// waiting handed nodes (stale_takes) and compute most of the graph while
// the owner is away; with handed_wait=unbounded every node waits for it.
TEST(NabbitcHandOff, ASkewedColoringDoesNotWaitForADescheduledOwner) {
  for (const bool bounded : {true, false}) {
    for (int s = 0; s < 3; ++s) {
      locus::runtime_options o = simulated("nabbitc", 4, s);
      o.pack = 0;
      o.policy_options = {{"colored_attempts", "1000000"}, {"hand_offs", "on"}};
      if (!bounded) o.policy_options.push_back({"handed_wait", "unbounded"});
      locus::runtime rt(o);
      ASSERT_EQ(locus::num_places(), 4) << "the test wants one worker per place";
      constexpr int rows = stencil_rows, steps = stencil_steps;
      const int sink = rows * steps;
      std::atomic<int> owner{-1};
      std::atomic<bool> owner_away{false};
      std::vector<int> ran_on(static_cast<std::size_t>(sink + 1), -1);
      auto g = locus::make_task_graph<int>(
          &stencil_predecessors,
          [&](int key) {
            const int me = locus::worker_id();
            ran_on[static_cast<std::size_t>(key)] = me;  // each node its own cell
            if (me == owner.load() && !owner_away.exchange(true))
              locus::compute(200000000);  // descheduled for a while
            else
              locus::compute(20000);
          },
          [&](int) {
            int o = owner.load();
            if (o < 0) {
              const int starter = locus::worker_id();  // the sink's color: asked first, by the run's worker
              owner.compare_exchange_strong(o, (starter + 1) % 4);
              o = owner.load();
            }
            return o;
          });
      g.measure_locality();
      locus::reset_stats();
      g.run(sink);
      SCOPED_TRACE(std::string(bounded ? "default handed_wait" : "handed_wait=unbounded") + ", seed " +
                   std::to_string(s));
      int by_others = 0;
      for (int key = 0; key <= sink; ++key) {
        ASSERT_NE(ran_on[static_cast<std::size_t>(key)], -1) << "node " << key << " did not run";
        by_others += ran_on[static_cast<std::size_t>(key)] != owner.load() ? 1 : 0;
      }
      const auto total = locus::get_stats().total();
      EXPECT_EQ(total.counter("random_steals"), 0u);
      EXPECT_GT(total.counter("hand_offs"), 0u);
      if (bounded) {
        EXPECT_GT(total.counter("stale_takes"), 0u);
        EXPECT_GT(by_others, sink / 2) << "the others computed " << by_others << " of " << sink + 1 << " nodes";
      } else {
        EXPECT_EQ(total.counter("stale_takes"), 0u);
        EXPECT_EQ(by_others, 0);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// A stencil node's body that checks it runs once, after its predecessors
// (the row above, its neighbors included) each ran once.
void run_once_after_predecessors(std::vector<std::atomic<int>>& runs, int key) {
  constexpr int rows = stencil_rows, steps = stencil_steps;
  if (key >= rows * steps) return;
  for (int dr = -1; dr <= 1; ++dr)
    if (key >= rows && key % rows + dr >= 0 && key % rows + dr < rows) {
      EXPECT_EQ(runs[static_cast<std::size_t>(key - rows + dr)].load(), 1);
    }
  runs[static_cast<std::size_t>(key)].fetch_add(1);
}

// Stale takes race with the owner's takes and with hand-offs: on threads,
// with handed_wait=0 (every look takes), every node still runs once, after
// its predecessors, whatever the timing.
TEST(NabbitcHandOff, StaleTakesRunEveryNodeOnceOnThreads) {
  for (int round = 0; round < 4; ++round) {
    locus::runtime_options o = threaded("nabbitc", 4);
    o.policy_options = {{"hand_offs", "on"}, {"handed_wait", "0"}, {"colored_attempts", "1"}};
    locus::runtime rt(o);
    constexpr int rows = stencil_rows, steps = stencil_steps;
    std::vector<std::atomic<int>> runs(rows * steps);
    auto g = locus::make_task_graph<int>(
        &stencil_predecessors,
        [&](int key) { run_once_after_predecessors(runs, key); },
        [](int key) { return (key / 3) % 4; });
    g.run(rows * steps);
    for (auto& r : runs) EXPECT_EQ(r.load(), 1);
    if (::testing::Test::HasFailure()) return;
  }
}

// With hand_offs=off (figure 3 alone) nothing is handed off: the readier,
// a thief after a colored steal or one after a random steal computes every
// node (the breakdown's other categories add up to the nodes).
TEST(NabbitcHandOff, OffLeavesReadyNodesWithTheirReadier) {
  locus::runtime_options o = simulated("nabbitc", 20);
  o.pack = 1;
  o.policy_options = {{"hand_offs", "off"}};
  locus::runtime rt(o);
  constexpr int rows = stencil_rows, steps = stencil_steps;
  auto g = locus::make_task_graph<int>(
      &stencil_predecessors,
      [](int) { locus::compute(20000); }, [](int key) { return key % 20; });
  g.measure_locality();
  locus::reset_stats();
  g.run(rows * steps);
  const locus::graph_locality l = g.locality();
  EXPECT_EQ(l.nodes, static_cast<std::uint64_t>(rows * steps + 1));
  EXPECT_EQ(l.handed, 0u);
  EXPECT_EQ(locus::get_stats().total().counter("hand_offs"), 0u);
  EXPECT_EQ(l.by_readier + l.after_colored + l.after_random, l.nodes);
}

// The same graph under ws (Nabbit): colors are ignored, nothing is handed
// off, and every node still runs once after its predecessors (the
// breakdown's categories add up to the nodes).
TEST(NabbitcHandOff, NabbitHandsNothingOff) {
  locus::runtime rt(simulated("ws", 20));
  constexpr int rows = stencil_rows, steps = stencil_steps;
  std::vector<std::atomic<int>> runs(rows * steps);
  auto g = locus::make_task_graph<int>(
      &stencil_predecessors,
      [&](int key) {
        run_once_after_predecessors(runs, key);
        locus::compute(20000);
      },
      [](int key) { return key % 20; });
  g.measure_locality();
  g.run(rows * steps);
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  const locus::graph_locality l = g.locality();
  EXPECT_EQ(l.handed, 0u);
  EXPECT_EQ(l.by_readier + l.after_colored + l.after_random, l.nodes);
  EXPECT_EQ(l.after_colored, 0u);
}

// Table III's invalid colors: no worker has the nodes' color, so every
// colored attempt misses. By default (the paper's unbounded first steal)
// no worker gives up: first-steal attempts take the frames that hold no
// worker's color (colorless_steals) and balance the load; with a capped
// patience (ours) random steals may take part too. Either way the graph
// runs, on more than one worker.
TEST(NabbitcPolicy, InvalidColorsFallBackToRandomSteals) {
  for (const bool capped : {false, true}) {
    locus::runtime_options o = simulated("nabbitc", 10, 3);
    if (capped) o.policy_options = {{"first_steal_patience", "auto"}};
    locus::runtime rt(o);
    std::atomic<int> runs{0};
    std::vector<int> ran_on(200, -1);
    auto g = locus::make_static_task_graph<int>(
        [](int k) { return k >= 10 ? std::vector<int>{k - 10, k - 10 + (k % 10 == 9 ? -9 : 1)} : std::vector<int>{}; },
        [&](int k) {
          runs.fetch_add(1);
          ran_on[static_cast<std::size_t>(k)] = locus::worker_id();
          locus::compute(20000);
        },
        [](int) { return 1000; });
    for (int k = 0; k < 200; ++k) g.add(k);
    locus::reset_stats();
    g.run();
    SCOPED_TRACE(capped ? "first_steal_patience=auto" : "default");
    EXPECT_EQ(runs.load(), 200);
    EXPECT_GT(std::set<int>(ran_on.begin(), ran_on.end()).size(), 1u);
    const auto total = locus::get_stats().total();
    EXPECT_EQ(total.counter("colored_steals"), 0u);
    if (capped) {
      EXPECT_GT(total.counter("random_steals") + total.counter("colorless_steals"), 0u);
    } else {
      EXPECT_GT(total.counter("colorless_steals"), 0u);
      EXPECT_EQ(total.counter("first_steal_giveups"), 0u);
    }
  }
}

// The paper's first steal (section III) is unbounded by default: a worker
// whose color no node has never steals (it waits for a colored steal that
// never comes) and never gives up, while the graph still completes on the
// others. 20 workers, nodes colored 0 to 9 only. With a cap (ours) the
// others give up and steal at random.
TEST(NabbitcPolicy, FirstStealIsUnboundedByDefault) {
  for (const bool capped : {false, true}) {
    locus::runtime_options o = simulated("nabbitc", 20, 2);
    o.pack = 1;
    if (capped) o.policy_options = {{"first_steal_patience", "auto"}};
    locus::runtime rt(o);
    constexpr int rows = stencil_rows, steps = stencil_steps;
    auto g = locus::make_task_graph<int>(
        &stencil_predecessors, [](int) { locus::compute(20000); }, [](int key) { return key % 10; });
    locus::reset_stats();
    g.run(rows * steps);
    SCOPED_TRACE(capped ? "first_steal_patience=auto" : "default");
    EXPECT_TRUE(g.computed(rows * steps));
    const auto stats = locus::get_stats();
    std::uint64_t others_steals = 0;
    for (const auto& w : stats.workers)
      if (w.worker >= 10) others_steals += w.steals;
    if (capped) {
      EXPECT_GT(stats.total().counter("first_steal_giveups"), 0u);
      EXPECT_GT(others_steals, 0u);
    } else {
      EXPECT_EQ(stats.total().counter("first_steal_giveups"), 0u);
      EXPECT_EQ(others_steals, 0u);
    }
  }
}

// Liveness of the unbounded first steal on code that is not a task graph:
// a plain parallel loop under nabbitc's defaults pushes frames that hold no
// color, which first-steal attempts take, so the loop runs on several
// workers and completes.
TEST(NabbitcPolicy, PlainForkJoinIsLoadBalancedByDefault) {
  locus::runtime_options o = simulated("nabbitc", 8, 1);
  locus::runtime rt(o);
  std::vector<int> ran_on(256, -1);
  locus::reset_stats();
  locus::parallel_for(0, 256, [&](std::int64_t i) {
    ran_on[static_cast<std::size_t>(i)] = locus::worker_id();
    locus::compute(20000);
  });
  for (int x : ran_on) ASSERT_GE(x, 0);
  EXPECT_GT(std::set<int>(ran_on.begin(), ran_on.end()).size(), 1u);
  const auto total = locus::get_stats().total();
  EXPECT_GT(total.counter("colorless_steals"), 0u);
  EXPECT_EQ(total.counter("first_steal_giveups"), 0u);
}

// The benchmarks' colorings of tables II and III (bench::block_color): on
// the paper's machine, 20 workers packed onto two sockets, a bad color is a
// valid color of the other socket for every block, and an invalid one no
// worker's; good colors follow the static partition of the rows.
TEST(NabbitcPolicy, BenchmarkColoringsOfTablesTwoAndThree) {
  locus::runtime_options o = simulated("nabbitc", 20);
  o.pack = 1;
  locus::runtime rt(o);
  const std::int64_t blocks = 64;
  std::vector<int> good, bad, invalid;
  for (auto [mode, out] : {std::pair{bench::graph_colors::good, &good}, std::pair{bench::graph_colors::bad, &bad},
                           std::pair{bench::graph_colors::invalid, &invalid}}) {
    bench::g_colors = mode;
    for (std::int64_t b = 0; b < blocks; ++b) out->push_back(bench::block_color(b, blocks));
  }
  bench::g_colors = bench::graph_colors::good;
  ASSERT_EQ(locus::num_colors(), 20);
  for (std::int64_t b = 0; b < blocks; ++b) {
    const auto i = static_cast<std::size_t>(b);
    EXPECT_EQ(good[i], b * 20 / blocks);
    EXPECT_GE(bad[i], 0);
    EXPECT_LT(bad[i], 20);
    const int good_place = locus::detail::graph_color_place(good[i]);
    EXPECT_GE(good_place, 0);
    EXPECT_NE(locus::detail::graph_color_place(bad[i]), good_place) << "block " << b;
    EXPECT_EQ(invalid[i], 20);
    EXPECT_LT(locus::detail::graph_color_place(invalid[i]), 0);
  }
}

// The simulator charges nabbitc's own operations (the registry entry's
// costs, derived as numa-ws's mailbox is): priced absurdly high in a
// machine file, one hand-off (or one side-slot color set, 40 colors) puts
// at least that many cycles on the simulated time of a run that takes well
// under it otherwise. A machine file naming an operation no policy
// declares is refused, so without the declarations the runtime does not
// start.
TEST(NabbitcPolicy, TheSimulatorChargesItsOwnOperations) {
  constexpr double expensive = 2e7;  // cycles: 8.8 ms at the preset's 2.27 GHz
  for (const std::string op : {"nabbitc_handoff", "nabbitc_color_set"}) {
    const std::string path = ::testing::TempDir() + "nabbitc_costs_" + op + ".machine";
    {
      std::ofstream f(path);
      f << "base = nabbitc-8x10\n" << op << "_local = 20000000\n" << op << "_remote = 20000000\n";
    }
    const bool sets = op == "nabbitc_color_set";
    for (const bool priced : {false, true}) {
      locus::runtime_options o = simulated("nabbitc", sets ? 40 : 20, 1);
      if (priced) o.machine = path;
      o.pack = 1;
      o.policy_options = {{"hand_offs", sets ? "off" : "on"}};
      locus::runtime rt(o);
      constexpr int rows = stencil_rows, steps = stencil_steps;
      const int colors = sets ? 40 : 20;
      auto g = locus::make_task_graph<int>(
          &stencil_predecessors, [](int) { locus::compute(20000); },
          [colors](int key) { return key == rows * steps ? 0 : (key % rows) * colors / rows; });
      locus::reset_stats();
      g.run(rows * steps);
      const auto stats = locus::get_stats();
      const double limit = expensive / 2.27e9;
      SCOPED_TRACE(op + (priced ? " priced at 2e7 cycles" : " derived"));
      if (!sets) {
        EXPECT_GT(stats.total().counter("hand_offs"), 0u);
      }
      if (priced) {
        EXPECT_GT(stats.elapsed_s, limit);
      } else {
        EXPECT_LT(stats.elapsed_s, limit);
      }
    }
  }
}

TEST(NabbitcPolicy, OptionsAreChecked) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"colored_attempts", "-1"}, {"colored_attempts", "x"}, {"first_steal_patience", "soon"}, {"colors", "core"},
           {"hand_offs", "maybe"}, {"wake_colors", "1"}, {"tag_compute", "yes"}, {"handed_wait", "never"}}) {
    locus::runtime_options o = threaded("nabbitc", 1);
    o.policy_options = {{name, value}};
    try {
      locus::runtime rt(o);
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const locus::config_error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

// The remote-access measure of section V-B against a count made by hand
// from where each node ran (recorded by the node), on random DAGs with
// valid, missing and out-of-range colors, under nabbitc and under ws
// (Nabbit), simulated on the paper's machine with two and four places.
// On threads the same, with four workers on a virtual 2 x 2 machine.
TEST(TaskGraphLocality, TheMeasureCountsNodesAndPredecessorsOfOtherPlaces) {
  for (int s = 0; s < 12; ++s) {
    locus::runtime_options o;
    o.seed = s;
    o.policy = s % 2 == 0 ? "nabbitc" : "ws";
    if (s < 8) {
      o.engine = "sim";
      o.machine = "nabbitc-8x10";
      o.workers = s < 4 ? 20 : 40;
    } else {
      o.workers = 4;
      o.topology = "2x2";
      o.places = "numa";
      o.pin = 0;
    }
    locus::runtime rt(o);
    std::vector<int> place_of_worker;
    for (const auto& w : locus::get_stats().workers) place_of_worker.push_back(w.place);
    ASSERT_EQ(static_cast<int>(place_of_worker.size()), o.workers);
    const dag g(static_cast<std::uint64_t>(s) * 7 + 3, 150, 4, o.workers, false);
    std::vector<int> ran_at(static_cast<std::size_t>(g.size()), -1);
    auto graph = locus::make_static_task_graph<std::uint64_t>(
        [&](std::uint64_t k) {
          std::vector<std::uint64_t> keys;
          for (int p : g.preds[static_cast<std::size_t>(g.index.at(k))]) keys.push_back(g.keys[static_cast<std::size_t>(p)]);
          return keys;
        },
        [&](std::uint64_t k) {
          ran_at[static_cast<std::size_t>(g.index.at(k))] = locus::current_place();  // each node its own cell
          locus::compute(2000);
        },
        [&](std::uint64_t k) { return g.colors[static_cast<std::size_t>(g.index.at(k))]; });
    for (std::uint64_t k : g.keys) graph.add(k);
    graph.measure_locality();
    graph.run();
    // Colors are worker ids under both policies (nabbitc's default).
    auto remote = [&](int color, int place) {
      return color < 0 || color >= o.workers || place_of_worker[static_cast<std::size_t>(color)] != place;
    };
    locus::graph_locality expected;
    for (int i = 0; i < g.size(); ++i) {
      const int here = ran_at[static_cast<std::size_t>(i)];
      ASSERT_GE(here, 0) << "node " << i << " did not run";
      ++expected.nodes;
      expected.remote_nodes += remote(g.colors[static_cast<std::size_t>(i)], here) ? 1 : 0;
      for (int p : g.preds[static_cast<std::size_t>(i)]) {
        ++expected.predecessors;
        expected.remote_predecessors += remote(g.colors[static_cast<std::size_t>(p)], here) ? 1 : 0;
      }
    }
    const locus::graph_locality got = graph.locality();
    SCOPED_TRACE(o.policy + ", " + std::to_string(o.workers) + " workers, seed " + std::to_string(s));
    EXPECT_EQ(got.nodes, expected.nodes);
    EXPECT_EQ(got.remote_nodes, expected.remote_nodes);
    EXPECT_EQ(got.predecessors, expected.predecessors);
    EXPECT_EQ(got.remote_predecessors, expected.remote_predecessors);
    // Out-of-range and missing colors are remote wherever they run.
    EXPECT_GT(got.remote_nodes, 0u) << "no remote node: the test shows nothing";
  }
}

// Issue 41, point 6: the paper replays its schedules to count remote
// accesses (section V-B) so that counting does not perturb them. Under the
// simulator, where every figure of the reproduction is measured, counting
// inline must leave the schedule as it is: the same worker for every node,
// the same steals, pushes and simulated time, with the measure on and off.
// A stencil with hand-offs on as well as the paper's algorithm, and Nabbit.
TEST(TaskGraphLocality, CountingLeavesTheSimulatedScheduleUnchanged) {
  struct schedule {
    std::vector<int> worker_of_node;
    std::uint64_t steals = 0, attempts = 0, hand_offs = 0;
    double elapsed_s = 0;
  };
  for (const std::string policy : {"nabbitc", "nabbitc+hand_offs", "ws"}) {
    for (long long seed = 1; seed <= 4; ++seed) {
      auto run = [&](bool measure) {
        const bool hand_offs = policy == "nabbitc+hand_offs";
        locus::runtime_options o = simulated(hand_offs ? "nabbitc" : policy, 20, seed);
        if (hand_offs) o.policy_options = {{"hand_offs", "on"}};
        locus::runtime rt(o);
        schedule s;
        s.worker_of_node.assign(static_cast<std::size_t>(stencil_rows * stencil_steps + 1), -1);
        auto g = locus::make_task_graph<int>(
            &stencil_predecessors,
            [&](int key) {
              s.worker_of_node[static_cast<std::size_t>(key)] = locus::worker_id();
              locus::compute(20000);
            },
            [](int key) { return key == stencil_rows * stencil_steps ? 0 : (key % stencil_rows) * 20 / stencil_rows; });
        if (measure) g.measure_locality();
        locus::reset_stats();
        g.run(stencil_rows * stencil_steps);
        const auto st = locus::get_stats();
        s.steals = st.total().steals;
        s.attempts = st.total().steal_attempts;
        if (policy != "ws") s.hand_offs = st.total().counter("hand_offs");
        s.elapsed_s = st.elapsed_s;
        if (measure) {
          EXPECT_EQ(g.locality().nodes, static_cast<std::uint64_t>(stencil_rows * stencil_steps + 1));
        }
        return s;
      };
      const schedule off = run(false), on = run(true);
      SCOPED_TRACE(policy + ", seed " + std::to_string(seed));
      EXPECT_EQ(on.worker_of_node, off.worker_of_node);
      EXPECT_EQ(on.steals, off.steals);
      EXPECT_EQ(on.attempts, off.attempts);
      EXPECT_EQ(on.hand_offs, off.hand_offs);
      EXPECT_EQ(on.elapsed_s, off.elapsed_s);
      EXPECT_GT(off.steals, 0u) << "nothing was stolen: the test shows nothing";
    }
  }
}

// Not asked for, nothing is counted.
TEST(TaskGraphLocality, OffUnlessAsked) {
  auto graph = locus::make_task_graph<int>(
      [](int k) { return k == 0 ? std::vector<int>{} : std::vector<int>{k - 1}; }, [](int) {});
  graph.run(10);
  EXPECT_EQ(graph.locality().nodes, 0u);
  EXPECT_EQ(graph.locality().remote_share(), 0.0);
}

// Colors by place: a worker's color is its place's index.
TEST(NabbitcPolicy, ColorsByPlace) {
  locus::runtime_options o = simulated("nabbitc", 20);
  o.policy_options = {{"colors", "place"}};
  locus::runtime rt(o);
  EXPECT_EQ(locus::num_colors(), locus::num_places());
  std::vector<int> color_of(20, -2), place_of(20, -2);
  locus::parallel_for(0, 20, 1, [&](std::int64_t) {
    color_of[static_cast<std::size_t>(locus::worker_id())] = locus::worker_color();
    place_of[static_cast<std::size_t>(locus::worker_id())] = locus::current_place();
  });
  for (int w = 0; w < 20; ++w)
    if (color_of[static_cast<std::size_t>(w)] != -2) {
      EXPECT_EQ(color_of[static_cast<std::size_t>(w)], place_of[static_cast<std::size_t>(w)]);
    }
}

}  // namespace
