// Placing memory on the NUMA nodes of places (NUMA-WS, seed
// 000_dfa13a53212046db, section III-A: "allocate the data on the same socket
// that the computation belongs to", with mmap and mbind).
//
// A place (locus::num_places(), LOCUS_PLACES) lives on one NUMA node: the
// node of its first core. Several places may share a node (places=core on a
// one-node machine: all node 0). Node numbers are the operating system's
// (as /sys/devices/system/node and numactl show them) when the pool runs on
// the host, and the virtual machine's with a virtual topology.
//
//   auto a = locus::alloc_on_place<double>(n, p);    // pages on place p's node
//   auto b = locus::alloc_interleaved<double>(n);    // round-robin over the places' nodes
//   auto c = locus::alloc_first_touch<double>(n);    // where the first writer runs
//   auto d = locus::alloc_partitioned<double>(n);    // block p on place p's node
//   auto [lo, hi] = locus::place_block(n, p, locus::num_places());  // d's block p
//   locus::move_to_places(std::span(v));             // an existing array, block p to place p
//   locus::move_interleaved(std::span(v));           // an existing array, round-robin
//   std::optional<int> node = locus::page_node(&a[0]);  // where the page lives
//
// Memory comes from mmap in whole pages and is bound with mbind(MPOL_BIND)
// or mbind(MPOL_INTERLEAVE) before any page exists, so the policy decides
// where each page goes when it is first written. Elements start as zero
// bytes and no constructor runs: constructing them here would touch every
// page from the calling thread. Hence T must be trivially copyable.
//
// MPOL_BIND, not MPOL_PREFERRED: a preferred node that is short of free
// memory makes the kernel put pages elsewhere without saying so, and the
// placement is what a NUMA experiment varies. The price is numactl
// --membind's: a bound node that runs out of memory is reclaimed (or the
// program is stopped by the out-of-memory killer) rather than spilled.
//
// The kernel is asked only when the answer can differ from first touch: on a
// machine with one NUMA node, a kernel without NUMA support, or a virtual
// topology (whose nodes are not the host's), the calls map the memory and
// leave it first-touch, which puts every page on node 0 (on the host's nodes,
// for a virtual topology). Under the simulator (LOCUS_ENGINE=sim) every
// placement call also sets the page homes of the simulated memory.
//
// Errors: a place outside 0..num_places()-1 throws std::invalid_argument
// naming the place and the accepted range; mmap or mbind failing throws
// std::system_error with the errno, naming the call, the size and the node;
// a size whose bytes do not fit in size_t throws std::length_error. Nothing
// falls back silently.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace locus {

// Elements [begin, end) of an array of n elements split into `places`
// contiguous blocks: block p is [p*n/places, (p+1)*n/places) (the same
// spreading as workers over places). Requires places >= 1 and
// 0 <= place < places. Exact for every n (no overflow).
struct block_range {
  std::size_t begin = 0;
  std::size_t end = 0;
};
constexpr block_range place_block(std::size_t n, int place, int places) noexcept {
  const auto p = static_cast<std::size_t>(place);
  const auto count = static_cast<std::size_t>(places);
  const std::size_t q = n / count;
  const std::size_t r = n % count;
  // p*n/count without forming p*n: p*(q*count + r)/count = p*q + p*r/count.
  return {p * q + p * r / count, (p + 1) * q + (p + 1) * r / count};
}

// The NUMA node holding place `place` (the node alloc_on_place binds to).
// Starts the pool if needed; throws std::invalid_argument for a bad place.
int place_node(int place);

// The NUMA node of the page holding `address`, or std::nullopt if that page
// has not been written yet (it has no frame of its own). Under the simulator
// this is the simulated page's home. Without NUMA support in the kernel
// every page is on node 0. Throws std::invalid_argument if `address` is not
// mapped.
std::optional<int> page_node(const void* address);

