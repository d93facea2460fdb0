// Steal containment under ADWS (seed 003, section 3.2, figure 11 lines
// 39-50): a thief steals only within the topmost dominant task group that
// dominates it. Checked from outside the policy, on a random tree of hinted
// task groups whose distribution ranges the test computes itself (figure 7:
// each child takes its share of its group's range from the top of what is
// left; a group that is not cross-worker passes its range on whole).
//
// A task (or a continuation) that runs on a worker j other than the owner
// of its range got there by a steal of itself or of an ancestor, so some
// group G on its path was dominant when that steal happened and had
// floor(x) <= j < floor(y); G stays dominant until its sync, which comes
// after the task. So at every task start and every point after a spawn,
// the check is: j is the range's owner, or some group on the task's path
// is dominant (one of its cross-worker children has returned, as the test
// sees it) and covers j. A run that fails it took a task from outside the
// topmost dominant group.
//
// The test's view is a superset of the policy's: a child counts as
// finished when its body returns (the policy hears of it a little later),
// and boundaries closer than `eps` to an integer count both ways.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "locus/locus.hpp"

namespace containment {

constexpr double eps = 1e-3;

struct node {
  double share = 0;      // hint: its share of its parent's group
  double total = 0;      // its group's total work (the sum of its children's shares)
  double cycles = 0;     // leaves: simulated cycles (the hint times a jitter)
  double x = 0, y = 0;   // its distribution range, in workers
  int parent = -1;
  bool parent_first = false;  // its children are spawned parent-first
  std::vector<int> children;
};

struct tree {
  std::vector<node> nodes;
  int workers = 1;

  static bool near_integer(double v) { return std::abs(v - std::round(v)) < eps; }
  // floor(v), and floor(v) of a boundary within eps of an integer taken
  // low or high (the test's ranges are the policy's up to rounding; 0 and
  // P are exact).
  static double floor_low(double v) { return v == 0 ? 0 : std::floor(v - eps); }
  static double floor_high(double v) { return std::floor(v + eps); }
  static bool cross_worker(double x, double y) { return std::floor(x) != std::floor(y); }

  // An explicit tree: add() children in spawn order, then place() the
  // ranges from the root's [0, P).
  int add(int parent, double share, double cycles, bool parent_first = false) {
    const int me = static_cast<int>(nodes.size());
    node& n = nodes.emplace_back();
    n.parent = parent;
    n.share = share;
    n.cycles = cycles;
    n.parent_first = parent_first;
    if (parent >= 0) {
      nodes[static_cast<std::size_t>(parent)].children.push_back(me);
      nodes[static_cast<std::size_t>(parent)].total += share;
    }
    return me;
  }
  void place(int me, double x, double y) {
    node& n = nodes[static_cast<std::size_t>(me)];
    n.x = x;
    n.y = y;
    double left = n.total;
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      const int c = n.children[i];
      if (!cross_worker(x, y)) {
        place(c, x, y);
        continue;
      }
      const double hi = i == 0 ? 1.0 : left / n.total;
      left -= nodes[static_cast<std::size_t>(c)].share;
      const double lo = i + 1 == n.children.size() ? 0.0 : left / n.total;
      place(c, x + lo * (y - x), x + hi * (y - x));
    }
  }
};

// One run's observations.
struct run_state {
  const tree* t = nullptr;
  std::unique_ptr<std::atomic<bool>[]> dominant;  // per node: its group
  std::atomic<int> off_owner{0};                  // checks made off the range's owner
  std::atomic<int> escapes{0};                    // ... with no dominant group covering the worker
  std::atomic<long long> checksum{0};
  std::size_t root_footprint = 0;  // nonzero: the root group's (ml-adws ties and flattens it)
  // ml-adws keeps a non-cross-worker child on its spawner's deque whoever
  // owns its range (route_spawn migrates only cross-worker ones): then a
  // task may also run where it was spawned.
  bool spawner_keeps = false;
  std::unique_ptr<std::atomic<int>[]> spawner;  // per node: the worker that spawned it

  explicit run_state(const tree& tr) : t(&tr), dominant(new std::atomic<bool>[tr.nodes.size()]),
        spawner(new std::atomic<int>[tr.nodes.size()]) {
    for (std::size_t i = 0; i < tr.nodes.size(); ++i) {
      dominant[i] = false;
      spawner[i] = -1;
    }
  }

  // `from`: the innermost group on the path (the task's parent's, or at a
  // continuation the task's own).
  void check(int task, int from) {
    const node& n = t->nodes[static_cast<std::size_t>(task)];
    if (n.parent < 0) return;  // the root task, wherever roots start
    const int j = locus::worker_id();
    if (tree::near_integer(n.x) && std::round(n.x) != 0) return;  // its owner is in doubt
    const int owner = std::min(static_cast<int>(std::floor(n.x)), t->workers - 1);
    if (j == owner) return;
    if (spawner_keeps && task != from && j == spawner[static_cast<std::size_t>(task)].load()) return;
    off_owner.fetch_add(1, std::memory_order_relaxed);
    for (int g = from; g >= 0; g = t->nodes[static_cast<std::size_t>(g)].parent) {
      const node& gn = t->nodes[static_cast<std::size_t>(g)];
      if (!dominant[static_cast<std::size_t>(g)].load(std::memory_order_acquire)) continue;
      if (tree::floor_low(gn.x) <= j && j < tree::floor_high(gn.y)) return;
    }
    escapes.fetch_add(1, std::memory_order_relaxed);
  }

  void run(int me) {
    const node& n = t->nodes[static_cast<std::size_t>(me)];
    check(me, n.parent);
    if (n.children.empty()) {
      locus::compute(n.cycles);
      checksum.fetch_add(me, std::memory_order_relaxed);
    } else {
      locus::task_group g = me == 0 && root_footprint != 0
                                ? locus::task_group(locus::work(n.total), locus::footprint(root_footprint))
                                : locus::task_group(locus::work(n.total));
      for (int c : n.children) {
        const node& cn = t->nodes[static_cast<std::size_t>(c)];
        auto body = [this, c, me] {
          run(c);
          // Section 3.2: a group is dominant once a cross-worker child of it is done.
          const node& child = t->nodes[static_cast<std::size_t>(c)];
          if (tree::floor_low(child.x) != tree::floor_high(child.y))
            dominant[static_cast<std::size_t>(me)].store(true, std::memory_order_release);
        };
        spawner[static_cast<std::size_t>(c)].store(locus::worker_id());
        if (n.parent_first) g.spawn(body, locus::work(cn.share), locus::parent_first);
        else g.spawn(body, locus::work(cn.share));
        check(me, me);  // the continuation, where it runs now
      }
      g.sync();
    }
  }

  long long expected() const {
    long long s = 0;
    for (std::size_t i = 0; i < t->nodes.size(); ++i)
      if (t->nodes[i].children.empty()) s += static_cast<long long>(i);
    return s;
  }
};

}  // namespace containment
