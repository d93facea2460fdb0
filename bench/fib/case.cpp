// fib in the suite: with no coarsening (every call forks: spawn overhead) and
// with a cut-off below which the plain function runs (NUMA-WS T_1/T_S with a
// coarsened base case).
#include <locus/annotate.hpp>

#include "common/harness.hpp"
#include "fib/fib_cost.hpp"

namespace {

long plain(int n) { return n < 2 ? n : plain(n - 1) + plain(n - 2); }

// For the simulator (fib/fib_cost.hpp) a forking call at or above
// fib_cost::bulk declares its own cycles; a call below the cut-off or below
// bulk declares the cycles of its whole subtree, which then runs as the
// `declared` instance: the calls in it declare nothing.
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
  fib_instance(int n, int cutoff) : n_(n), cutoff_(cutoff), expected_(plain(n)) {}
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { P::run([&] { result_ = fib<P>(n_, cutoff_); }); });
  }
  std::string verify() override {
    return result_ == expected_ ? "" : "fib = " + std::to_string(result_) + ", expected " + std::to_string(expected_);
  }
  std::string summary() override { return "fib(" + std::to_string(n_) + ") = " + std::to_string(result_); }

 private:
  int n_, cutoff_;
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
