#include "runner/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace bench {

progress::progress(std::vector<planned> plan, std::map<std::string, cost_hint> hints)
    : plan_(std::move(plan)), state_(plan_.size()), hints_(std::move(hints)),
      start_(std::chrono::steady_clock::now()), mark_(start_) {}

double progress::seconds_since(time_point t) const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void progress::benchmark_started(std::size_t i) {
  current_ = i;
  state_[i].started = true;
  mark_ = std::chrono::steady_clock::now();
}

void progress::setup_done() {
  state_[current_].setup_s = seconds_since(mark_);
  state_[current_].set_up = true;
  mark_ = std::chrono::steady_clock::now();
}

void progress::round_done(std::size_t runs) {
  state_[current_].run_s += seconds_since(mark_);
  state_[current_].runs_done += runs;
  mark_ = std::chrono::steady_clock::now();
}

double progress::elapsed_s() const { return seconds_since(start_); }

double progress::left_s() const {
  // How this run compares with the hints, over what it measured of hinted
  // benchmarks; and its mean run and setup, for benchmarks without a hint.
  double measured = 0, hinted = 0, run_s = 0, setup_s = 0;
  std::size_t runs = 0, setups = 0;
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    const state& s = state_[i];
    if (!s.set_up) continue;
    run_s += s.run_s;
    runs += s.runs_done;
    setup_s += s.setup_s;
    ++setups;
    if (const auto h = hints_.find(plan_[i].benchmark); h != hints_.end()) {
      measured += s.setup_s + s.run_s;
      hinted += h->second.setup_s + static_cast<double>(s.runs_done) * h->second.run_s;
    }
  }
  const double scale = hinted > 0 ? measured / hinted : 1.0;
  const double mean_run = runs ? run_s / static_cast<double>(runs) : -1;
  const double mean_setup = setups ? setup_s / static_cast<double>(setups) : 0;

  double left = 0;
  for (std::size_t i = current_; i < plan_.size(); ++i) {
    const state& s = state_[i];
    const auto h = hints_.find(plan_[i].benchmark);
    const bool hint = h != hints_.end();
    // Setup still to come (the current benchmark's may be under way).
    if (!s.set_up) {
      double setup = hint ? h->second.setup_s * scale : mean_setup;
      if (s.started) setup = std::max(0.0, setup - seconds_since(mark_));
      left += setup;
    }
    // Its runs to come, at its own cost so far, else the hint's or the
    // mean's.
    const double per_run = s.runs_done ? s.run_s / static_cast<double>(s.runs_done)
                           : hint      ? h->second.run_s * scale
                                       : mean_run;
    if (per_run < 0) return -1;
    left += per_run * static_cast<double>(plan_[i].runs - std::min(plan_[i].runs, s.runs_done));
  }
  return left;
}

double progress::planned_s() const {
  double total = 0;
  for (const auto& p : plan_) {
    const auto h = hints_.find(p.benchmark);
    if (h == hints_.end()) return -1;
    total += h->second.setup_s + static_cast<double>(p.runs) * h->second.run_s;
  }
  return total;
}

std::string progress::clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

std::string progress::status() const {
  const double left = left_s();
  return clock(elapsed_s()) + " elapsed, " + (left < 0 ? std::string("time left not known yet")
                                                        : "about " + clock(left) + " left");
}

}  // namespace bench
