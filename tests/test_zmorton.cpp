// The blocked Z-Morton layout (NUMA-WS section III-C, figure 6b): offsets
// are a bijection, blocks are contiguous, row-major inside and in Z order,
// conversions round-trip, and bad sizes are refused with a message.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <locus/zmorton.hpp>

namespace {

// (n, block) pairs covering one block, one element per block, and the sizes
// in between.
const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
    {1, 1}, {2, 1}, {8, 1}, {8, 2}, {16, 4}, {32, 8}, {64, 16}, {64, 64}, {128, 32}};

// Bit interleaving done the slow, obvious way.
std::uint64_t interleave_slowly(std::uint32_t row, std::uint32_t col) {
  std::uint64_t z = 0;
  for (int bit = 0; bit < 32; ++bit) {
    z |= static_cast<std::uint64_t>(col >> bit & 1) << (2 * bit);
    z |= static_cast<std::uint64_t>(row >> bit & 1) << (2 * bit + 1);
  }
  return z;
}

std::string error_of(std::size_t n, std::size_t block) {
  try {
    locus::zmorton_layout z(n, block);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ZMorton, MortonIndexInterleavesBits) {
  EXPECT_EQ(locus::morton_index(0xffffffffu, 0), 0xaaaaaaaaaaaaaaaaull);
  EXPECT_EQ(locus::morton_index(0, 0xffffffffu), 0x5555555555555555ull);
  std::uint32_t x = 12345;
  for (int k = 0; k < 1000; ++k) {
    x = x * 1664525u + 1013904223u;
    const std::uint32_t y = x * 2654435761u + 7;
    EXPECT_EQ(locus::morton_index(x, y), interleave_slowly(x, y)) << x << ", " << y;
  }
}

TEST(ZMorton, OffsetsAreABijection) {
  for (auto [n, b] : shapes) {
    const locus::zmorton_layout z(n, b);
    ASSERT_EQ(z.size(), n * n);
    std::vector<bool> seen(n * n, false);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t at = z.offset(i, j);
        ASSERT_LT(at, n * n) << "n=" << n << " b=" << b << " (" << i << ", " << j << ")";
        ASSERT_FALSE(seen[at]) << "n=" << n << " b=" << b << " offset " << at << " taken twice";
        seen[at] = true;
      }
  }
}

TEST(ZMorton, BlocksAreContiguousRowMajorAndInZOrder) {
  for (auto [n, b] : shapes) {
    const locus::zmorton_layout z(n, b);
    for (std::size_t bi = 0; bi < z.blocks_per_side(); ++bi)
      for (std::size_t bj = 0; bj < z.blocks_per_side(); ++bj) {
        const std::size_t start = z.block_offset(bi, bj);
        ASSERT_EQ(start, interleave_slowly(static_cast<std::uint32_t>(bi), static_cast<std::uint32_t>(bj)) * b * b);
        for (std::size_t r = 0; r < b; ++r)
          for (std::size_t c = 0; c < b; ++c)
            ASSERT_EQ(z.offset(bi * b + r, bj * b + c), start + r * b + c)
                << "n=" << n << " b=" << b << " block (" << bi << ", " << bj << ")";
      }
  }
  // The Z curve over a 4 x 4 grid of blocks, as drawn in figure 6b.
  const locus::zmorton_layout z(8, 2);
  const std::size_t expected[4][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}};
  for (std::size_t bi = 0; bi < 4; ++bi)
    for (std::size_t bj = 0; bj < 4; ++bj) EXPECT_EQ(z.block_offset(bi, bj), expected[bi][bj] * 4);
}

TEST(ZMorton, QuadrantsAreContiguous) {
  // What the recursive kernels rely on: quadrant q of an m x m sub-matrix at
  // offset p occupies [p + q (m/2)^2, p + (q + 1) (m/2)^2).
  const std::size_t n = 64, b = 4;
  const locus::zmorton_layout z(n, b);
  for (std::size_t m = n; m >= 2 * b; m /= 2)
    for (std::size_t top = 0; top < n; top += m)
      for (std::size_t left = 0; left < n; left += m) {
        const std::size_t p = z.offset(top, left), h = m / 2;
        for (std::size_t q = 0; q < 4; ++q)
          for (std::size_t i = 0; i < h; ++i)
            for (std::size_t j = 0; j < h; ++j) {
              const std::size_t at = z.offset(top + (q / 2) * h + i, left + (q % 2) * h + j);
              ASSERT_GE(at, p + q * h * h);
              ASSERT_LT(at, p + (q + 1) * h * h);
            }
      }
}

TEST(ZMorton, RowMajorRoundTrip) {
  for (auto [n, b] : shapes) {
    const locus::zmorton_layout z(n, b);
    std::vector<long> row_major(n * n), in_z(n * n, -1), back(n * n, -1);
    std::iota(row_major.begin(), row_major.end(), 1000);
    z.from_row_major(row_major.data(), in_z.data());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) ASSERT_EQ(in_z[z.offset(i, j)], row_major[i * n + j]);
    z.to_row_major(in_z.data(), back.data());
    EXPECT_EQ(back, row_major) << "n=" << n << " b=" << b;
  }
}

TEST(ZMorton, InvalidSizesThrowWithMessage) {
  const std::pair<std::size_t, std::size_t> bad[] = {
      {0, 1}, {8, 0}, {12, 4}, {48, 16}, {64, 3}, {8, 16}, {std::size_t{1} << 32, 1}};
  for (auto [n, b] : bad) {
    const std::string msg = error_of(n, b);
    ASSERT_FALSE(msg.empty()) << "n=" << n << " b=" << b << " was accepted";
    EXPECT_NE(msg.find("n = " + std::to_string(n) + ", block = " + std::to_string(b)), std::string::npos) << msg;
    EXPECT_NE(msg.find("block must be a power of two and n = block * 2^k"), std::string::npos) << msg;
  }
  EXPECT_EQ(error_of(std::size_t{1} << 31, 1 << 10), "");
}
