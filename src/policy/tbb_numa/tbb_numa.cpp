#include "policy/tbb_numa/tbb_numa.hpp"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "policy/spi/option_words.hpp"

namespace locus::detail {

namespace {

using proxy = tbb_numa_policy::proxy;

// Each side of a proxy claims it once: true for the first, which runs the
// child; the second frees the proxy. The winner reads what it needs before
// its claim, since the loser may free the proxy right after.
bool first_claim(proxy* p) { return p->claims.fetch_add(1, std::memory_order_acq_rel) == 0; }
void free_proxy(proxy* p) {
  p->~proxy();
  free_job(p, sizeof(proxy));
}

// A proxy the core runs itself (a frame from a deque that did not pass
// through the policy): the same claim. The policy normally unwraps proxies
// first (claim_from_deque), so that the scheduler installs the child's
// context and counts where the hinted child ran.
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

}  // namespace

tbb_numa_policy::tbb_numa_policy(policy_context& c)
    : policy_base(c),
      places_(c.places().num_places),
      mail_(std::make_unique<mailbox[]>(static_cast<std::size_t>(c.arenas()) * static_cast<std::size_t>(places_))),
      state_(std::make_unique<worker_state[]>(static_cast<std::size_t>(c.num_workers()))) {
  opts_.idle_while_stealing = parse_on_off("idle_while_stealing", c.option("idle_while_stealing"));
  opts_.bypass_plain_frames = parse_on_off("bypass_plain_frames", c.option("bypass_plain_frames"));
  // Every worker starts awake in the default arena.
  for (int i = 0; i < c.num_workers(); ++i) count_active(c.worker_at(i), c.worker_at(i).place);
  // A child hinted at its spawner's own place is mailed only if the place
  // has other workers to receive it; with one worker per place (places =
  // cores) the spawner alone would, so it is a plain parent-first child:
  // no proxy, no lock.
  bool shared_places = false;
  for (const auto& mates : c.places().place_workers) shared_places |= mates.size() > 1;
  for (int i = 0; i < c.num_workers(); ++i) {
    worker_view& w = c.worker_at(i);
    // TBB's spawn (parent_first), the hinted children through route_spawn.
    // Every push is tagged (push_own): a proxy with proxy_tag(its place),
    // so that a thief can leave it to its idle place (steal_if; section
    // 4.4.2), other frames with 0. Under bypass_plain_frames (ours) every
    // frame with a place is tagged with it (hook_tag_place), so that forks
    // and continuations of a task hinted at a place, such as the
    // sub-ranges of a distributed loop within one place's block, are left
    // to it too.
    w.hooks |= hook_spawn_order | hook_tag_frames;
    if (opts_.bypass_plain_frames) w.hooks |= hook_tag_place;
  }
  route_all_hinted_ = shared_places;
}

tbb_numa_policy::~tbb_numa_policy() {
  // Proxies left in mailboxes were run from their deques (every child ran
  // before the pool stopped): this side is the second claim. No worker is
  // running here, so back to the allocator allocate_job took them from.
  for (std::size_t i = 0; i < static_cast<std::size_t>(ctx->arenas()) * static_cast<std::size_t>(places_); ++i)
    for (proxy* x : mail_[i].queue) {
      check_ran_at_shutdown(*x);
      x->~proxy();
      ::operator delete(x);
    }
}

// A proxy left in a mailbox at shutdown must have been claimed once, by its
// deque side: otherwise its child never ran, and the program's result is
// wrong. Checked in every build (not an assert): a message and abort.
void check_ran_at_shutdown(const tbb_numa_policy::proxy& p) noexcept {
  if (p.claims.load(std::memory_order_acquire) == 1) return;
  std::fprintf(stderr,
               "locus: tbb-numa: a child was left unrun in a mailbox at shutdown (its proxy has %d claims, "
               "expected 1; spawned by worker %d)\n",
               p.claims.load(std::memory_order_relaxed), p.owner);
  std::abort();
}

// ------------------------------------------------------------ spawning

void tbb_numa_policy::route_spawn(worker_view& w, frame* f) {
  const int place = f->ctx.place;
  assert(place != any_place);  // routes(): hinted ones only
  // An affinity child: a proxy in the spawner's deque and in the mailbox
  // of its place (section 4.4; TBB inserts it into both).
  auto* p = new (allocate_job(sizeof(proxy))) proxy;
  p->run = &run_proxy;
  p->ctx = f->ctx;
  p->ctx.policy[0] = proxy_tag(place);  // its deque tag (push_own without hook_tag_place)
  p->owner = w.id;
  p->child = f;
  push_proxy(w, p);
  const int arena = w.arena.load(std::memory_order_relaxed);
  mailbox& m = box(arena, place);
  {
    std::lock_guard guard(m.lock);
    m.queue.push_back(p);
    // seq_cst: pairs with has_work_for's load before a worker of the place sleeps.
    m.size.fetch_add(1, std::memory_order_seq_cst);
  }
  ctx->count(w, mailed);
  ctx->charge(w, mailbox_op, -1);
  ctx->trace(w, "mailed", -1);
  wake_place(arena, place);
}

void tbb_numa_policy::push_proxy(worker_view& w, proxy* p) {
  // With hook_tag_place push_own would tag it with its place + 1 alone.
  w.deque.push_tagged(p, p->ctx.policy[0]);
}

void tbb_numa_policy::wake_place(int arena, int place) {
  for (int id : ctx->places().place_workers[static_cast<std::size_t>(place)]) {
    worker_view& mate = ctx->worker_at(id);
    if (mate.arena.load(std::memory_order_relaxed) == arena && ctx->wake(mate)) return;
  }
}

void tbb_numa_policy::count_active(worker_view& w, int index) {
  worker_state& st = state_[static_cast<std::size_t>(w.id)];
  if (st.counted == index) return;
  if (st.counted >= 0) mail_[static_cast<std::size_t>(st.counted)].active.fetch_sub(1, std::memory_order_acq_rel);
  if (index >= 0) mail_[static_cast<std::size_t>(index)].active.fetch_add(1, std::memory_order_acq_rel);
  st.counted = index;
}

// ------------------------------------------------------------ retrieval (figure 7)

search_result tbb_numa_policy::find_work(worker_view& w) {
  const int arena = w.arena.load(std::memory_order_relaxed);
  mailbox& home = box(arena, w.place);
  count_active(w, static_cast<int>(&home - mail_.get()));  // awake, or moved to another arena
  // Rule 3: own deque, newest first, never bypassing (a revoke).
  while (frame* f = w.deque.pop())
    if ((f = claim_from_deque(w, f)) != nullptr) return {f, found_at::own_deque};
  // Out of its own deque: idle at its place (figure 9, set_idle(true))
  // until it has looked into its mailbox (the paper: "increments the
  // counter before receiving from its mailbox and decrements it after");
  // thieves leave this place's affinity children to it meanwhile. Under
  // idle_while_stealing (ours) through the whole search.
  home.idle.fetch_add(1, std::memory_order_seq_cst);
  search_result found;
  frame* received_frame = receive(w);
  if (!opts_.idle_while_stealing) home.idle.fetch_sub(1, std::memory_order_acq_rel);  // set_idle(false)
  if (received_frame != nullptr) {
    found = {received_frame, found_at::policy};  // rule 4'
  } else if (frame* root = ctx->take_root(w)) {
    found = {root, found_at::roots};  // rules 5', 5'', 5''': the shared queues
  } else if (worker_view* victim = choose_victim(w); victim != nullptr && ctx->steal_attempt(w, *victim)) {  // rule 6
    if (frame* stolen_frame = steal_from(w, *victim)) {
      ctx->stole(w);
      found = {stolen_frame, found_at::steal};
    }
  }
  if (opts_.idle_while_stealing) home.idle.fetch_sub(1, std::memory_order_acq_rel);  // set_idle(false)
  return found;
}

frame* tbb_numa_policy::receive(worker_view& w) {
  mailbox& m = box(w.arena.load(std::memory_order_relaxed), w.place);
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
    const int spawner = p->owner;
    if (first_claim(p)) {
      ctx->count(w, received);
      ctx->charge(w, mailbox_op, spawner);
      return child;
    }
    free_proxy(p);  // its spawner or a thief ran it
  }
  return nullptr;
}

