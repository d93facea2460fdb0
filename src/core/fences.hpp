#pragma once

namespace locus::detail {

// Switches the deques to the asymmetric fence if the kernel supports
// membarrier(PRIVATE_EXPEDITED); returns whether it did. Only while no
// deque is in use (at pool start).
bool enable_asymmetric_fence() noexcept;
void use_symmetric_fence() noexcept;
bool asymmetric_fence_active() noexcept;
// The calling thread stops stealing for now: owners need not fence for it
// any more, and its next steal attempt pays membarrier again.
void end_stealing() noexcept;

}  // namespace locus::detail
