#include "fiber/fiber.hpp"

#include <pthread.h>

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <cstring>
#include <system_error>


namespace locus::detail {
namespace bctx = boost::context::detail;

namespace {

// PROT_NONE below every stack. A frame up to this size always lands in it,
// even from the last byte of its stack (a 1 MiB local array; code built with
// -fstack-clash-protection probes each page and needs only one). It costs
// address space only: no memory, no extra mapping, and mapping a fiber takes
// the same time with it as with 64 KiB (docs/configuration.md).
constexpr std::size_t guard_region_bytes = 1024 * 1024;

// See reset_fiber.
constexpr std::uint32_t tsan_runs_per_context = 4096;

// Read by the fault handler (stack_guard.cpp): initial-exec, so that even
// a first access from a signal handler in a shared library allocates nothing.
[[gnu::tls_model("initial-exec")]] thread_local fiber* t_running = nullptr;

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

void start_context(fiber* f) { f->ctx = bctx::make_fcontext(f->stack_top(), f->stack_bytes(), f->start); }

}  // namespace

switch_msg* keep_past_switch(const switch_msg& msg) noexcept {
  static thread_local switch_msg slot;
  slot = msg;
  return &slot;
}

[[gnu::noinline]] fiber* running_fiber() noexcept { return t_running; }
[[gnu::noinline]] void set_running_fiber(fiber* f) noexcept { t_running = f; }

fiber* create_fiber(std::size_t stack_bytes, fiber_start_fn start) {
  const std::size_t page = page_size();
  const std::size_t usable = (stack_bytes + page - 1) / page * page;
  const std::size_t total = usable + guard_region_bytes;
  void* mem = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
  if (mem == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(),
                            "locus: cannot map a fiber stack of " + std::to_string(total) + " bytes");
  if (mprotect(mem, guard_region_bytes, PROT_NONE) != 0) {
    const int err = errno;
    munmap(mem, total);
    throw std::system_error(err, std::generic_category(), "locus: cannot protect a fiber stack guard");
  }
  auto* f = new fiber;
  f->mapping = static_cast<char*>(mem);
  f->mapping_bytes = total;
  f->guard_bytes = guard_region_bytes;
  f->tsan_fiber = sanitizers::create_fiber();
  f->start = start;
  // Successive fibers step through 61 different line offsets in a page.
  static std::atomic<unsigned> next_color{0};
  f->color_bytes = (next_color.fetch_add(1, std::memory_order_relaxed) % 61) * 64;
  start_context(f);
  return f;
}

void reset_fiber(fiber* f) {
  start_context(f);
  // A finished run never returns from its bottom frames (fiber_main, the
  // scheduling loop), and ThreadSanitizer keeps them on the fiber's shadow
  // call stack: reused as is, that stack grows by those few frames at every
  // run until it overflows TSan's 64K-entry buffer (after 2^16 to 2^17
  // spawns on one worker). A fresh TSan fiber empties it, but creating and
  // destroying one costs about 0.7 ms (measured), two hundred spawns'
  // worth; so the fiber gets a fresh one every tsan_runs_per_context runs,
  // which bounds the stale frames far below the buffer (a few per run) for
  // under 0.2 us per run. Reports show at most the top 255 frames, where
  // stale ones appear only below a shallower real stack.
  if constexpr (sanitizers::thread_sanitizer) {
    if (++f->tsan_runs == tsan_runs_per_context) {
      sanitizers::destroy_fiber(f->tsan_fiber);
      f->tsan_fiber = sanitizers::create_fiber();
      f->tsan_runs = 0;
    }
  }
  f->ctx_stale = false;
}

void retire_fiber(fiber* f) noexcept {
  // Frames abandoned on the old stack may have left ASan poison behind.
  sanitizers::unpoison(f->stack_low(), f->stack_bytes());
  f->asan_fake_stack = nullptr;
  f->ctx_stale = true;
}

void destroy_fiber(fiber* f) {
  if (f == nullptr || f->is_thread_stack) return;
  // Frames left on the stack leave ASan poison in its shadow, which would
  // outlive the mapping and wrongly flag whatever is mapped there next.
  sanitizers::unpoison(f->stack_low(), f->stack_bytes());
  sanitizers::destroy_fiber(f->tsan_fiber);
  munmap(f->mapping, f->mapping_bytes);
  delete f;
}

fiber* thread_stack_fiber() {
  auto* f = new fiber;
  f->is_thread_stack = true;
  f->tsan_fiber = sanitizers::current_fiber();
  // Its bounds, for AddressSanitizer when a switch comes back to it: a
  // thread that goes on running after that (one that entered an arena as a
  // worker, core/roots.cpp) must not be left with bounds ASan cannot place
  // its frames in. Unknown (0 bytes) if the thread cannot say.
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = nullptr;
    std::size_t bytes = 0;
    if (pthread_attr_getstack(&attr, &low, &bytes) == 0) {
      f->mapping = static_cast<char*>(low);
      f->mapping_bytes = bytes;
    }
    pthread_attr_destroy(&attr);
  }
  return f;
}


// ------------------------------------------------------------------- pools

fiber_pool::~fiber_pool() {
  for (fiber* f : all_) destroy_fiber(f);
}

fiber_pool& fiber_pool::shared(std::size_t stack_bytes, fiber_start_fn start) {
  // Called only while no pool runs (at runtime start), so no fiber of an
  // old pool is in use when it is replaced. Never destroyed: the implicit
  // runtime stops at program exit, after function-local statics would be
  // gone, and still returns its fibers here; the stacks go with the process.
  static fiber_pool* pool = nullptr;
  if (pool == nullptr || pool->stack_bytes_ != stack_bytes || pool->start_ != start) {
    delete pool;
    pool = new fiber_pool(stack_bytes, start);
  }
  return *pool;
}

fiber* fiber_pool::take_shared() {
  std::lock_guard lock(mutex_);
  if (shared_.empty()) return nullptr;
  fiber* f = shared_.back();
  shared_.pop_back();
  return f;
}

void fiber_pool::give_shared(std::vector<fiber*>& batch) {
  std::lock_guard lock(mutex_);
  shared_.insert(shared_.end(), batch.begin(), batch.end());
  batch.clear();
}

void fiber_pool::adopt(fiber* f) {
  std::lock_guard lock(mutex_);
  all_.push_back(f);
}

fiber* fiber_cache::take_slow() {
  if (fiber* f = pool_->take_shared()) return f;
  fiber* f = pool_->create();
  pool_->adopt(f);
  return f;
}

void fiber_cache::give_slow(fiber* f) {
  // Keep half: fibers freed here were often taken on another worker.
  std::vector<fiber*> half(local_.begin() + capacity / 2, local_.end());
  local_.resize(capacity / 2);
  pool_->give_shared(half);
  local_.push_back(f);
}

void fiber_cache::flush() { pool_->give_shared(local_); }

}  // namespace locus::detail
