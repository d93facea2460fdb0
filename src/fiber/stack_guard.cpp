// Turns a stack overflow in a task into a clear message instead of a bare
// segmentation fault. The handler runs on an alternate signal stack (the
// faulting stack is exhausted).
//
// Which faults are overflows of the running fiber's stack:
//   - an access to its guard region (gradual recursion, or a frame smaller
//     than the guard), or
//   - an access below the stack while the interrupted stack pointer is below
//     it too, within a red zone of the access: a frame larger than the guard
//     jumped over it (a 1 MiB local array). Code compiled with
//     -fstack-clash-protection probes every page it allocates and always
//     lands in the guard instead.
//
// Everything else is not ours and goes at once to the disposition that was
// in place before locus (the default action, or a sanitizer's handler): the
// handler restores it and returns, so the faulting instruction faults again
// under it. It takes no lock and allocates nothing: only sigaction, write
// and raise, all async-signal-safe, and a formatter over a stack buffer.
// An overflow also ends that way (the default action for the signal, after
// the message), so the process dies of the signal, with a core if enabled.
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fiber/fiber.hpp"

namespace locus::detail {
namespace {

std::atomic<std::size_t> g_configured_stack{0};
struct sigaction g_previous_segv {};
struct sigaction g_previous_bus {};
thread_local void* t_alt_stack = nullptr;
constexpr std::size_t alt_stack_bytes = 64 * 1024;
// How far below the stack pointer an access still belongs to the frame
// being built: the x86-64 red zone is 128 bytes; a page covers every ABI.
constexpr std::uintptr_t below_sp_slack = 4096;

// A message assembled on the signal stack: no allocation, no locale.
class message {
 public:
  message& text(const char* s) {
    while (*s != '\0' && len_ < sizeof buf_) buf_[len_++] = *s++;
    return *this;
  }
  message& number(std::uintptr_t v, unsigned base) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v != 0);
    if (base == 16) text("0x");
    while (n > 0 && len_ < sizeof buf_) buf_[len_++] = digits[--n];
    return *this;
  }
  void write_to_stderr() const {
    std::size_t done = 0;
    while (done < len_) {
      const ssize_t w = write(STDERR_FILENO, buf_ + done, len_ - done);
      if (w <= 0) return;
      done += static_cast<std::size_t>(w);
    }
  }

 private:
  char buf_[512];
  std::size_t len_ = 0;
};

std::uintptr_t interrupted_sp([[maybe_unused]] const void* context) {
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.sp);
#else
  return 0;  // only guard hits are recognized
#endif
}

enum class fault_kind { not_ours, in_guard, below_guard };

fault_kind classify(const fiber* f, std::uintptr_t addr, std::uintptr_t sp) {
  if (f == nullptr || f->is_thread_stack) return fault_kind::not_ours;
  const auto mapping = reinterpret_cast<std::uintptr_t>(f->mapping);
  const auto low = reinterpret_cast<std::uintptr_t>(f->stack_low());
  if (addr >= mapping && addr < low) return fault_kind::in_guard;
  if (sp != 0 && sp < low && addr < mapping && addr + below_sp_slack >= sp) return fault_kind::below_guard;
  return fault_kind::not_ours;
}

// Puts back the disposition locus replaced. A synchronous fault then
// repeats when the handler returns; a signal sent by kill() or raise()
// would not, so it is raised again (blocked until the handler returns).
void hand_back(int sig, const siginfo_t* info) {
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
  if (info->si_code <= 0) raise(sig);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const fiber* f = running_fiber();
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const fault_kind kind = info->si_code > 0 ? classify(f, addr, interrupted_sp(context)) : fault_kind::not_ours;
  if (kind != fault_kind::not_ours) {
    message m;
    m.text("locus: stack overflow in a task: the fiber stack of ")
        .number(f->stack_bytes(), 10)
        .text(" bytes is exhausted (fault at ")
        .number(addr, 16);
    if (kind == fault_kind::in_guard) {
      m.text(" in its guard region). ");
    } else {
      m.text(", ")
          .number(reinterpret_cast<std::uintptr_t>(f->mapping) - addr, 10)
          .text(" bytes below its guard region: a frame larger than the guard jumped over it; "
                "-fstack-clash-protection makes such frames hit the guard). ");
    }
    m.text("Raise LOCUS_STACK_SIZE or runtime_options::stack_size (now ")
        .number(g_configured_stack.load(std::memory_order_relaxed), 10)
        .text(" bytes).\n")
        .write_to_stderr();
    // The default action, not a previous handler: the cause is known.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
  } else {
    hand_back(sig, info);
  }
  errno = saved_errno;
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
