// Turns a fault in a fiber's guard region into a clear message instead of a
// bare segmentation fault. The handler runs on an alternate signal stack
// (the faulting stack is exhausted) and uses only async-signal-safe calls.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/fiber.hpp"

namespace locus::detail {
namespace {

std::atomic<std::size_t> g_configured_stack{0};
struct sigaction g_previous_segv {};
struct sigaction g_previous_bus {};
thread_local void* t_alt_stack = nullptr;
constexpr std::size_t alt_stack_bytes = 64 * 1024;

void write_all(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const fiber* f = running_fiber();
  const char* addr = static_cast<const char*>(info->si_addr);
  if (f != nullptr && !f->is_thread_stack && addr >= f->mapping && addr < f->stack_low()) {
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "locus: stack overflow in a task: the fiber stack of %zu bytes is exhausted "
                  "(fault at %p in its guard region). Raise LOCUS_STACK_SIZE or "
                  "runtime_options::stack_size (now %zu bytes).\n",
                  f->stack_bytes(), info->si_addr, g_configured_stack.load(std::memory_order_relaxed));
    write_all(msg);
    signal(SIGABRT, SIG_DFL);
    abort();
  }
  // Not ours: hand it to whoever was installed before, or die as usual.
  const struct sigaction& prev = sig == SIGSEGV ? g_previous_segv : g_previous_bus;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction != nullptr) return prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    return prev.sa_handler(sig);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_stack_guard(std::size_t configured_stack_bytes) {
  g_configured_stack.store(configured_stack_bytes, std::memory_order_relaxed);
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous_segv);
  sigaction(SIGBUS, &sa, &g_previous_bus);
}

void install_alt_stack_for_thread() {
  if (t_alt_stack != nullptr) return;
  t_alt_stack = std::malloc(alt_stack_bytes);
  if (t_alt_stack == nullptr) return;  // overflow then dies without the message
  stack_t ss{};
  ss.ss_sp = t_alt_stack;
  ss.ss_size = alt_stack_bytes;
  sigaltstack(&ss, nullptr);
}

void remove_alt_stack_for_thread() {
  if (t_alt_stack == nullptr) return;
  stack_t ss{};
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
  std::free(t_alt_stack);
  t_alt_stack = nullptr;
}

}  // namespace locus::detail
