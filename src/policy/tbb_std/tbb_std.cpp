#include "policy/tbb_std/tbb_std.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace locus::detail {

namespace {

using proxy = tbb_std_policy::proxy;

// Each side of a proxy claims it once: true for the first, which runs the
// sub-range; the second frees the proxy. The winner reads what it needs
// before its claim, since the loser may free the proxy right after.
bool first_claim(proxy* p) { return p->claims.fetch_add(1, std::memory_order_acq_rel) == 0; }
void free_proxy(proxy* p) {
  p->~proxy();
  free_job(p, sizeof(proxy));
}

// A proxy the core runs itself (a frame from a deque that did not pass
// through the policy): the same claim. The policy normally unwraps proxies
// first (claim_from_deque), so that the scheduler installs the sub-range's
// context.
frame* run_proxy(frame* f) {
  auto* p = static_cast<proxy*>(f);
  frame* child = p->child;
  if (!first_claim(p)) {
    free_proxy(p);
    return nullptr;
  }
  current_worker()->ctx = child->ctx;
  return child->run(child);
}

bool is_proxy(const frame* f) { return f->run == &run_proxy; }

[[noreturn]] void fail(const char* what, const proxy& p) noexcept {
  std::fprintf(stderr, "locus: tbb-std: %s (the proxy has %d claims; posted by worker %d)\n", what,
               p.claims.load(std::memory_order_relaxed), p.owner);
  std::abort();
}

}  // namespace

tbb_std_policy::tbb_std_policy(policy_context& c)
    : policy_base(c),
      workers_(c.num_workers()),
      mail_(std::make_unique<mailbox[]>(static_cast<std::size_t>(c.arenas()) * static_cast<std::size_t>(workers_))),
      state_(std::make_unique<worker_state[]>(static_cast<std::size_t>(workers_))) {
  // TBB's spawn (parent_first); every push tagged, so that a thief can see
  // a proxy's recipient before it takes it (steal_if); loop_affinity
  // records the worker that started each sub-range, with no cap
  // (hook_exact_affinity; oneTBB's note_affinity).
  for (int i = 0; i < workers_; ++i)
    c.worker_at(i).hooks |= hook_spawn_order | hook_tag_frames | hook_exact_affinity;
}

tbb_std_policy::~tbb_std_policy() {
  // Proxies left in mailboxes were run from their posters' deques (every
  // sub-range ran before the pool stopped): this side is the second claim.
  // Checked in every build. No worker runs here, so back to the allocator
  // allocate_job took them from.
  for (std::size_t i = 0; i < static_cast<std::size_t>(ctx->arenas()) * static_cast<std::size_t>(workers_); ++i)
    for (proxy* x : mail_[i].queue) {
      if (x->claims.load(std::memory_order_acquire) != 1) fail("a sub-range was left unrun in a mailbox at shutdown", *x);
      x->~proxy();
      ::operator delete(x);
    }
}

// ------------------------------------------------------------ posting

// oneTBB's spawn of a task with an affinity (affinity_partition_type::
// spawn_task): a proxy on the spawner's deque and in the recipient's
// mailbox. The core wakes the recipient (post_child). A sub-range for the
// poster itself (the loop queues those too, hook_exact_affinity) is a
// plain task on its deque, as oneTBB spawns a task whose affinity is the
// spawner's own slot.
bool tbb_std_policy::post(worker_view& w, frame* f, int target) {
  if (target == w.id) {
    push_own(w, f);
    return true;
  }
  auto* p = new (allocate_job(sizeof(proxy))) proxy;
  p->run = &run_proxy;
  p->ctx = f->ctx;
  p->owner = w.id;
  p->recipient = target;
  p->child = f;
  w.deque.push_tagged(p, std_proxy_tag(target));
  mailbox& m = box(w.arena.load(std::memory_order_relaxed), target);
  {
    std::lock_guard guard(m.lock);
    m.queue.push_back(p);
    // seq_cst: pairs with has_work_for's load before the recipient sleeps.
    m.size.fetch_add(1, std::memory_order_seq_cst);
  }
  ctx->count(w, mailed);
  ctx->charge(w, mailbox_op, -1);
  ctx->trace(w, "mailed", target);
  return true;
}

// ------------------------------------------------------------ retrieval

bool tbb_std_policy::recipient_idle(int arena, int id) const {
  return state_[static_cast<std::size_t>(id)].idle.load(std::memory_order_relaxed) ||
         ctx->worker_at(id).arena.load(std::memory_order_relaxed) != arena;
}

