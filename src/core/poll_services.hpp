// The scheduler's side of the poll services
// (include/locus/detail/poll_service.hpp): when workers poll, whether
// sleepers must nap, the pool's stop.
#pragma once

#include "locus/detail/poll_service.hpp"

namespace locus::detail {

struct worker;

bool poll_services_registered() noexcept;
// Polls every service and notes the time on the worker.
void poll_services(worker& w) noexcept;
// Polls when the worker's last poll is older than tunables::service_poll_ns.
void poll_services_if_due(worker& w) noexcept;
// Whether a task waits on some service.
bool poll_services_pending() noexcept;
void poll_services_pool_stopping() noexcept;

}  // namespace locus::detail
