// build/bin/mutex-bench [--pairs N] [--reps R]
// Uncontended lock/unlock cost of locus::mutex against std::mutex: one task
// on a one-worker pool locks and unlocks the same mutex N times around an
// increment of a counter it guards. Reports nanoseconds per lock/unlock pair,
// the median of R rounds; each round times both mutexes, so slow drifts of a
// shared machine hit both alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <locus/locus.hpp>

namespace {

template <class Mutex>
[[gnu::noinline]] double ns_per_pair(Mutex& m, long& guarded, long pairs) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < pairs; ++i) {
    m.lock();
    ++guarded;
    m.unlock();
  }
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(pairs);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

long parse_count(const char* flag, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v < 1) {
    std::fprintf(stderr, "mutex-bench: %s %s: expected a positive integer\n", flag, value);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  long pairs = 20'000'000;
  long reps = 11;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && std::strcmp(argv[i], "--pairs") == 0) {
      pairs = parse_count("--pairs", argv[++i]);
    } else if (i + 1 < argc && std::strcmp(argv[i], "--reps") == 0) {
      reps = parse_count("--reps", argv[++i]);
    } else {
      std::fprintf(stderr, "mutex-bench: unknown argument %s; accepted: --pairs N, --reps R\n", argv[i]);
      return 2;
    }
  }
  locus::runtime rt(locus::runtime_options{.workers = 1});
  locus::mutex task_mutex;
  std::mutex thread_mutex;
  long guarded_by_task = 0, guarded_by_thread = 0;
  std::vector<double> locus_ns, std_ns;
  locus::fork_join(
      [&] {
        for (long r = 0; r < reps; ++r) {
          locus_ns.push_back(ns_per_pair(task_mutex, guarded_by_task, pairs));
          std_ns.push_back(ns_per_pair(thread_mutex, guarded_by_thread, pairs));
        }
      },
      [] {});
  if (guarded_by_task != pairs * reps || guarded_by_thread != pairs * reps) {
    std::fprintf(stderr, "mutex-bench: wrong count\n");
    return 1;
  }
  std::printf("uncontended lock+unlock, %ld pairs, median of %ld rounds (one task on one worker)\n", pairs, reps);
  std::printf("  locus::mutex  %6.2f ns per pair (min %.2f, max %.2f)\n", median(locus_ns),
              *std::min_element(locus_ns.begin(), locus_ns.end()), *std::max_element(locus_ns.begin(), locus_ns.end()));
  std::printf("  std::mutex    %6.2f ns per pair (min %.2f, max %.2f)\n", median(std_ns),
              *std::min_element(std_ns.begin(), std_ns.end()), *std::max_element(std_ns.begin(), std_ns.end()));
  return 0;
}
