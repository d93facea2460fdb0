// matmul and matmul-z in the suite (NUMA-WS, seed 000, section V, figure 7:
// 4k x 4k matrices, 32 x 32 base case). The kernel is in kernel.hpp, inputs
// and verification in instance.hpp.
#include "matmul/instance.hpp"

namespace {

struct eight_way {
  // The kernel accumulates, C += A * B, into a C cleared before each run.
  static constexpr double initial_c = 0.0;
  // Every element gets its products in increasing k on every backend, as in
  // the reference, so results are expected to be identical; the tolerance
  // only allows for a compiler that contracts a * b + c differently in the
  // kernel and in the reference.
  static constexpr double tolerance = 1e-9;
  template <class P, class M>
  static void run(M a, M b, M c, std::size_t n, std::size_t block) {
    matmul::matmul<P>(a, b, c, n, block);
  }
};

// tiny: two levels of recursion; quick: about 0.6 s serially on one core of
// the 2-core development machine; full: the paper's size and base case
// (about 40 s serially there).
constexpr matmul::defaults sides{64, 1024, 4096};
constexpr matmul::defaults blocks{16, 32, 32};
constexpr std::int64_t check_rows_full = 128;
const char* const side_meaning = "side of the square matrices, a power of two (full: NUMA-WS's 4k)";

const bench::registrar row_major{{
    "matmul",
    "NUMA-WS (seed 000_dfa13a53212046db), section V: matmul, from MIT Cilk-5",
    "C += A * B by eight-way divide and conquer with no temporaries on row-major matrices: the four quadrant "
    "products that write distinct quadrants of C run in parallel, then the other four.",
    false,
    [](bench::size_class s, bench::params& p) {
      return matmul::make_instance<eight_way, matmul::row_major>(p, s, sides, side_meaning, blocks, check_rows_full);
    }}};

const bench::registrar z_morton{{
    "matmul-z",
    "NUMA-WS (seed 000_dfa13a53212046db), sections III-C (blocked Z-Morton layout, fig. 6b) and V: matmul-z",
    "matmul on the blocked Z-Morton layout: every quadrant is contiguous and the base case is one block, "
    "row-major inside.",
    false,
    [](bench::size_class s, bench::params& p) {
      return matmul::make_instance<eight_way, matmul::zmorton>(p, s, sides, side_meaning, blocks, check_rows_full);
    }}};

}  // namespace
