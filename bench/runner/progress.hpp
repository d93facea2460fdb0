// The progress of a locus-bench run: time elapsed and an estimate of the
// time left, for the progress lines (stderr).
//
// The estimate adds, per benchmark, the runs left times what one run of it
// costs: for a benchmark under way, its own runs so far (wall time of its
// rounds, preparation and verification included, divided by the runs);
// for one not yet started, its cost hint (seconds per run on the reference
// machine, cost_hints()) scaled by how the hinted benchmarks done so far
// compared with their hints, or without a hint the mean run of the
// benchmarks done so far. Each benchmark's setup (building its inputs) is
// counted the same way.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace bench {

// Seconds one run (prepare, run, verify) of a benchmark takes at its quick
// size on the reference machine (AMD EPYC, 2 cores), the mean over the
// variants and 1 and 2 workers; setup is the building of its inputs.
struct cost_hint {
  double run_s;
  double setup_s;
};
const std::map<std::string, cost_hint>& cost_hints();

class progress {
 public:
  struct planned {
    std::string benchmark;
    std::size_t runs;  // cells x rounds
  };
  // hints: per benchmark (empty: none, e.g. at sizes the hints are not for).
  progress(std::vector<planned> plan, std::map<std::string, cost_hint> hints);

  // Benchmark i (in plan order) starts; then its setup is done; then each
  // round of `runs` runs is done.
  void benchmark_started(std::size_t i);
  void setup_done();
  void round_done(std::size_t runs);

  // What benchmark i took so far: building its inputs, and its rounds
  // (preparation, runs and verification).
  double setup_s(std::size_t i) const { return state_[i].setup_s; }
  double rounds_s(std::size_t i) const { return state_[i].run_s; }

  double elapsed_s() const;
  // Seconds left, estimated; negative when there is nothing to go on yet.
  double left_s() const;
  // "1:23 elapsed, about 4:10 left" (or "... left: not known yet").
  std::string status() const;
  // The estimate before anything ran, from the hints alone (negative when
  // a benchmark has none).
  double planned_s() const;

  static std::string clock(double seconds);  // m:ss or h:mm:ss

 private:
  using time_point = std::chrono::steady_clock::time_point;
  struct state {
    std::size_t runs_done = 0;
    double setup_s = 0, run_s = 0;
    bool started = false, set_up = false;
  };
  double seconds_since(time_point t) const;

  std::vector<planned> plan_;
  std::vector<state> state_;
  std::map<std::string, cost_hint> hints_;
  std::size_t current_ = 0;
  time_point start_, mark_;
};

}  // namespace bench
