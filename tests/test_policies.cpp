// Policies as modules: the example policy of docs/architecture.md, and a
// probe policy that turns every hook on and checks what the core reports.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/runtime_state.hpp"
#include "locus/locus.hpp"
#include "policy/spi/registry.hpp"
#include "support/random_tree.hpp"

namespace locus::detail {
namespace {

// Counts every hook the core calls; parent-first on every other spawn; and
// a second deque per worker (as ADWS keeps one per depth) into which it
// routes parent-first children, searched first by the owner and stolen from
// by thieves.
struct probe_counts {
  std::atomic<long> asked_fork{0}, asked_spawn{0}, searches{0}, routed{0}, from_second{0};
  std::atomic<long> task[4] = {};   // by task_event
  std::atomic<long> group[2] = {};  // by group_event
};
probe_counts g_probe;

class probe_policy final : public policy_base {
 public:
  explicit probe_policy(policy_context& c)
      : policy_base(c), second_(std::make_unique<work_deque[]>(static_cast<std::size_t>(c.num_workers()))) {
    for (int i = 0; i < c.num_workers(); ++i) {
      c.worker_at(i).hooks |= hook_spawn_order | hook_task_events;
    }
  }
  bool routes(const worker_view&, std::int32_t) override { return true; }
  void route_spawn(worker_view& w, frame* f) override {
    g_probe.routed.fetch_add(1, std::memory_order_relaxed);
    second(w).push(f);  // on the spawning worker: the owner
    notify_push();
  }
  frame* steal_from(worker_view&, worker_view& victim) override {
    if (frame* f = victim.deque.steal()) return f;
    return second(victim).steal();
  }
  bool has_work_for(worker_view&) override {
    for (int i = 0; i < ctx->num_workers(); ++i)
      if (!second_[static_cast<std::size_t>(i)].looks_empty()) return true;
    return false;
  }
  worker_view* choose_victim(worker_view& thief) override {
    const int n = ctx->num_workers();
    if (n < 2) return nullptr;
    auto v = static_cast<int>(ctx->rng(thief).below(static_cast<std::uint32_t>(n - 1)));
    return &ctx->worker_at(v >= thief.id ? v + 1 : v);
  }
  search_result find_work(worker_view& w) override {
    g_probe.searches.fetch_add(1, std::memory_order_relaxed);
    if (frame* f = second(w).pop()) {
      g_probe.from_second.fetch_add(1, std::memory_order_relaxed);
      return {f, found_at::policy};
    }
    return default_search(w);
  }
  bool parent_first(worker_view& w, bool fork, std::int32_t) override {
    (fork ? g_probe.asked_fork : g_probe.asked_spawn).fetch_add(1, std::memory_order_relaxed);
    return (w.ctx.policy[1]++ & 1) != 0;  // per task: alternate (the context is the task's own)
  }
  void on_task(worker_view&, task_event e, const frame*) override {
    g_probe.task[static_cast<int>(e)].fetch_add(1, std::memory_order_relaxed);
  }
  void on_group(worker_view&, group_event e, const group_state*) override {
    g_probe.group[static_cast<int>(e)].fetch_add(1, std::memory_order_relaxed);
  }

 private:
  work_deque& second(const worker_view& w) { return second_[static_cast<std::size_t>(w.id)]; }
  std::unique_ptr<work_deque[]> second_;
};

const bool probe_registered =
    (register_policy({.name = "probe", .make = &make_policy_of<probe_policy>}), true);

// Worker 1 may take root tasks only. `forbid-told` says so through
// may_take; `forbid-silent` only never picks a victim for it, as a policy
// had to before may_take existed. Both count worker 1's search rounds while
// worker 0 has work in sight (which worker 1 may not take).
std::atomic<long> g_rounds_of_1{0};
class forbid_silent : public policy_base {
 public:
  using policy_base::policy_base;
  worker_view* choose_victim(worker_view& thief) override {
    return thief.id == 1 || ctx->num_workers() < 2 ? nullptr : &ctx->worker_at(1);
  }
  search_result find_work(worker_view& w) override {
    if (w.id == 1 && !ctx->worker_at(0).deque.looks_empty()) g_rounds_of_1.fetch_add(1, std::memory_order_relaxed);
    return default_search(w);
  }
};
class forbid_told final : public forbid_silent {
 public:
  using forbid_silent::forbid_silent;
  bool may_take(const worker_view& w, const worker_view* owner) override {
    return w.id != 1 || owner == nullptr || owner == &w;
  }
  bool filters_work() const override { return true; }
};
const bool forbid_registered =
    (register_policy({.name = "forbid-told", .make = &make_policy_of<forbid_told>}),
     register_policy({.name = "forbid-silent", .make = &make_policy_of<forbid_silent>}), true);

}  // namespace
}  // namespace locus::detail