// The search of oneTBB's task dispatcher: the local task pool, then
// receive_or_steal_task (mailbox, streams, a random victim), idle from the
// moment the local pool is empty until a task is found.
search_result tbb_std_policy::find_work(worker_view& w) {
  search_result found;
  while (frame* f = w.deque.pop())
    if ((f = claim_from_deque(w, f)) != nullptr) {
      found = {f, found_at::own_deque};
      break;
    }
  if (found.f == nullptr) {
    set_idle(w, true);  // receive_or_steal_task: inbox.set_is_idle(true)
    if (frame* received_frame = receive(w)) {
      found = {received_frame, found_at::policy};
    } else if (frame* root = ctx->take_root(w)) {
      found = {root, found_at::roots};
    } else if (worker_view* victim = choose_victim(w); victim != nullptr && ctx->steal_attempt(w, *victim)) {
      if (frame* stolen_frame = steal_from(w, *victim)) {
        ctx->stole(w);
        found = {stolen_frame, found_at::steal};
      }
    }
  }
  if (found.f != nullptr) set_idle(w, false);
  return found;
}

frame* tbb_std_policy::receive(worker_view& w) {
  mailbox& m = box(w.arena.load(std::memory_order_relaxed), w.id);
  while (m.size.load(std::memory_order_acquire) > 0) {
    proxy* p = nullptr;
    {
      std::lock_guard guard(m.lock);
      if (m.queue.empty()) return nullptr;
      p = m.queue.front();
      m.queue.pop_front();
      m.size.fetch_sub(1, std::memory_order_relaxed);
    }
    frame* child = p->child;
    const int poster = p->owner;
    if (first_claim(p)) {
      ctx->count(w, received);
      ctx->charge(w, mailbox_op, poster);
      return child;
    }
    free_proxy(p);  // its poster or a thief ran it
  }
  return nullptr;
}

frame* tbb_std_policy::claim_from_deque(worker_view& w, frame* f) {
  if (!is_proxy(f)) return f;
  auto* p = static_cast<proxy*>(f);
  frame* child = p->child;
  const bool own = p->owner == w.id;
  if (!first_claim(p)) {
    free_proxy(p);
    return nullptr;
  }
  ctx->count(w, own ? revoked : stolen);
  return child;
}

// oneTBB's arena_slot::steal_task, on the oldest frame only (a Chase-Lev
// deque cannot leave holes): a proxy whose recipient is idle is left to it
// unless the victim is idle too.
frame* tbb_std_policy::steal_from(worker_view& thief, worker_view& victim) {
  const int arena = thief.arena.load(std::memory_order_relaxed);
  bool left = false;
  frame* f = victim.deque.steal_if([&](std::uint32_t tag) {
    const int recipient = std_proxy_recipient(tag);
    left = recipient >= 0 && recipient_idle(arena, recipient) && !recipient_idle(arena, victim.id);
    return !left;
  });
  if (left) ctx->count(thief, skipped);
  return f == nullptr ? nullptr : claim_from_deque(thief, f);
}

// ------------------------------------------------------------ sync and sleep

// Proxies on top of w's deque whose sub-range the mailbox side ran are
// garbage; the core expects the frames under them on top when a join
// completes, so they go first. A proxy in a deque with one claim was
// claimed by its mailbox side: the deque side claims only what it removed.
void tbb_std_policy::drop_dead_proxies(worker_view& w) {
  while (frame* f = w.deque.looks_empty() ? nullptr : w.deque.pop()) {
    auto* p = is_proxy(f) ? static_cast<proxy*>(f) : nullptr;
    if (p == nullptr || p->claims.load(std::memory_order_acquire) == 0) {
      if (p != nullptr) w.deque.push_tagged(p, std_proxy_tag(p->recipient));
      else push_own(w, f);
      return;
    }
    if (first_claim(p)) fail("a live proxy was dropped at a join", *p);
    free_proxy(p);
  }
}

bool tbb_std_policy::keep_at_sync(worker_view& w, const frame&) {
  drop_dead_proxies(w);  // every child is done: the group's proxies are dead
  return true;
}

frame* tbb_std_policy::on_ready(worker_view& w, frame* parent, ready_reason) {
  drop_dead_proxies(w);  // the parent resumes here
  set_idle(w, false);
  return parent;
}

bool tbb_std_policy::has_work_for(worker_view& w) {
  return box(w.arena.load(std::memory_order_relaxed), w.id).size.load(std::memory_order_seq_cst) > 0;
}

void tbb_std_policy::on_sleep(worker_view& w) { set_idle(w, true); }

policy_entry tbb_std_entry() {
  return {
      .name = "tbb-std",
      .make = &make_policy_of<tbb_std_policy>,
      // In the order of tbb_std_policy::counter.
      .counters = {"mailed", "received", "revoked", "stolen", "skipped"},
      // A mailbox insert or receive: one line the other side last wrote (as tbb-numa's).
      .costs = {{.name = "tbb_std_mailbox", .lines = 1}},
  };
}

}  // namespace locus::detail
