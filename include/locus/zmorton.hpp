// The blocked Z-Morton layout of an n x n matrix (NUMA-WS, seed
// 000_dfa13a53212046db, section III-C "Simple Data Layout Transformation",
// figure 6b): the matrix is cut into b x b blocks, the blocks are laid out
// along a Z (Morton) curve, and the elements inside a block in row-major
// order.
//
// Why: divide-and-conquer matrix algorithms split a matrix into quadrants.
// In this layout every quadrant of an m x m sub-matrix (m >= 2b) is itself
// contiguous: quadrant q = 0, 1, 2, 3 (top-left, top-right, bottom-left,
// bottom-right) of the sub-matrix at offset p lies at p + q (m/2)^2. So a
// base case works on one contiguous block, which can be placed on one NUMA
// node and is read sequentially, and bits are interleaved only for block
// indices, never per element.
//
//   locus::zmorton_layout z(n, 32);          // throws std::invalid_argument
//   z.from_row_major(a.data(), az.data());   // az[z.offset(i, j)] == a[i * n + j]
//
// Accepted sizes: b a power of two and n = b * 2^k for some k >= 0 (so n is a
// power of two and n >= b), with n at most 2^31 so that n * n fits in 64 bits.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace locus {

// Moves bit k of x to bit 2k (the bits in between are zero), by the usual
// shift-and-mask steps that halve the distance each time; no BMI2 pdep.
constexpr std::uint64_t spread_bits(std::uint32_t x) noexcept {
  std::uint64_t v = x;
  v = (v | v << 16) & 0x0000ffff0000ffffull;
  v = (v | v << 8) & 0x00ff00ff00ff00ffull;
  v = (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
  v = (v | v << 2) & 0x3333333333333333ull;
  v = (v | v << 1) & 0x5555555555555555ull;
  return v;
}

// Position of cell (row, col) on the Z curve: the bits of row and col
// interleaved, the row bit above the column bit, so each 2 x 2 group is
// visited top-left, top-right, bottom-left, bottom-right.
constexpr std::uint64_t morton_index(std::uint32_t row, std::uint32_t col) noexcept {
  return spread_bits(row) << 1 | spread_bits(col);
}

class zmorton_layout {
 public:
  zmorton_layout(std::size_t n, std::size_t block) : n_(n), block_(block) {
    static_assert(sizeof(std::size_t) == 8, "offsets of n <= 2^31 need a 64-bit size_t");
    constexpr std::size_t max_n = std::size_t{1} << 31;
    if (!std::has_single_bit(block) || !std::has_single_bit(n) || n < block || n > max_n)
      throw std::invalid_argument("zmorton_layout: n = " + std::to_string(n) + ", block = " +
                                  std::to_string(block) +
                                  " not accepted: block must be a power of two and n = block * 2^k (k >= 0), "
                                  "i.e. n a power of two with block <= n <= 2^31");
    log_block_ = std::countr_zero(block);
  }

  std::size_t n() const noexcept { return n_; }
  std::size_t block() const noexcept { return block_; }
  std::size_t blocks_per_side() const noexcept { return n_ >> log_block_; }
  // Elements in the layout: n * n, with no padding.
  std::size_t size() const noexcept { return n_ * n_; }

  // Offset of the first element of block (bi, bj), 0 <= bi, bj < n / b.
  std::size_t block_offset(std::size_t bi, std::size_t bj) const noexcept {
    return morton_index(static_cast<std::uint32_t>(bi), static_cast<std::uint32_t>(bj)) << (2 * log_block_);
  }

  // Offset of element (i, j), 0 <= i, j < n.
  std::size_t offset(std::size_t i, std::size_t j) const noexcept {
    const std::size_t inside = block_ - 1;
    return block_offset(i >> log_block_, j >> log_block_) + ((i & inside) << log_block_) + (j & inside);
  }

  // Copies a row-major n x n matrix into this layout, one block row at a
  // time (z and row_major each hold n * n elements and do not overlap).
  template <class T>
  void from_row_major(const T* row_major, T* z) const {
    for_each_block_row([&](std::size_t row_major_at, std::size_t z_at) {
      std::copy_n(row_major + row_major_at, block_, z + z_at);
    });
  }

  // The inverse of from_row_major.
  template <class T>
  void to_row_major(const T* z, T* row_major) const {
    for_each_block_row([&](std::size_t row_major_at, std::size_t z_at) {
      std::copy_n(z + z_at, block_, row_major + row_major_at);
    });
  }

 private:
  // Calls copy(row-major offset, layout offset) for every row of every
  // block (b elements each).
  template <class Copy>
  void for_each_block_row(Copy&& copy) const {
    for (std::size_t bi = 0; bi < blocks_per_side(); ++bi)
      for (std::size_t bj = 0; bj < blocks_per_side(); ++bj) {
        const std::size_t start = block_offset(bi, bj);
        for (std::size_t r = 0; r < block_; ++r)
          copy((bi * block_ + r) * n_ + bj * block_, start + r * block_);
      }
  }

  std::size_t n_, block_;
  int log_block_ = 0;
};

}  // namespace locus
