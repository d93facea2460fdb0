// The registered poll services (include/locus/detail/poll_service.hpp) and
// the calls the scheduler makes into them. Services are only ever added, so
// a worker reads the count (acquire) and the slots below it without a lock.
#include "core/poll_services.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>

#include "core/runtime_state.hpp"

namespace locus::detail {
namespace {

constexpr int max_services = 4;
std::array<poll_service*, max_services> g_services{};
std::atomic<int> g_count{0};
std::mutex g_adding;

}  // namespace

void add_poll_service(poll_service& service) {
  const std::lock_guard lock(g_adding);
  const int n = g_count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i)
    if (g_services[static_cast<std::size_t>(i)] == &service) return;
  if (n == max_services)
    throw std::length_error("locus: at most " + std::to_string(max_services) + " poll services may be registered");
  g_services[static_cast<std::size_t>(n)] = &service;
  g_count.store(n + 1, std::memory_order_release);  // publishes the slot
}

bool poll_services_registered() noexcept { return g_count.load(std::memory_order_relaxed) != 0; }

void poll_services(worker& w) noexcept {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) g_services[static_cast<std::size_t>(i)]->poll();
  w.last_poll_ns = w.rt->eng->now_ns();
}

void poll_services_if_due(worker& w) noexcept {
  if (!poll_services_registered()) return;
  if (w.rt->eng->now_ns() - w.last_poll_ns >= tunables::service_poll_ns) poll_services(w);
}

bool poll_services_pending() noexcept {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (g_services[static_cast<std::size_t>(i)]->pending()) return true;
  return false;
}

void poll_services_pool_stopping() noexcept {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) g_services[static_cast<std::size_t>(i)]->pool_stopping();
}

}  // namespace locus::detail
