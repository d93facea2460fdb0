// Random fork-join trees for the stress tests: random fan-out, depth, work,
// constructs, thrown exceptions and (optionally) place hints. check_tree runs
// one from outside the pool and compares it with the serial result.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "locus/locus.hpp"

namespace random_tree {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

struct tree_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct tree {
  std::uint64_t seed;
  int max_depth;
  bool allow_throw;
  // Places for hinted spawns (0: no hints). Hints change where frames run,
  // never the result.
  int hint_places = 0;

  int fanout(std::uint64_t id, int depth) const {
    return depth >= max_depth ? 0 : static_cast<int>(mix(id ^ seed) % 6);
  }
  bool throws(std::uint64_t id) const { return allow_throw && mix(id * 7 + seed) % 1999 == 0; }
  int construct(std::uint64_t id) const { return static_cast<int>(mix(id + 3 * seed) % 4); }
  long value(std::uint64_t id) const {
    volatile long v = 0;
    const int spin = static_cast<int>(mix(id ^ (seed << 1)) % 200);
    for (int i = 0; i < spin; ++i) v = v + i;
    locus::compute(static_cast<std::uint64_t>(spin) * 50);  // its duration under the simulator
    return static_cast<long>(mix(id) % 1000);
  }
  static std::uint64_t child(std::uint64_t id, int i) { return id * 8 + static_cast<std::uint64_t>(i) + 1; }

  // Serial reference: sum of values; counts nodes; notes whether any throws.
  long serial(std::uint64_t id, int depth, long& nodes, bool& any_throw) const {
    ++nodes;
    long sum = value(id);
    for (int i = 0; i < fanout(id, depth); ++i) sum += serial(child(id, i), depth + 1, nodes, any_throw);
    if (throws(id)) any_throw = true;
    return sum;
  }

  long parallel(std::uint64_t id, int depth, std::atomic<long>& nodes) const {
    nodes.fetch_add(1, std::memory_order_relaxed);
    const int n = fanout(id, depth);
    std::vector<long> part(static_cast<std::size_t>(n), 0);
    auto run_child = [&](int i) { part[static_cast<std::size_t>(i)] = parallel(child(id, i), depth + 1, nodes); };
    switch (construct(id)) {
      case 0: {  // work-first spawns, some with a place hint
        locus::task_group g;
        for (int i = 0; i < n; ++i) {
          const std::uint64_t c = child(id, i);
          if (hint_places > 0 && mix(c ^ 77) % 3 == 0)
            g.spawn([&, i] { run_child(i); }, locus::at(static_cast<int>(mix(c) % static_cast<std::uint64_t>(hint_places))));
          else
            g.spawn([&, i] { run_child(i); });
        }
        g.sync();
        break;
      }
      case 1: {  // parent-first spawns
        locus::task_group g;
        for (int i = 0; i < n; ++i) g.spawn([&, i] { run_child(i); }, locus::parent_first);
        g.sync();
        break;
      }
      case 2:  // a loop
        locus::parallel_for(0, n, 1, [&](std::int64_t i) { run_child(static_cast<int>(i)); });
        break;
      default:  // nested binary fork_join
        fork_range(0, n, run_child);
        break;
    }
    long sum = value(id);
    for (long p : part) sum += p;
    if (throws(id)) throw tree_error("node " + std::to_string(id));
    return sum;
  }

  template <class F>
  static void fork_range(int lo, int hi, F& f) {
    if (hi - lo == 0) return;
    if (hi - lo == 1) return f(lo);
    const int mid = (lo + hi) / 2;
    locus::fork_join([&] { fork_range(lo, mid, f); }, [&] { fork_range(mid, hi, f); });
  }
};

// Runs run(nodes) (tree t's parallel version, counting its nodes) as a
// root task from outside the pool and checks it against the serial run;
// returns whether it threw.
template <class Run>
bool check_against_serial(const tree& t, int s, Run run) {
  long expect_nodes = 0;
  bool expect_throw = false;
  const long expect = t.serial(1, 0, expect_nodes, expect_throw);
  std::atomic<long> nodes{0};
  long got = -1;
  bool caught = false;
  try {
    locus::fork_join([&] { got = run(nodes); }, [] {});
  } catch (const tree_error&) {
    caught = true;
  }
  EXPECT_EQ(caught, expect_throw) << "seed " << s;
  if (!caught) {
    EXPECT_EQ(got, expect) << "seed " << s;
  }
  EXPECT_EQ(nodes.load(), expect_nodes) << "seed " << s << ": every node runs, exception or not";
  return caught;
}

inline bool check_tree(const tree& t, int s) {
  return check_against_serial(t, s, [&](std::atomic<long>& nodes) { return t.parallel(1, 0, nodes); });
}

inline int seeds_from(const char* variable, int fallback) {
  const char* s = std::getenv(variable);
  return s != nullptr ? std::max(1, std::atoi(s)) : fallback;
}

}  // namespace random_tree