frame* tbb_numa_policy::claim_from_deque(worker_view& w, frame* f) {
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

// ------------------------------------------------------------ stealing (rule 6)

bool tbb_numa_policy::is_idle(int arena, int place) const {
  const mailbox& m = box(arena, place);
  const bool threads_expected = m.active.load(std::memory_order_acquire) < ctx->allotted(arena, place);
  return m.idle.load(std::memory_order_acquire) > 0 || threads_expected;
}

frame* tbb_numa_policy::steal_from(worker_view& thief, worker_view& victim) {
  const int arena = thief.arena.load(std::memory_order_relaxed);
  int bypassed_for = -1;
  frame* f = victim.deque.steal_if([&](std::uint32_t tag) {
    bypassed_for = -1;
    const int place = bypass_place(tag, opts_.bypass_plain_frames);
    // Section 4.4.2: leave an affinitized task for another place to it
    // while that place is idle (it will receive it from its mailbox; under
    // bypass_plain_frames, its workers steal the plain frames).
    if (place < 0 || place == thief.place || !is_idle(arena, place)) return true;
    bypassed_for = place;
    return false;
  });
  if (bypassed_for >= 0) {
    ctx->count(thief, bypassed);
    // The place is idle because a worker of it searches (it finds the task)
    // or because fewer of its workers are awake than allotted: wake one, so
    // that what was left to the place does not wait for a nap to end.
    wake_place(arena, bypassed_for);
  }
  return f == nullptr ? nullptr : claim_from_deque(thief, f);
}

// ------------------------------------------------------------ sync and sleep

// Proxies on top of w's deque whose child its mailbox side ran are garbage;
// the core expects the frames under them on top when a join completes (a
// fork_join pops its second branch, a spawn its parent), so they go first.
// A proxy in a deque with one claim was claimed by its mailbox side: the
// deque side claims only what it has removed.
void tbb_numa_policy::drop_dead_proxies(worker_view& w) {
  while (frame* f = w.deque.looks_empty() ? nullptr : w.deque.pop()) {
    auto* p = is_proxy(f) ? static_cast<proxy*>(f) : nullptr;
    if (p == nullptr || p->claims.load(std::memory_order_acquire) == 0) {
      if (p != nullptr) push_proxy(w, p);
      else push_own(w, f);
      return;
    }
    [[maybe_unused]] const bool first = first_claim(p);
    assert(!first);
    free_proxy(p);
  }
}

bool tbb_numa_policy::keep_at_sync(worker_view& w, const frame&) {
  drop_dead_proxies(w);  // every child is done: the group's proxies are dead
  return true;
}

frame* tbb_numa_policy::on_ready(worker_view& w, frame* parent, ready_reason) {
  drop_dead_proxies(w);  // the parent resumes here
  return parent;
}

bool tbb_numa_policy::has_work_for(worker_view& w) {
  mailbox& m = box(w.arena.load(std::memory_order_relaxed), w.place);
  return m.size.load(std::memory_order_seq_cst) > 0;
}

// Asleep: not active at its place (figure 9) until its next search round.
void tbb_numa_policy::on_sleep(worker_view& w) { count_active(w, -1); }

policy_entry tbb_numa_entry() {
  return {
      .name = "tbb-numa",
      .make = &make_policy_of<tbb_numa_policy>,
      // In the order of tbb_numa_policy::counter.
      .options = {{.name = "idle_while_stealing",
                   .env = "LOCUS_TBB_NUMA_IDLE_WHILE_STEALING",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours, not the paper's: a worker counts idle at its place (figure 9) through its whole "
                           "search, steal attempts included; off: only until it has looked into its mailbox",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }},
                  {.name = "bypass_plain_frames",
                   .env = "LOCUS_TBB_NUMA_BYPASS_PLAIN_FRAMES",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours, not the paper's: thieves leave every frame with a place (forks, continuations) "
                           "to its idle place; off: only affinitized (mailed) children (section 4.4.2)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }}},
      .counters = {"mailed", "received", "revoked", "stolen", "bypassed"},
      // A mailbox insert or receive: one line the other side last wrote.
      .costs = {{.name = "tbb_mailbox", .lines = 1}},
  };
}

}  // namespace locus::detail