namespace {

using locus::detail::g_probe;
using locus::detail::group_event;
using locus::detail::task_event;

long task_count(task_event e) { return g_probe.task[static_cast<int>(e)].load(); }
long group_count(group_event e) { return g_probe.group[static_cast<int>(e)].load(); }

void reset_probe() {
  g_probe.asked_fork = g_probe.asked_spawn = g_probe.searches = g_probe.routed = g_probe.from_second = 0;
  for (auto& c : g_probe.task) c = 0;
  for (auto& c : g_probe.group) c = 0;
}

void run_trees(int seeds, std::uint64_t salt) {
  for (int s = 0; s < seeds; ++s) {
    random_tree::tree t{static_cast<std::uint64_t>(s) * 104729 + salt, 4 + s % 3, s % 3 == 0};
    random_tree::check_tree(t, s);
    if (::testing::Test::HasFailure()) return;
  }
}

// What every hook reports must fit the protocol: each task that begins ends,
// each group that spawned syncs, a resumed frame was suspended or stolen.
void expect_consistent_events() {
  EXPECT_GT(g_probe.asked_fork.load(), 0);
  EXPECT_GT(g_probe.asked_spawn.load(), 0);
  EXPECT_GT(g_probe.searches.load(), 0);
  EXPECT_GT(g_probe.routed.load(), 0);
  EXPECT_GT(task_count(task_event::begin), 0);
  EXPECT_EQ(task_count(task_event::begin), task_count(task_event::end));
  EXPECT_GT(group_count(group_event::created), 0);
  EXPECT_EQ(group_count(group_event::created), group_count(group_event::synced));
  EXPECT_GE(task_count(task_event::resume), task_count(task_event::suspend));
}

}  // namespace

TEST(ProbePolicy, EveryHookIsCalledConsistentlyOnThreads) {
  for (int workers : {1, 2, 4}) {
    reset_probe();
    {
      locus::runtime_options o;
      o.policy = "probe";
      o.workers = workers;
      locus::runtime rt(o);
      run_trees(20, static_cast<std::uint64_t>(workers));
    }
    expect_consistent_events();
  }
}

TEST(ProbePolicy, SuspendAndResumeUnderTheSimulator) {
  reset_probe();
  for (int s = 0; s < 20; ++s) {
    locus::runtime_options o;
    o.policy = "probe";
    o.engine = "sim";
    o.machine = "tbb-numa-nehalem-2x4";
    o.workers = 4;
    o.seed = s;
    locus::runtime rt(o);
    run_trees(1, static_cast<std::uint64_t>(s));
  }
  expect_consistent_events();
  EXPECT_GT(task_count(task_event::suspend), 0) << "no run suspended: the test does not reach suspend/resume";
  EXPECT_GT(g_probe.from_second.load(), 0) << "the second deques were never searched with work in them";
}

// The example policy: its option, its counter, its colored steals.
locus::runtime_options simulated_example(int workers, int seed, bool strict) {
  locus::runtime_options o;
  o.policy = "example";
  o.engine = "sim";
  o.machine = "tbb-numa-nehalem-2x4";
  o.workers = workers;
  o.seed = seed;
  o.policy_options = {{"colors", "2"}, {"strict", strict ? "1" : "0"}};
  return o;
}

TEST(ExamplePolicy, StealsByColorThroughThePeek) {
  std::uint64_t colored = 0;
  for (int s = 0; s < 20; ++s) {
    locus::runtime rt(simulated_example(4, s, false));
    locus::reset_stats();
    run_trees(1, static_cast<std::uint64_t>(s) + 7);
    const auto total = locus::get_stats().total();
    EXPECT_LE(total.counter("colored_steals"), total.steals);
    colored += total.counter("colored_steals");
  }
  EXPECT_GT(colored, 0u) << "no colored steal: the peek was never true";
}

// A worker the policy forbids to take the visible work sleeps, instead of
// spinning and bouncing between the sleep check (which sees work) and a
// search that cannot succeed: far fewer search rounds with forbidden work
// in sight, for the same simulated runs.
TEST(PlaceAwareSleep, AForbiddenWorkerSleepsInsteadOfSearching) {
  long rounds[2] = {0, 0};
  for (int told = 0; told < 2; ++told) {
    locus::detail::g_rounds_of_1 = 0;
    for (int s = 0; s < 5; ++s) {
      locus::runtime_options o;
      o.policy = told ? "forbid-told" : "forbid-silent";
      o.engine = "sim";
      o.machine = "tbb-numa-nehalem-2x4";
      o.workers = 2;
      o.seed = s;
      locus::runtime rt(o);
      // Worker 0 takes the root and works; worker 1 may not help.
      run_trees(1, static_cast<std::uint64_t>(s) + 3);
    }
    rounds[told] = locus::detail::g_rounds_of_1.load();
  }
  EXPECT_LT(4 * rounds[1], rounds[0]) << "told " << rounds[1] << ", silent " << rounds[0];
  RecordProperty("rounds_told", std::to_string(rounds[1]));
  RecordProperty("rounds_silent", std::to_string(rounds[0]));
}

TEST(ExamplePolicy, OptionsAreDeclaredAndChecked) {
  locus::runtime_options o = simulated_example(2, 1, false);
  o.policy_options = {{"colors", "0"}};
  try {
    locus::runtime rt(o);
    ADD_FAILURE() << "colors=0 accepted";
  } catch (const locus::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 9"), std::string::npos) << e.what();
  }
  setenv("LOCUS_EXAMPLE_STRICT", "maybe", 1);
  EXPECT_THROW(locus::runtime rt(simulated_example(2, 1, false)), locus::config_error);
  unsetenv("LOCUS_EXAMPLE_STRICT");
  const auto names = locus::available_policies();
  EXPECT_NE(std::find(names.begin(), names.end(), "example"), names.end());
}
