// Whole-process check of the CPU set (ctest: cpu_set_*, run under taskset):
// the pool has one worker per core the process may use and every worker is
// pinned inside that set; with more workers than cores the oversubscription
// is said once on stderr however many pools start.
//
//   cpu_set_probe WORKERS CPUS   e.g. "taskset -c 1 cpu_set_probe 1 1"
//
// WORKERS is the num_workers() expected; CPUS the cpus ("1", "0-1") every
// worker must run on. Exits 0 when all holds, 1 with the reason otherwise.
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <locus/locus.hpp>

namespace {

// Said at the end: stderr is captured while the pools run.
std::vector<std::string> failures;

void check(bool ok, const std::string& what) {
  if (!ok) failures.push_back(what);
}

std::set<int> parse_cpus(const std::string& text) {
  std::set<int> cpus;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.insert(c);
  }
  return cpus;
}

// The cpu each worker runs on, asked of every worker: worker i runs a task
// posted to it by a static loop block (each worker takes its own block).
std::set<int> cpus_of_workers() {
  const int n = locus::num_workers();
  std::atomic<int> seen[64] = {};
  for (auto& s : seen) s = -1;
  locus::parallel_for(0, n, [&](std::int64_t) { seen[locus::worker_id() % 64] = sched_getcpu(); }, locus::static_partition);
  std::set<int> cpus;
  for (int w = 0; w < n && w < 64; ++w)
    if (seen[w] >= 0) cpus.insert(seen[w]);
  return cpus;
}

// How often the oversubscription line was written while `body` ran.
template <class Body>
int oversubscription_lines(Body body) {
  char path[] = "/tmp/locus-cpu-set-XXXXXX";
  const int file = mkstemp(path);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(file, STDERR_FILENO);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(file);
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) lines += line.find("oversubscribed") != std::string::npos;
  std::remove(path);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cpu_set_probe WORKERS CPUS\n");
    return 2;
  }
  const int expected_workers = std::atoi(argv[1]);
  const std::set<int> allowed = parse_cpus(argv[2]);
  const int lines = oversubscription_lines([&] {
    for (int pool = 0; pool < 2; ++pool) {  // a second pool must not say it again
      locus::runtime rt;
      check(locus::num_workers() == expected_workers,
            "num_workers() is " + std::to_string(locus::num_workers()) + ", expected " + std::to_string(expected_workers));
      if (locus::engine_name() == "threaded")
        for (const int cpu : cpus_of_workers())
          check(allowed.count(cpu) == 1, "a worker ran on cpu " + std::to_string(cpu) + ", outside " + argv[2]);
    }
  });
  const bool over = locus::engine_name() == "threaded" && expected_workers > static_cast<int>(allowed.size());
  check(lines == (over ? 1 : 0), "the oversubscription line was written " + std::to_string(lines) + " times, expected " +
                                     std::to_string(over ? 1 : 0));
  for (const auto& failure : failures) std::fprintf(stderr, "cpu_set_probe: %s\n", failure.c_str());
  if (failures.empty()) std::printf("cpu_set_probe: %d workers on cpus %s: ok\n", expected_workers, argv[2]);
  return failures.empty() ? 0 : 1;
}
