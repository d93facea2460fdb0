// A deterministic heap for simulated runs.
//
// The simulator's results depend on where the memory a task touches sits
// within its pages (which cache lines and pages its arrays share; see
// docs/simulator.md, Determinism). glibc places a block wherever its heap has
// room, which depends on what the process allocated and freed before, and on
// timing between threads. So when locus-bench runs on the simulator
// (use_deterministic_heap(), called before any benchmark is built), it
// replaces the global operator new with an allocator whose addresses depend
// only on the sequence of allocations:
//   - blocks of 64 KiB and more are mapped afresh with mmap, at offset 0 of
//     a page, and the simulator forgets their pages when they are freed;
//   - smaller blocks come from size classes of 16 bytes, carved in order
//     from 4 MiB mapped chunks and reused last-freed first;
//   - over-aligned blocks (alignas(64) types) are large blocks whatever
//     their size.
// The sequence itself repeats: the simulation thread and the runner's
// thread never allocate at the same time (the runner waits for the
// simulation to be quiescent before it prepares a run). Blocks allocated
// before the switch go back to malloc. With real threads nothing changes:
// every block goes to malloc.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include <locus/annotate.hpp>
#include <locus_support/malloc_allocator.hpp>

namespace bench {
void use_deterministic_heap();
}

namespace {

constexpr std::size_t large_block = 64 * 1024;
constexpr std::size_t granule = 16;
constexpr std::size_t header = 16;  // the size class, before each small block
constexpr std::size_t chunk_bytes = 4u << 20;

using locus_support::malloc_allocator;  // as the simulator's
template <class T>
using malloc_vector = std::vector<T, malloc_allocator<T>>;

struct large {
  char* address;
  std::size_t bytes;
};

// Its own bookkeeping allocates with malloc, so it never recurses.
struct heap {
  std::mutex mutex;
  std::atomic<bool> on{false};
  malloc_vector<char*> chunks;   // sorted by address
  char* bump = nullptr;
  char* bump_end = nullptr;
  malloc_vector<malloc_vector<char*>> free_lists = malloc_vector<malloc_vector<char*>>(large_block / granule + 1);
  malloc_vector<large> larges;   // sorted by address

  bool owns_small(const char* p) const {
    auto it = std::upper_bound(chunks.begin(), chunks.end(), p, std::less<const char*>());
    return it != chunks.begin() && p < *(it - 1) + chunk_bytes;
  }
};

heap& the_heap() {
  // Built in place (operator new would call back here) and never destroyed:
  // blocks outlive static destructors.
  alignas(heap) static unsigned char storage[sizeof(heap)];
  static heap* h = new (storage) heap;
  return *h;
}

void* map(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void* allocate(std::size_t bytes) {
  heap& h = the_heap();
  if (!h.on.load(std::memory_order_relaxed)) {
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    throw std::bad_alloc();
  }
  std::lock_guard lock(h.mutex);
  if (bytes >= large_block) {
    auto* p = static_cast<char*>(map(bytes));
    h.larges.insert(std::upper_bound(h.larges.begin(), h.larges.end(), p,
                                     [](const char* a, const large& b) { return a < b.address; }),
                    large{p, bytes});
    return p;
  }
  const std::size_t cls = (std::max<std::size_t>(bytes, 1) + granule - 1) / granule;
  auto& list = h.free_lists[cls];
  if (!list.empty()) {
    char* p = list.back();
    list.pop_back();
    return p;
  }
  const std::size_t need = header + cls * granule;
  if (h.bump == nullptr || static_cast<std::size_t>(h.bump_end - h.bump) < need) {
    auto* c = static_cast<char*>(map(chunk_bytes));
    h.chunks.insert(std::upper_bound(h.chunks.begin(), h.chunks.end(), c), c);
    h.bump = c;
    h.bump_end = c + chunk_bytes;
  }
  char* block = h.bump + header;
  *reinterpret_cast<std::size_t*>(h.bump) = cls;
  h.bump += need;
  return block;
}

void release(void* pointer) noexcept {
  if (pointer == nullptr) return;
  auto* p = static_cast<char*>(pointer);
  heap& h = the_heap();
  if (!h.on.load(std::memory_order_relaxed)) return std::free(p);  // real threads: malloc only
  std::size_t large_bytes = 0;
  {
    std::lock_guard lock(h.mutex);
    if (h.owns_small(p)) {
      const std::size_t cls = *reinterpret_cast<const std::size_t*>(p - header);
      h.free_lists[cls].push_back(p);
      return;
    }
    auto it = std::lower_bound(h.larges.begin(), h.larges.end(), p,
                               [](const large& a, const char* b) { return a.address < b; });
    if (it == h.larges.end() || it->address != p) return std::free(p);
    large_bytes = it->bytes;
    h.larges.erase(it);
  }
  // The simulator forgets the pages before they are unmapped: a block
  // mapped at the same address later is new memory to it, not the old
  // block's simulated pages (whether the kernel reuses the address depends
  // on where address-space randomization put the mappings). Outside the
  // lock: from the runner's thread this waits for the simulation to be
  // quiescent, and a simulated task may be waiting for the lock.
  locus::detail::simulate_forget_pages(p, large_bytes);
  munmap(p, large_bytes);
}

}  // namespace

void bench::use_deterministic_heap() {
  heap& h = the_heap();
  h.on.store(true, std::memory_order_relaxed);
}

// Over-aligned types (alignas(64) and more): glibc's aligned allocation
// would put them where its heap has room, so on the simulator each is a
// large block, mapped afresh at offset 0 of a page whatever its size (they
// are few: per-worker and per-graph structures, arrays of padded partial
// sums).
static void* allocate_aligned(std::size_t bytes, std::align_val_t alignment) {
  const auto align = static_cast<std::size_t>(alignment);
  if (the_heap().on.load(std::memory_order_relaxed) && align <= 4096)
    return allocate(std::max(bytes, large_block));
  if (void* p = std::aligned_alloc(align, (std::max<std::size_t>(bytes, 1) + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t& tag) noexcept { return operator new(bytes, tag); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

void* operator new(std::size_t bytes, std::align_val_t align) { return allocate_aligned(bytes, align); }
void* operator new[](std::size_t bytes, std::align_val_t align) { return allocate_aligned(bytes, align); }
void* operator new(std::size_t bytes, std::align_val_t align, const std::nothrow_t&) noexcept {
  try {
    return allocate_aligned(bytes, align);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return operator new(bytes, align, tag);
}
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
