// Root tasks: what a thread outside the pool (or a task entering another
// arena) submits, and how it waits. A parent-first child from outside
// (spawn_external), a work-first one (spawn_child_from_outside: the caller
// blocks until the child returns or its continuation is taken, as a
// worker's parent would resume), and a function run as the root of an
// arena (run_in_arena, run_on_pool: the caller blocks, or a task of another
// arena suspends, until it has returned).
#include <cassert>
#include <exception>
#include <semaphore>

#include "core/runtime_state.hpp"
#include "core/span.hpp"
#include "locus/detail/wait_queue.hpp"

namespace locus::detail {
namespace {
frame* run_external_job(frame* f) {
  runtime_state& rt = *this_worker().rt;
  const int arena = f->ctx.arena;  // the job is gone once it has run
  frame* next = run_parent_first_job(f);
  root_finished(rt, arena);
  return next;
}
}  // namespace

void spawn_external(group_state& g, frame* job) {
  runtime_state& rt = pool();
  job->run = &run_external_job;
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  g.stolen = true;  // runs elsewhere: sync must wait for it
  submit_root(rt, job);
}

// ---------------------------------------------------------------- work-first spawn from outside

namespace {
// The caller's continuation: taking it (its worker when the child returns,
// or a thief) lets the blocked caller go on.
struct outside_caller : frame {
  std::binary_semaphore* resume = nullptr;
};
frame* release_outside_caller(frame* f) {
  static_cast<outside_caller*>(f)->resume->release();  // the caller may be gone from here on
  return nullptr;
}

// The root frame of the spawn, on the blocked caller's stack.
struct outside_spawn : frame {
  parent_first_job* child = nullptr;
  outside_caller caller;
};

frame* run_outside_spawn(frame* f) {
  auto* spawn = static_cast<outside_spawn*>(f);
  // Read before the continuation is published: a thief that takes it lets
  // the caller return, and `spawn` with it.
  parent_first_job* child = spawn->child;
  frame* caller = &spawn->caller;
  const int arena = spawn->ctx.arena;
  this_worker().deque.push(caller);
  notify_push();
  frame* ready = run_parent_first_job(child);  // the child, counted out of its group
  // The child may have moved to another worker; as in take_back_parent, the
  // continuation is at the bottom of this worker's deque unless a thief took it.
  worker& now_on = this_worker();
  // pop_if: never takes (and loses) a frame of other work left at the bottom.
  if (now_on.deque.pop_if(caller)) release_outside_caller(caller);
  root_finished(*now_on.rt, arena);
  return ready;
}
}  // namespace

void spawn_child_from_outside(group_state& g, parent_first_job* child) {
  runtime_state& rt = pool();
  if (rt.cfg.span) {
    // LOCUS_SPAN runs constructs in serial order: the child as a measured
    // root, the caller after it.
    g.outstanding.fetch_add(1, std::memory_order_acq_rel);
    g.stolen = true;
    run_on_pool([](void* job) {
      [[maybe_unused]] frame* ready = run_parent_first_job(static_cast<parent_first_job*>(job));
      assert(ready == nullptr && "nobody waits on an outside group while its caller is blocked here");
    }, child);
    return;
  }
  g.outstanding.fetch_add(1, std::memory_order_acq_rel);
  g.stolen = true;  // runs elsewhere: sync must wait for it
  std::binary_semaphore resume{0};
  outside_spawn spawn;
  spawn.run = &run_outside_spawn;
  spawn.ctx = child->ctx;
  spawn.child = child;
  spawn.caller.run = &release_outside_caller;
  spawn.caller.resume = &resume;
  submit_root(rt, &spawn);
  resume.acquire();
}

// ---------------------------------------------------------------- root tasks

namespace {
struct root_task : frame {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  std::exception_ptr error;
  one_shot done;
};

frame* run_root_task(frame* f) {
  auto* root = static_cast<root_task*>(f);
  const int arena = root->ctx.arena;
  // LOCUS_SPAN: the root's measure is in the totals before its submitter
  // can read them.
  const bool measured = (this_worker().hooks & hook_span) != 0;
  if (measured) span_root_begin(this_worker());
  try {
    root->fn(root->arg);
  } catch (...) {
    root->error = std::current_exception();
  }
  if (measured) span_root_end(this_worker());
  root_finished(*this_worker().rt, arena);
  root->done.set();  // the submitter may destroy root from here on
  return nullptr;
}
}  // namespace

void run_in_arena(int arena, void (*fn)(void*), void* arg) {
  runtime_state& rt = pool();
  root_task root;
  root.run = &run_root_task;
  root.fn = fn;
  root.arg = arg;
  root.ctx.arena = static_cast<std::uint16_t>(arena);
  if (current_worker() == nullptr) {
    submit_root(rt, &root);
  } else {
    // A task of another arena: a root is in flight already, so this starts
    // no computation; the task suspends until the root has returned, and
    // then resumes in its own arena (through its shared queues).
    root_started(rt, arena);
    queue_shared(rt, &root);
  }
  root.done.wait();
  if (root.error) std::rethrow_exception(root.error);
}

void run_on_pool(void (*fn)(void*), void* arg) { run_in_arena(0, fn, arg); }

}  // namespace locus::detail
