// The asymmetric fence of the deque and its steal sessions (see
// include/locus/detail/deque.hpp).
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "core/fences.hpp"
#include "locus/detail/deque.hpp"

namespace locus::detail {

namespace {
// Symmetric mode's permanent request: far above any number of threads.
constexpr std::uint32_t symmetric_request = std::uint32_t{1} << 30;
// A session ends once its holder has fenced this many pops of its own:
// about 8 us of fences on the machines measured (a fenced pop costs some
// 8 ns more), as much as one membarrier costs there. A thread whose own
// work pops this often is in a fine-grained computation where everyone's
// fences cost more than its next session's membarrier.
constexpr std::uint32_t steal_session_pops = 1024;

bool g_asymmetric = false;
// This thread's session: the pops it may still fence before the session
// ends; nonzero while it is counted in g_pop_fence_requests.
thread_local std::uint32_t t_session_pops_left = 0;

long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

// Ends this thread's session: it no longer asks the owners to fence.
void leave_session() noexcept {
  t_session_pops_left = 0;
  g_pop_fence_requests.fetch_sub(1, std::memory_order_release);
}
}  // namespace

std::atomic<std::uint32_t> g_pop_fence_requests{symmetric_request};

void deque_thief_fence() noexcept {
  if (g_asymmetric && t_session_pops_left == 0) {
    g_pop_fence_requests.fetch_add(1, std::memory_order_seq_cst);
    // Registered at start-up, so this cannot fail; if it ever does, pops
    // that read the count before it may not have fenced: stop rather
    // than race.
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) __builtin_trap();
    t_session_pops_left = steal_session_pops;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void deque_owner_fence_for_thieves() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (t_session_pops_left != 0 && --t_session_pops_left == 0) [[unlikely]]
    leave_session();  // the session's last fenced pop
}

void end_stealing() noexcept {
  if (t_session_pops_left != 0) leave_session();
}

bool enable_asymmetric_fence() noexcept {
  if (g_asymmetric) return true;
  const long supported = membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ||
      (supported & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
    return false;
  if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) return false;
  g_asymmetric = true;
  g_pop_fence_requests.fetch_sub(symmetric_request, std::memory_order_seq_cst);
  return true;
}

void use_symmetric_fence() noexcept {
  if (!g_asymmetric) return;
  g_asymmetric = false;
  g_pop_fence_requests.fetch_add(symmetric_request, std::memory_order_seq_cst);
}

bool asymmetric_fence_active() noexcept { return g_asymmetric; }

}  // namespace locus::detail
