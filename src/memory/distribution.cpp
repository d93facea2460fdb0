// The predefined data distributions (locus/distribution.hpp).
#include "locus/distribution.hpp"

#include <stdexcept>
#include <string>

#include "locus/runtime.hpp"

namespace locus {

distribution::distribution(std::int64_t size, int places) : size_(size), places_(places) {
  if (size < 0)
    throw std::invalid_argument("locus::distribution: size must be >= 0 (iterations), got " + std::to_string(size));
  if (places < 1)
    throw std::invalid_argument("locus::distribution: places must be >= 1, got " + std::to_string(places));
}

block_distribution::block_distribution(std::int64_t size) : block_distribution(size, num_places()) {}
block_distribution::block_distribution(std::int64_t size, int places) : distribution(size, places) {}

int block_distribution::place_of(std::int64_t i) const {
  // The p with place_block(size, p, places).begin <= i < .end: begin(p) =
  // floor(p * size / places) <= i holds exactly for p < (i + 1) * places /
  // size, so p = ceil((i + 1) * places / size) - 1 (128-bit: no overflow).
  const auto n = static_cast<unsigned __int128>(size());
  const auto scaled = static_cast<unsigned __int128>(i + 1) * static_cast<unsigned>(places());
  return static_cast<int>((scaled + n - 1) / n) - 1;
}

int block_distribution::place_of(std::int64_t lo, std::int64_t hi) const {
  const int p = place_of(lo);
  return place_of(hi - 1) == p ? p : -1;
}

block_cyclic_distribution::block_cyclic_distribution(std::int64_t size, std::int64_t block)
    : block_cyclic_distribution(size, block, num_places()) {}

block_cyclic_distribution::block_cyclic_distribution(std::int64_t size, std::int64_t block, int places)
    : distribution(size, places), block_(block) {
  if (block < 1)
    throw std::invalid_argument("locus::block_cyclic_distribution: block must be >= 1 (iterations per block), got " +
                                std::to_string(block));
}

int block_cyclic_distribution::place_of(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t first = lo / block_;
  if ((hi - 1) / block_ != first) return -1;
  return static_cast<int>(first % places());
}

namespace detail {
int checked_place_of(const distribution& d, std::int64_t lo, std::int64_t hi) {
  const int place = d.place_of(lo, hi);
  if (place < -1 || place >= num_places())
    throw std::invalid_argument("locus::distribution::place_of(" + std::to_string(lo) + ", " + std::to_string(hi) +
                                ") returned " + std::to_string(place) + "; accepted: -1 (no place) or 0.." +
                                std::to_string(num_places() - 1) + " (the pool's places)");
  return place;
}
}  // namespace detail

}  // namespace locus
