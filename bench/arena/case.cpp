// arena in the suite: what entering an arena costs (TBB-NUMA, seed 001,
// sections 3.4 and 4.2; issue 14 asks for the arena overhead against oneTBB
// in one run).
//
// `rounds` times, a computation enters a second arena and runs a loop of
// `tasks` pieces there:
//   serial              the pieces called in turn;
//   locus:<policy>      locus::arena::execute of a parallel_for; with
//                       from=thread the runner's thread enters (it blocks
//                       while a worker runs the loop), with from=task a task
//                       of the default arena does (it suspends, the arena's
//                       workers run the loop, it resumes in its own arena);
//   tbb                 tbb::task_arena::execute of a parallel_for, from the
//                       runner's thread (from=thread; it is the master of
//                       the runner's arena) or from a task (from=task).
// Each piece adds `work` rounds of an integer hash of its index to a
// checksum, compared with the serial sum every run. With tasks=1 and work=0
// the time per round is the cost of entering and leaving the arena.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
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

class arena_instance final : public bench::instance {
 public:
  arena_instance(std::int64_t tasks, std::int64_t rounds, std::int64_t work, bool from_task)
      : tasks_(tasks), rounds_(rounds), work_(work), from_task_(from_task), sum_(tasks, rounds, work) {}

  void run(const bench::variant& v) override {
    sum_.reset();
    switch (v.kind) {
      case bench::impl::serial:
        for (std::int64_t r = 0; r < rounds_; ++r)
          for (std::int64_t i = 0; i < tasks_; ++i) piece(i);
        break;
      case bench::impl::locus: {
        locus::arena other;  // every worker (the default arena is idle meanwhile, or waits in its task)
        auto rounds = [&] {
          for (std::int64_t r = 0; r < rounds_; ++r)
            other.execute([&] { locus::parallel_for(std::int64_t{0}, tasks_, 1, [&](std::int64_t i) { piece(i); }); });
        };
        // From a task whose deque is empty, as oneTBB's run_and_wait runs
        // its function with the thread's pool empty: fork_join runs its
        // second branch after popping it, or a thief runs it. (A task with
        // frames on its deque hands f to the arena's workers instead.)
        if (from_task_) locus::fork_join([] {}, rounds);
        else rounds();
        break;
      }
      case bench::impl::tbb: {
        tbb::task_arena other;
        auto rounds = [&] {
          for (std::int64_t r = 0; r < rounds_; ++r)
            other.execute([&] {
              tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, tasks_, 1), [&](const auto& range) {
                for (std::int64_t i = range.begin(); i < range.end(); ++i) piece(i);
              });
            });
        };
        if (from_task_) {
          tbb::task_group g;
          g.run_and_wait(rounds);
        } else {
          rounds();
        }
        break;
      }
      case bench::impl::omp:
        // OpenMP has no arenas: a parallel loop per round, as close as it gets.
        for (std::int64_t r = 0; r < rounds_; ++r) {
#pragma omp parallel for schedule(static)
          for (std::int64_t i = 0; i < tasks_; ++i) piece(i);
        }
        break;
    }
  }
  std::string verify() override { return sum_.verify(); }
  std::string summary() override {
    return std::to_string(rounds_) + " arena entries from a " + (from_task_ ? "task" : "thread") + ", " +
           std::to_string(tasks_) + " pieces of " + std::to_string(work_) + " hash rounds each";
  }

 private:
  void piece(std::int64_t i) { sum_.add(i); }

  std::int64_t tasks_, rounds_, work_;
  bool from_task_;
  bench::task_checksum sum_;
};

std::unique_ptr<bench::instance> make_arena(bench::size_class s, bench::params& p, bool from_task) {
  const auto tasks = p.get("tasks", 4, 1, 1, s, "pieces of the loop run in the arena per round", {1, 1 << 24});
  // 20,000 at the quick size: a fresh runtime per timed run costs its first
  // entry 110 to 190 us while the new worker starts (docs/benchmarks.md,
  // issue 44's third round), which 2,000 entries of 0.3 us could not
  // amortize; oneTBB's threads outlive its runs.
  const auto rounds = p.get("rounds", 10, 20000, 200000, s, "arena entries", {1, 1 << 24});
  const auto work = p.get("work", 0, 0, 0, s, "hash rounds per piece (0: empty pieces)", {0, 1 << 30});
  return std::make_unique<arena_instance>(tasks, rounds, work, from_task);
}

const bench::registrar arena_case{{
    "arena",
    "TBB-NUMA (seed 001), sections 3.4 and 4.2: arena overhead",
    "Enters a second arena rounds times and runs a loop of tasks pieces there (locus::arena::execute; oneTBB: "
    "tbb::task_arena::execute; OpenMP: a parallel loop), from the runner's thread or from a task (from=1); "
    "tasks=1 and work=0 measure entering and leaving.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto from = p.get("from", 0, 0, 0, s, "0: the runner's thread enters the arena, 1: a task does",
                              {0, 1});
      return make_arena(s, p, from != 0);
    }}};

// The same entered from a task, under its own name so that a suite (the
// overheads suite) can list both.
const bench::registrar arena_from_task_case{{
    "arena-from-task",
    "TBB-NUMA (seed 001), sections 3.4 and 4.2: arena overhead from a task",
    "arena with from=1: a task of the default arena enters the second arena rounds times.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> { return make_arena(s, p, true); }}};

}  // namespace