namespace detail {

// Owns whole pages from mmap; unmaps them when destroyed.
class page_mapping {
 public:
  page_mapping() = default;
  page_mapping(void* address, std::size_t bytes) noexcept : address_(address), bytes_(bytes) {}
  page_mapping(page_mapping&& other) noexcept
      : address_(std::exchange(other.address_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  page_mapping& operator=(page_mapping&& other) noexcept {
    page_mapping(std::move(other)).swap(*this);
    return *this;
  }
  ~page_mapping() { unmap(); }

  void* address() const noexcept { return address_; }
  std::size_t bytes() const noexcept { return bytes_; }  // a whole number of pages

  void swap(page_mapping& other) noexcept {
    std::swap(address_, other.address_);
    std::swap(bytes_, other.bytes_);
  }

 private:
  void unmap() noexcept;

  void* address_ = nullptr;
  std::size_t bytes_ = 0;
};

// The placement calls behind the templates below, on `count` elements of
// `element_bytes` bytes each (count == 0: an empty mapping, no system call).
page_mapping map_first_touch(std::size_t count, std::size_t element_bytes);
page_mapping map_on_place(std::size_t count, std::size_t element_bytes, int place);
page_mapping map_interleaved(std::size_t count, std::size_t element_bytes);
page_mapping map_partitioned(std::size_t count, std::size_t element_bytes);

}  // namespace detail

// An array of n elements on pages placed by one of the alloc_* calls below;
// owns its pages and unmaps them when destroyed. Move-only.
template <typename T>
class placed_array {
  static_assert(std::is_trivially_copyable_v<T>,
                "placed_array<T>: elements start as zero bytes and no constructor or destructor runs, "
                "so T must be trivially copyable");

 public:
  using value_type = T;

  placed_array() = default;
  // A moved-from array is empty.
  placed_array(placed_array&& other) noexcept
      : pages_(std::move(other.pages_)), size_(std::exchange(other.size_, 0)) {}
  placed_array& operator=(placed_array&& other) noexcept {
    pages_ = std::move(other.pages_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  T* data() noexcept { return static_cast<T*>(pages_.address()); }
  const T* data() const noexcept { return static_cast<const T*>(pages_.address()); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  std::span<T> span() noexcept { return {data(), size_}; }
  std::span<const T> span() const noexcept { return {data(), size_}; }

 private:
  template <typename U>
  friend placed_array<U> alloc_first_touch(std::size_t);
  template <typename U>
  friend placed_array<U> alloc_on_place(std::size_t, int);
  template <typename U>
  friend placed_array<U> alloc_interleaved(std::size_t);
  template <typename U>
  friend placed_array<U> alloc_partitioned(std::size_t);

  placed_array(detail::page_mapping pages, std::size_t size) noexcept
      : pages_(std::move(pages)), size_(size) {}

  detail::page_mapping pages_;
  std::size_t size_ = 0;
};

// n elements whose pages go where they are first written (the kernel's
// default policy). Needs no pool.
template <typename T>
placed_array<T> alloc_first_touch(std::size_t n) {
  return {detail::map_first_touch(n, sizeof(T)), n};
}

// n elements on the node of place `place` (mbind MPOL_BIND).
template <typename T>
placed_array<T> alloc_on_place(std::size_t n, int place) {
  return {detail::map_on_place(n, sizeof(T), place), n};
}

// n elements whose pages go round-robin over the nodes of the pool's places
// (mbind MPOL_INTERLEAVE over their distinct nodes).
template <typename T>
placed_array<T> alloc_interleaved(std::size_t n) {
  return {detail::map_interleaved(n, sizeof(T)), n};
}

// n elements split into num_places() blocks, block p (place_block(n, p,
// num_places())) on the node of place p. A page that straddles two blocks
// goes with the block holding its first byte.
template <typename T>
placed_array<T> alloc_partitioned(std::size_t n) {
  return {detail::map_partitioned(n, sizeof(T)), n};
}

// Moves the pages of memory that exists already (a std::vector, say) the
// way alloc_partitioned places new ones: block p of the elements
// (place_block) to place p's node, with mbind(MPOL_BIND, MPOL_MF_MOVE); the
// page straddling two blocks goes with the block holding its first byte,
// and the partial pages at either end go with the first and last blocks.
// Under the simulator it sets the pages' homes. Starts the pool if needed.
void move_to_places(void* data, std::size_t count, std::size_t element_bytes);
template <typename T>
void move_to_places(std::span<T> data) {
  move_to_places(static_cast<void*>(const_cast<std::remove_const_t<T>*>(data.data())), data.size(), sizeof(T));
}

// Moves the pages of memory that exists already the way alloc_interleaved
// places new ones: round-robin over the places' nodes (mbind(MPOL_INTERLEAVE,
// MPOL_MF_MOVE)), every page that holds one of the elements, the partial
// pages at either end included. Under the simulator it sets the pages'
// homes to page number modulo the machine's nodes. Starts the pool if
// needed.
void move_interleaved(void* data, std::size_t count, std::size_t element_bytes);
template <typename T>
void move_interleaved(std::span<T> data) {
  move_interleaved(static_cast<void*>(const_cast<std::remove_const_t<T>*>(data.data())), data.size(), sizeof(T));
}

}  // namespace locus
