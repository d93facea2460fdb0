// A program that uses locus the way a project outside this tree does: only
// through <locus/locus.hpp> and whatever its build route (find_package,
// pkg-config, add_subdirectory) supplies. It checks its results and exits 1
// with a message if one is wrong.
#include <locus/locus.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

}  // namespace

int main() {
  locus::runtime_options o;
  o.workers = 2;
  locus::runtime rt(o);

  const long f = fib(25);
  if (f != 75025) {
    std::fprintf(stderr, "consumer: fib(25) = %ld, expected 75025\n", f);
    return 1;
  }

  std::atomic<std::int64_t> sum{0};
  locus::task_group g;
  for (std::int64_t i = 1; i <= 1000; ++i) g.spawn([&sum, i] { sum.fetch_add(i, std::memory_order_relaxed); });
  g.sync();
  if (sum.load() != 500500) {
    std::fprintf(stderr, "consumer: task_group sum = %lld, expected 500500\n", static_cast<long long>(sum.load()));
    return 1;
  }

  std::printf("consumer: fib(25) = %ld, task_group sum = %lld, on %d workers\n", f,
              static_cast<long long>(sum.load()), locus::num_workers());
  return 0;
}
