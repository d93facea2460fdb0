// Whole-process tests of the stack guard (src/fiber/stack_guard.cpp): each
// case runs in a forked child whose stderr is captured, and the parent
// checks how the child ended (the message, death by the signal) and that it
// ended at all: a fault handler that deadlocks would show as a child still
// alive when the parent gives up on it.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>

#include "fiber/sanitizers.hpp"
#include "locus/locus.hpp"

namespace {

// A sanitizer reports a fault itself and exits (ASan: exit code 1) instead
// of dying of the signal; without one, the default action kills the child.
#if defined(LOCUS_ASAN) || defined(LOCUS_TSAN)
constexpr bool under_sanitizer = true;
#else
constexpr bool under_sanitizer = false;
#endif

struct child_end {
  bool finished = false;  // false: still running when the parent gave up (hung)
  int status = 0;
  std::string err;
  bool killed_by(int sig) const { return finished && WIFSIGNALED(status) && WTERMSIG(status) == sig; }
  bool failed() const { return finished && (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)); }
};

// Runs body in a forked child (no pool runs in this process, so forking is
// safe) and collects its stderr until it ends or `limit` passes.
template <class Body>
child_end run_child(Body body, std::chrono::seconds limit = std::chrono::seconds(120)) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    body();
    _exit(0);
  }
  close(fds[1]);
  child_end end;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // every writer closed: the child is gone
    end.err.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  // The pipe closes when the child exits; give it the rest of the limit to be reaped.
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &end.status, WNOHANG) == pid) {
      end.finished = true;
      return end;
    }
    usleep(10'000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &end.status, 0);
  return end;
}

constexpr const char* overflow_message = "locus: stack overflow in a task";

[[gnu::noinline]] int deep(int n) {
  volatile char pad[512];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}

// One frame of a little over 1 MiB, written from its low end first: the
// stack pointer jumps over the guard at once (this file is not compiled
// with -fstack-clash-protection, like most user code).
[[gnu::noinline]] int huge_frame(int seed) {
  volatile char buf[1 << 20];
  buf[0] = static_cast<char>(seed);
  buf[sizeof buf - 1] = static_cast<char>(seed + 1);
  return buf[0] + buf[sizeof buf - 1];
}

// Most of the stack used before the big frame: it lands lower still.
[[gnu::noinline]] int deep_then_huge(int n) {
  volatile char pad[512];
  pad[0] = static_cast<char>(n);
  return n == 0 ? huge_frame(2) : deep_then_huge(n - 1) + pad[0];
}

void expect_overflow_report(const child_end& end) {
  ASSERT_TRUE(end.finished) << "the child hung; stderr so far:\n" << end.err;
  EXPECT_NE(end.err.find(overflow_message), std::string::npos) << end.err;
  EXPECT_NE(end.err.find("LOCUS_STACK_SIZE"), std::string::npos) << end.err;
  if (under_sanitizer)
    EXPECT_TRUE(end.failed()) << "status " << end.status;
  else
    EXPECT_TRUE(end.killed_by(SIGSEGV)) << "status " << end.status << "\n" << end.err;
}

// A fault that is not an overflow: no overflow message, the default action.
void expect_plain_segv(const child_end& end) {
  ASSERT_TRUE(end.finished) << "the child hung; stderr so far:\n" << end.err;
  EXPECT_EQ(end.err.find(overflow_message), std::string::npos) << end.err;
  if (under_sanitizer)
    EXPECT_TRUE(end.failed()) << "status " << end.status;
  else
    EXPECT_TRUE(end.killed_by(SIGSEGV)) << "status " << end.status << "\n" << end.err;
}

}  // namespace

TEST(StackOverflow, GradualRecursionInATaskIsReported) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 2, .stack_size = 64 * 1024});
    locus::fork_join([] { deep(1 << 20); }, [] {});
  });
  expect_overflow_report(end);
  EXPECT_NE(end.err.find("in its guard region"), std::string::npos) << end.err;
}

TEST(StackOverflow, AOneMebibyteFrameInATaskIsReported) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 2});
    locus::fork_join([] { huge_frame(1); }, [] {});
  });
  expect_overflow_report(end);
}

TEST(StackOverflow, AOneMebibyteFrameDeepInASmallStackIsReported) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 1, .stack_size = 64 * 1024});
    locus::fork_join([] { deep_then_huge(100); }, [] {});
  });
  expect_overflow_report(end);
}

TEST(StackOverflow, ANullDereferenceOutsideTasksGetsTheDefaultAction) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 2});
    locus::fork_join([] {}, [] {});  // the guard handler is installed now
    volatile int* null = nullptr;
    *null = 1;
  });
  expect_plain_segv(end);
}

TEST(StackOverflow, ANullDereferenceInATaskIsNotCalledAnOverflow) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 2});
    locus::fork_join(
        [] {
          volatile int* null = nullptr;
          *null = 1;
        },
        [] {});
  });
  expect_plain_segv(end);
}

TEST(StackOverflow, ASegvSentByKillGetsTheDefaultAction) {
  const child_end end = run_child([] {
    locus::runtime rt(locus::runtime_options{.workers = 2});
    locus::fork_join([] { raise(SIGSEGV); }, [] {});
  });
  expect_plain_segv(end);
}
