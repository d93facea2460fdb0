// strassen and strassen-z in the suite (NUMA-WS, seed 000, section V,
// figure 7: 8k x 8k matrices, 16 x 16 base case). The kernel is in
// kernel.hpp; inputs and verification are shared with matmul
// (matmul/instance.hpp).
#include <limits>

#include "matmul/instance.hpp"
#include "strassen/kernel.hpp"

namespace {

struct seven_way {
  // The kernel overwrites C; NaN makes an element it never writes fail.
  static constexpr double initial_c = std::numeric_limits<double>::quiet_NaN();
  // Strassen adds in another order than the triple loop and forms sums of
  // quadrants, so rounding differs from the reference. Measured on these
  // inputs (entries uniform in [-1, 1)), block 16, |C - reference| / max |C|
  // is about 3e-14 at n = 1024, 2e-13 at 4096 and 4e-13 at 8192, growing
  // 2-3x per doubling of n. 1e-8 leaves a margin of 10^4 and more, while a
  // misplaced or missing product, which moves elements by about max |C| / 5,
  // still fails.
  static constexpr double tolerance = 1e-8;
  template <class P, class M>
  static void run(M a, M b, M c, std::size_t n, std::size_t block) {
    strassen::strassen<P>(a, b, c, n, block);
  }
};

// tiny: two levels of recursion; quick: about half a second serially on one
// core of the 2-core development machine. Every size uses the paper's 16 x 16
// base case. The paper's 8k x 8k fits in memory (3 GB peak) but takes about
// 150 s serially there, so full is the largest size under a minute or two:
// 4096 (about 20 s); --param n=8192 runs the paper's size.
constexpr matmul::defaults sides{64, 1024, 4096};
constexpr matmul::defaults blocks{16, 16, 16};
constexpr std::int64_t check_rows_full = 128;
const char* const side_meaning =
    "side of the square matrices, a power of two (NUMA-WS: 8k, ~150 s serially on the 2-core development "
    "machine; full uses 4096)";

const bench::registrar row_major{{
    "strassen",
    "NUMA-WS (seed 000_dfa13a53212046db), section V: strassen, from MIT Cilk-5",
    "C = A * B by Strassen's algorithm on row-major matrices: seven half-size products of quadrant sums, formed "
    "in temporaries and run in parallel, then combined; a classic block multiply below the block size.",
    false,
    [](bench::size_class s, bench::params& p) {
      return matmul::make_instance<seven_way, matmul::row_major>(p, s, sides, side_meaning, blocks, check_rows_full);
    }}};

const bench::registrar z_morton{{
    "strassen-z",
    "NUMA-WS (seed 000_dfa13a53212046db), sections III-C (blocked Z-Morton layout, fig. 6b) and V: strassen-z",
    "strassen on the blocked Z-Morton layout: quadrants and temporaries are contiguous, so sums are flat loops "
    "and the base case is one block, row-major inside.",
    false,
    [](bench::size_class s, bench::params& p) {
      return matmul::make_instance<seven_way, matmul::zmorton>(p, s, sides, side_meaning, blocks, check_rows_full);
    }}};

}  // namespace
