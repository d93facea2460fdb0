// A program with every kind of task a trace draws (test_trace.py runs it
// with LOCUS_TRACE): labeled task_group children (work-first and
// parent-first, hinted and not), fork_join branches, parallel_for leaves
// with their ranges, static blocks posted to inboxes, and, under the
// simulator, memory accesses by level.
#include <cstdio>
#include <vector>

#include <locus/locus.hpp>

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  if (n > 12) {
    locus::task_group g;
    g.spawn([&] { a = fib(n - 1); }, locus::label("fib"));
    b = fib(n - 2);
    g.sync();
  } else {
    locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  }
  locus::compute(4);
  return a + b;
}

}  // namespace

int main() {
  std::vector<double> data(1 << 16, 1.0);
  double sum = 0;
  locus::task_group g;
  g.spawn([&] {
    locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(data.size()), std::int64_t{1024}, [&](std::int64_t lo, std::int64_t hi) {
      locus::touch(&data[static_cast<std::size_t>(lo)], static_cast<std::size_t>(hi - lo) * sizeof(double),
                   locus::access::write);
      for (std::int64_t i = lo; i < hi; ++i) data[static_cast<std::size_t>(i)] *= 2;
    });
  }, locus::label("scale"));
  g.spawn([&] {
    locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(data.size()), [&](std::int64_t lo, std::int64_t hi) {
      locus::touch(&data[static_cast<std::size_t>(lo)], static_cast<std::size_t>(hi - lo) * sizeof(double));
    }, locus::static_partition);
  }, locus::parent_first, locus::label("blocks"));
  g.sync();
  long f = 0;
  g.spawn([&] { f = fib(20); }, locus::at(locus::num_places() - 1), locus::label("fib-root"));
  g.sync();
  for (double d : data) sum += d;
  std::printf("fib(20) = %ld, sum = %.0f\n", f, sum);
  return f == 6765 && sum == 2.0 * static_cast<double>(data.size()) ? 0 : 1;
}
