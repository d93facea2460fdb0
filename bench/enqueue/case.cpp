// enqueue in the suite: what a task sent through the shared queues costs
// (TBB-NUMA, seed 001, section 4.4.3; issue 14 asks for the enqueue
// overhead measured against oneTBB in one run).
//
// One task enqueues `tasks` children and waits for them, `rounds` times:
//   serial              the children called in turn;
//   locus:<policy>      task_group::enqueue, joined by sync(); with
//                       hinted=1 child i is hinted to place i mod places
//                       (rules 5', 5'', 5''' of figure 7), else unhinted;
//   tbb                 oneTBB's equivalent, this_task_arena::enqueue of a
//                       task_group's deferred task, joined by wait();
//   omp:*               OpenMP tasks from a single thread, then taskwait.
// Each child adds `work` rounds of an integer hash of its index to a
// checksum, compared with the serial sum every run.
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <locus/locus.hpp>

#include "common/harness.hpp"
#include "common/hash_rounds.hpp"

namespace {

class enqueue_instance final : public bench::instance {
 public:
  enqueue_instance(std::int64_t tasks, std::int64_t rounds, std::int64_t work, bool hinted)
      : tasks_(tasks), rounds_(rounds), work_(work), hinted_(hinted), sum_(tasks, rounds, work) {}

  void run(const bench::variant& v) override {
    sum_.reset();
    for (std::int64_t r = 0; r < rounds_; ++r) {
      switch (v.kind) {
        case bench::impl::serial:
          for (std::int64_t i = 0; i < tasks_; ++i) child(i);
          break;
        case bench::impl::locus: locus::fork_join([&] { run_locus(); }, [] {}); break;
        case bench::impl::tbb: run_tbb(); break;
        case bench::impl::omp: run_omp(); break;
      }
    }
  }
  std::string verify() override { return sum_.verify(); }
  std::string summary() override {
    return std::to_string(rounds_) + " x " + std::to_string(tasks_) + " enqueued tasks, " + std::to_string(work_) +
           " hash rounds each" + (hinted_ ? ", hinted to places in turn" : "");
  }

 private:
  void child(std::int64_t i) { sum_.add(i); }

  void run_locus() {
    const int places = locus::num_places();
    locus::task_group g;
    for (std::int64_t i = 0; i < tasks_; ++i)
      g.enqueue([this, i] { child(i); }, hinted_ ? locus::at(static_cast<int>(i % places)) : locus::any);
    g.sync();
  }

  void run_tbb() {
    tbb::task_group g;
    for (std::int64_t i = 0; i < tasks_; ++i) tbb::this_task_arena::enqueue(g.defer([this, i] { child(i); }));
    g.wait();
  }

  void run_omp() {
#pragma omp parallel
#pragma omp single
    {
      for (std::int64_t i = 0; i < tasks_; ++i) {
#pragma omp task firstprivate(i)
        child(i);
      }
#pragma omp taskwait
    }
  }

  std::int64_t tasks_, rounds_, work_;
  bool hinted_;
  bench::task_checksum sum_;
};

const bench::registrar enqueue_case{{
    "enqueue",
    "TBB-NUMA (seed 001), section 4.4.3: enqueue overhead",
    "One task enqueues tasks to the shared queues (task_group::enqueue; oneTBB: this_task_arena::enqueue of a "
    "task_group's deferred task; OpenMP: tasks) and waits; work=0 measures the queues' own cost per task.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto tasks = p.get("tasks", 100, 1000, 1000, s, "tasks enqueued per round", {1, 1 << 24});
      const auto rounds = p.get("rounds", 2, 100, 1000, s, "rounds (one wait each)", {1, 1 << 20});
      const auto work = p.get("work", 0, 0, 0, s, "hash rounds per task (0: empty tasks)", {0, 1 << 30});
      const auto hinted = p.get("hinted", 0, 0, 0, s, "1: task i hinted to place i mod places", {0, 1});
      return std::make_unique<enqueue_instance>(tasks, rounds, work, hinted != 0);
    }}};

}  // namespace
