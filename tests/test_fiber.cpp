// Fibers: switching, resuming on another OS thread, and the guard page.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "fiber/fiber.hpp"
#include "locus/locus.hpp"

using namespace locus::detail;

namespace {

// A tiny driver: the fiber records the thread it runs on, yields back to
// the thread that started it, and finishes on whichever thread resumes it.
fiber* g_caller = nullptr;
long g_seen_before = 0, g_seen_after = 0;

// Not std::this_thread::get_id(): glibc declares pthread_self() const, so a
// compiler may reuse its value across a switch that moved us to another
// thread. This is the hazard every fiber runtime must avoid for its own
// thread-locals too.
[[gnu::noinline]] long os_thread_id() { return static_cast<long>(syscall(SYS_gettid)); }
int g_steps = 0;

void test_entry(transfer t) {
  switch_msg* m = arrive(t);
  fiber* self = running_fiber();
  g_caller = m->from;
  g_seen_before = os_thread_id();
  ++g_steps;
  switch_msg back{switch_msg::kind::none, nullptr, nullptr};
  switch_msg* again = switch_fiber(self, g_caller, &back, false);
  g_caller = again->from;  // whoever resumed us
  g_seen_after = os_thread_id();
  ++g_steps;
  switch_msg fin{switch_msg::kind::none, nullptr, nullptr};
  switch_fiber(self, g_caller, &fin, true);
  std::abort();  // never resumed after finishing
}

}  // namespace

TEST(Fiber, SwitchesAndResumesOnAnotherThread) {
  fiber* f = create_fiber(64 * 1024, &test_entry);
  std::atomic<int> phase{0};
  // Thread a stays alive until b is done, so the two thread ids differ.
  std::thread a([&] {
    fiber* home = thread_stack_fiber();
    set_running_fiber(home);
    switch_msg go{switch_msg::kind::none, nullptr, nullptr};
    switch_fiber(home, f, &go, false);  // returns when the fiber yields
    EXPECT_EQ(g_steps, 1);
    phase = 1;
    while (phase.load() != 2) std::this_thread::yield();
    delete home;
  });
  while (phase.load() != 1) std::this_thread::yield();
  std::thread b([&] {
    fiber* home = thread_stack_fiber();
    set_running_fiber(home);
    switch_msg go{switch_msg::kind::none, nullptr, nullptr};
    switch_fiber(home, f, &go, false);  // returns when the fiber finishes
    EXPECT_EQ(g_steps, 2);
    delete home;
  });
  b.join();
  phase = 2;
  a.join();
  EXPECT_NE(g_seen_before, g_seen_after);
  EXPECT_GE(f->stack_bytes(), 64u * 1024);
  destroy_fiber(f);
}

TEST(Fiber, PoolReusesFibers) {
  fiber_pool pool(32 * 1024, &test_entry);
  fiber_cache cache(pool);
  fiber* a = cache.take();
  cache.give(a);
  EXPECT_EQ(cache.take(), a);  // the steady state allocates nothing
  cache.give(a);
  cache.flush();
}

namespace {
int deep(int n) {
  volatile char pad[512];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}
}  // namespace

TEST(FiberDeathTest, StackOverflowInATaskNamesTheCauseAndTheSetting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        locus::runtime rt(locus::runtime_options{.workers = 2, .stack_size = 64 * 1024});
        locus::fork_join([] { deep(1 << 20); }, [] {});
      },
      "stack overflow in a task.*LOCUS_STACK_SIZE");
}
