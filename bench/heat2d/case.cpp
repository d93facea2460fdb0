// heat2d: the ADWS paper's Heat2D (seed 003, section 6.2), the five-point
// stencil of kernel.hpp by four-way recursive division of the grid, checked
// bit for bit against the serial backend's result (computed once).
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "common/places.hpp"
#include "heat2d/kernel.hpp"

namespace {

class heat2d_instance final : public bench::instance {
 public:
  heat2d_instance(std::int64_t side, std::int64_t pad, std::int64_t cutoff, std::int64_t steps)
      : g_{side, side + 2 + pad, cutoff}, steps_(steps), even_(doubles()), odd_(doubles()) {
    prepare();
    const double* final_state = heat2d::run_steps<bench::serial_backend>(even_.data(), odd_.data(), g_, steps_);
    reference_.assign(final_state, final_state + doubles());
  }

  // Every cell, boundary included, starts in [1, 2] in a pattern that varies
  // in both directions; the padding is 0 and never read. Both grids get it
  // and are placed in blocks of rows (bench::place_blocks; +interleave: the
  // paper's interleaved pages).
  void prepare() override {
    const std::int64_t rows = g_.side + 2, cols = g_.side + 2;
    for (std::vector<double>* grid : {&even_, &odd_})
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < g_.ld; ++j)
          (*grid)[static_cast<std::size_t>(i * g_.ld + j)] =
              j < cols ? 1.0 + static_cast<double>((7 * i + 13 * j) % 17) / 16.0 : 0.0;
    bench::place_blocks(std::span(even_));
    bench::place_blocks(std::span(odd_));
    result_ = nullptr;
  }

  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { result_ = heat2d::run_steps<P>(even_.data(), odd_.data(), g_, steps_); });
  }

  // No reductions, and every cell is computed by one expression whichever
  // worker runs it: the result must equal the serial one bit for bit.
  std::string verify() override {
    if (result_ == nullptr) return "no result";
    std::int64_t wrong = 0, first = -1;
    for (std::int64_t c = 0; c < doubles(); ++c)
      if (result_[c] != reference_[static_cast<std::size_t>(c)]) {
        if (first < 0) first = c;
        ++wrong;
      }
    if (wrong == 0) return "";
    std::ostringstream why;
    why.precision(17);
    why << wrong << " of " << doubles() << " cells differ from the serial result; first at row " << first / g_.ld
        << ", column " << first % g_.ld << ": " << result_[first] << ", expected "
        << reference_[static_cast<std::size_t>(first)];
    return why.str();
  }

  std::string summary() override {
    const double checksum = result_ == nullptr ? 0.0 : std::accumulate(result_, result_ + doubles(), 0.0);
    std::ostringstream s;
    s.precision(12);
    s << g_.side << "x" << g_.side << " interior, " << steps_ << " steps, cutoff " << g_.cutoff << ", checksum "
      << checksum;
    return s.str();
  }

 private:
  std::int64_t doubles() const { return (g_.side + 2) * g_.ld; }

  heat2d::grid_shape g_;
  std::int64_t steps_;
  std::vector<double> even_, odd_, reference_;
  const double* result_ = nullptr;
};

const bench::registrar registered{{
    "heat2d",
    "ADWS (seed 003), section 6.2: Heat2D (four-way recursive division, cutoff 64 x 64, 50 iterations, 256-byte "
    "row padding)",
    "Five-point heat stencil with double buffering; each time step divides the square grid recursively into four "
    "equal subgrids, in parallel, down to a cutoff (work hints: cells; footprints: both grids' cells).",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      const auto side = p.get("n", 128, 1024, 8192, s,
                              "interior cells per side; two grids of (n + 2) x (n + 2 + pad) doubles (full: 8192, "
                              "1 GiB; the paper's text gives no largest Heat2D size)",
                              {1, 1 << 20});
      const auto pad = p.get("pad", 32, 32, 32, s, "padding doubles per row (paper: 256 bytes = 32 doubles)",
                             {0, 1 << 20});
      const auto cutoff = p.get("cutoff", 16, 64, 64, s,
                                "a subgrid of at most cutoff x cutoff cells is one task (paper: 64)", {1});
      const auto steps = p.get("steps", 4, 50, 50, s, "time steps (paper: 50)", {0});
      return std::make_unique<heat2d_instance>(side, pad, cutoff, steps);
    }}};

}  // namespace
