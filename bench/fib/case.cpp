// fib in the suite: with no coarsening (every call forks: spawn overhead),
// the same through each implementation's task-group construct (fib-spawn),
// and with a cut-off below which the plain function runs (NUMA-WS T_1/T_S
// with a coarsened base case).
#include <oneapi/tbb/task_group.h>

#include <locus/annotate.hpp>
#include <locus/task_group.hpp>
#include <type_traits>

#include "common/harness.hpp"
#include "fib/fib_cost.hpp"

namespace {

long plain(int n) { return n < 2 ? n : plain(n - 1) + plain(n - 2); }

// For the simulator (fib/fib_cost.hpp) a forking call at or above
// fib_cost::bulk declares its own cycles; a call below the cut-off or below
// bulk declares the cycles of its whole subtree, which then runs as the
// `declared` instance: the calls in it declare nothing.
// fork2 through the task-group construct: locus::task_group::spawn (work-
// first: the child runs at once on a fresh stack, the parent's continuation
// is stealable), tbb::task_group::run (the child is queued, TBB's spawn),
// OpenMP's task (what its fork2 is already), plain calls when serial.
template <class P>
struct spawned : P {
  template <class F, class G>
  static void fork2(F&& f, G&& g) {
    if constexpr (std::is_same_v<P, bench::locus_backend>) {
      locus::task_group t;
      t.spawn(f);
      g();
      t.sync();
    } else if constexpr (std::is_same_v<P, bench::tbb_backend>) {
      tbb::task_group t;
      t.run(f);
      g();
      t.wait();
    } else {
      P::fork2(f, g);
    }
  }
};

template <class P, bool declared = false>
long fib(int n, int cutoff) {
  if constexpr (!declared) {
    if (n < cutoff || n < fib_cost::bulk) {
      locus::compute(fib_cost::tree_cycles(n));
      return fib<P, true>(n, cutoff);
    }
    locus::compute(fib_cost::cycles_per_call);
  }
  if (n < cutoff) return plain(n);
  long a = 0, b = 0;
  P::fork2([&] { a = fib<P, declared>(n - 1, cutoff); }, [&] { b = fib<P, declared>(n - 2, cutoff); });
  return a + b;
}

class fib_instance final : public bench::instance {
 public:
  fib_instance(int n, int cutoff, bool spawn = false) : n_(n), cutoff_(cutoff), spawn_(spawn), expected_(plain(n)) {}
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      P::run([&] { result_ = spawn_ ? fib<spawned<P>>(n_, cutoff_) : fib<P>(n_, cutoff_); });
    });
  }
  std::string verify() override {
    return result_ == expected_ ? "" : "fib = " + std::to_string(result_) + ", expected " + std::to_string(expected_);
  }
  std::string summary() override { return "fib(" + std::to_string(n_) + ") = " + std::to_string(result_); }

 private:
  int n_, cutoff_;
  bool spawn_;
  long expected_;
  long result_ = -1;
};

const bench::registrar no_cutoff{{
    "fib",
    "NUMA-WS (seed 000), section II: spawn overhead",
    "fib(n) forking at every call above the leaves (no coarsening).",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 20, 32, 38, s, "fib(n), which must fit in 64 bits", {0, fib_cost::max_n});
      return std::make_unique<fib_instance>(static_cast<int>(n), 2);
    }}};

const bench::registrar by_spawn{{
    "fib-spawn",
    "issue 44: task_group::spawn against tbb::task_group::run",
    "fib(n) forking at every call above the leaves through the task-group construct (locus: task_group::spawn; "
    "oneTBB: task_group::run; OpenMP: task).",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 20, 30, 36, s, "fib(n), which must fit in 64 bits", {0, fib_cost::max_n});
      return std::make_unique<fib_instance>(static_cast<int>(n), 2, true);
    }}};

const bench::registrar with_cutoff{{
    "fib-cutoff",
    "NUMA-WS (seed 000), section II: T_1/T_S with a coarsened base case",
    "fib(n) forking above the cut-off, plain recursion below it.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto n = p.get("n", 24, 38, 42, s, "fib(n), which must fit in 64 bits", {0, fib_cost::max_n});
      // Below 2 the recursion would reach fib(-1) before the cut-off.
      const auto cutoff =
          p.get("cutoff", 12, 20, 22, s, "below fib(cutoff) the plain function runs", {2, fib_cost::max_n});
      return std::make_unique<fib_instance>(static_cast<int>(n), static_cast<int>(cutoff));
    }}};

}  // namespace
