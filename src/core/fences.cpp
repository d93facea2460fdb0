// The asymmetric fence of the deque (see include/locus/detail/deque.hpp).
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "core/fences.hpp"
#include "locus/detail/deque.hpp"

namespace locus::detail {

bool g_deque_owner_fences = true;

namespace {
long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }
}  // namespace

void deque_heavy_barrier() noexcept {
  if (g_deque_owner_fences) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  } else if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
    // Registered at start-up, so this cannot fail; if it ever does, a full
    // fence here alone would not be enough, so stop rather than race.
    __builtin_trap();
  }
}

bool enable_asymmetric_fence() noexcept {
  const long supported = membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ||
      (supported & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
    return false;
  if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) return false;
  g_deque_owner_fences = false;
  return true;
}

void use_symmetric_fence() noexcept { g_deque_owner_fences = true; }

bool asymmetric_fence_active() noexcept { return !g_deque_owner_fences; }

}  // namespace locus::detail
