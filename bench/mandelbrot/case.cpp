// Mandelbrot in the suite: the iteration counts of every pixel, computed
// once per round into the round's own frame buffer; every frame is
// compared pixel for pixel with the serial computation's (made once per
// instance).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "cpu_common/checks.hpp"
#include "cpu_common/rounds.hpp"
#include "mandelbrot/kernel.hpp"

namespace {

// The region: real part [-2, 0.5], imaginary part [-1.25, 1.25], the whole set.
mandelbrot::frame make_frame(std::int64_t width, std::int64_t height, std::uint32_t max_iter) {
  return {width, height, max_iter, -2.0, -1.25, 2.5 / static_cast<double>(width), 2.5 / static_cast<double>(height)};
}

class mandelbrot_instance final : public bench::instance {
 public:
  mandelbrot_instance(mandelbrot::frame f, std::int64_t leaf, std::int64_t rounds)
      : frame_(f), leaf_(leaf), rounds_(rounds), pixels_(static_cast<std::size_t>(f.width * f.height)),
        counts_(pixels_ * static_cast<std::size_t>(rounds)), expected_(pixels_) {
    mandelbrot::compute<bench::serial_backend>(frame_, expected_.data(), leaf_);
  }
  // A pixel the run does not write keeps a count no pixel can have.
  void prepare() override { std::fill(counts_.begin(), counts_.end(), frame_.max_iter + 1); }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() {
      for (std::int64_t r = 0; r < rounds_; ++r)
        P::run([&] { mandelbrot::compute<P>(frame_, frame(r).data(), leaf_); });
    });
  }
  std::string verify() override {
    for (std::int64_t r = 0; r < rounds_; ++r) {
      const std::string why = cpu_common::first_difference<std::uint32_t>(frame(r), expected_, "serial gives");
      if (!why.empty()) return "round " + std::to_string(r) + ": " + why;
    }
    return "";
  }
  std::string summary() override {
    const auto sum = std::accumulate(expected_.begin(), expected_.end(), std::uint64_t{0});
    return std::to_string(frame_.width) + " x " + std::to_string(frame_.height) + ", " + std::to_string(sum) +
           " iterations a round, " + std::to_string(rounds_) + " rounds";
  }

 private:
  std::span<std::uint32_t> frame(std::int64_t r) {
    return {counts_.data() + static_cast<std::size_t>(r) * pixels_, pixels_};
  }

  mandelbrot::frame frame_;
  std::int64_t leaf_, rounds_;
  std::size_t pixels_;
  std::vector<std::uint32_t> counts_, expected_;  // counts_: one frame per round
};

const bench::registrar registered{{
    "mandelbrot",
    "CATS (seed 002), Table 1 (Mandelbrot) and section 4.3: CPU-bound control",
    "Escape-time iteration counts of the Mandelbrot set over [-2, 0.5] x [-1.25, 1.25]; rows halved recursively "
    "by fork2 down to a leaf of rows; one frame per round.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto width = p.get("width", 64, 512, 2048, s, "pixels per row", {1, 1 << 16});
      const auto height = p.get("height", 64, 512, 2048, s, "rows", {1, 1 << 16});
      const auto max_iter = p.get("max_iter", 100, 500, 1000, s, "iterations at most per pixel", {1, 1 << 30});
      const auto leaf = p.get("leaf", 2, 4, 8, s, "rows a leaf computes serially", {1});
      return std::make_unique<mandelbrot_instance>(make_frame(width, height, static_cast<std::uint32_t>(max_iter)),
                                                   leaf, cpu_common::rounds(s, p));
    }}};

}  // namespace
