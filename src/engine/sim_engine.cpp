// The simulated engine's virtual time (sim_engine.hpp): virtual workers as
// fibers of one thread, whose turn it is, sleeping and waking, the costs of
// scheduling; touches go on to the memory front end (sim/access_path.hpp).
#include "engine/sim_engine.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>

#include "engine/declared_bytes.hpp"
#include "fiber/fiber.hpp"
#include "locus/detail/worker_view.hpp"
#include "sim/fatal.hpp"

namespace locus::detail {
namespace bctx = boost::context::detail;

namespace {

thread_local sim_engine* t_sim = nullptr;
thread_local bool t_in_outside_call = false;  // nested from_outside runs at once
std::atomic<sim_engine*> g_running{nullptr};

// A virtual worker's own stack only holds worker_main's frame; the
// scheduler runs on pooled fibers. Sanitizers need more room.
constexpr std::size_t virtual_thread_stack_bytes = 256 * 1024;

using sim::fatal;

}  // namespace

sim_engine::sim_engine(sim::machine_model machine, std::uint64_t seed, const sim::memory_options& memory,
                       thread_identity_ops identity)
    : machine_(std::move(machine)), path_(machine_, memory), identity_(identity), base_seed_(seed) {}

sim_engine::~sim_engine() {
  if (thread_.joinable()) join_workers();
}

sim_engine* sim_engine::on_this_thread() noexcept { return t_sim; }
sim_engine* sim_engine::running() noexcept { return g_running.load(std::memory_order_acquire); }

sim::cycles sim_engine::to_cycles(std::uint64_t ns) const {
  return static_cast<sim::cycles>(static_cast<double>(ns) * machine_.clock_ghz);
}

std::uint64_t sim_engine::to_ns(sim::cycles c) const {
  return static_cast<std::uint64_t>(static_cast<double>(c) / machine_.clock_ghz);
}

// ------------------------------------------------------------ start and stop

void sim_engine::start_workers(const placement& places, bool, const std::function<void(int)>& body) {
  sim_engine* expected = nullptr;
  if (!g_running.compare_exchange_strong(expected, this)) fatal("two simulated pools at once");
  body_ = body;
  const int count = static_cast<int>(places.worker_core.size());
  for (int i = 0; i < count; ++i) {
    auto w = std::make_unique<virtual_worker>();
    w->core = places.worker_core[static_cast<std::size_t>(i)];
    w->node = machine_.topo.cores[static_cast<std::size_t>(w->core)].numa_node;
    w->stack = create_fiber(virtual_thread_stack_bytes, &virtual_thread_entry);
    w->on = w->stack;
    w->context = w->stack->ctx;
    path_.add_issuer(*w);
    workers_.push_back(std::move(w));
  }
  ready_.reserve(count);
  for (int i = 0; i < count; ++i) ready_.push(i, 0);
  set_simulating(true);
  thread_ = std::thread([this] { run_simulation(); });
}

void sim_engine::join_workers() {
  thread_.join();
  for (auto& w : workers_) destroy_fiber(w->stack);
  workers_.clear();
  set_simulating(false);
  g_running.store(nullptr, std::memory_order_release);
}

void sim_engine::run_simulation() {
  t_sim = this;
  install_alt_stack_for_thread();
  main_fiber_ = thread_stack_fiber();
  set_running_fiber(main_fiber_);
  run_next();  // returns when every worker has finished
  set_running_fiber(nullptr);
  delete main_fiber_;
  main_fiber_ = nullptr;
  remove_alt_stack_for_thread();
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  t_sim = nullptr;
}

void sim_engine::virtual_thread_entry(bctx::transfer_t t) {
  auto* self = static_cast<sim_engine*>(t.data);
  self->arrived(t);
  const int me = self->current_;
  virtual_worker& w = *self->workers_[static_cast<std::size_t>(me)];
  sanitizers::finish_switch(nullptr);
  self->identity_.restore({nullptr, w.stack});
  try {
    self->body_(me);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus: simulator: worker %d: %s\n", me, e.what());
    std::abort();
  }
  w.st = state::finished;
  ++self->finished_;
  self->run_next();
  fatal("a finished virtual worker was resumed");
}

// ------------------------------------------------------------ running workers

sim_engine::virtual_worker& sim_engine::current() { return *workers_[static_cast<std::size_t>(current_)]; }

// settle_spawns and yield_if_behind run at every engine call (charges,
// clock reads, touches), most often with nothing to do: inline, so that
// the common case costs no call (callgrind, docs/simulator.md "Speed").
inline void sim_engine::settle_spawns(virtual_worker& w) {
  if (w.view == nullptr) [[unlikely]] {
    w.view = current_worker();
    if (w.view == nullptr) return;
  }
  const std::uint64_t spawns = w.view->spawns.read();
  w.clock += (spawns - w.spawns_charged) * (machine_.costs.deque_push + machine_.costs.deque_pop);
  w.spawns_charged = spawns;
  // Idle workers wait for work to show (wait_for_work): a frame this
  // worker pushed since they last looked, still in its deque, is some.
  if (!idle_.empty()) [[unlikely]] {
    const std::int64_t mark = w.view->deque.push_mark();
    if (mark != w.pushes_shown) {
      w.pushes_shown = mark;
      if (!w.view->deque.looks_empty()) wake_idle(w.clock);
    }
  }
}

// Another worker is earlier: it is the queue's first, and it changes
// places with this one in the queue (one sift instead of a push and a pop).
inline void sim_engine::yield_if_behind() {
  virtual_worker& me = current();
  if (ready_.has_earlier(me.clock, current_)) give_way(me);
}

sim::between_batches sim_engine::give_way_between_batches() {
  return {[](void* self) { static_cast<sim_engine*>(self)->yield_if_behind(); }, this};
}

void sim_engine::give_way(virtual_worker& me) {
  me.st = state::ready;
  resume(ready_.replace_first(current_, me.clock));
}

void sim_engine::resume(int id) {
  virtual_worker& w = *workers_[static_cast<std::size_t>(id)];
  if (w.st == state::napping || w.st == state::idle) {  // its timer fired
    w.clock = std::max(w.clock, w.deadline);
    w.waiting_on = nullptr;
    if (w.st == state::idle) idle_.erase(std::find(idle_.begin(), idle_.end(), id));
  }
  w.st = state::running;
  if (id != current_) switch_to(id);
}

void sim_engine::run_next() {
  for (;;) {
    if (!ready_.empty()) {
      resume(ready_.pop());
      return;
    }
    if (finished_ == static_cast<int>(workers_.size())) {
      switch_to(-1);
      return;
    }
    wait_for_outside();
  }
}

void sim_engine::switch_to(int next) {
  const thread_identity mine = identity_.save();
  const bool leaving_finished = current_ >= 0 && current().st == state::finished;
  if (current_ >= 0) current().on = mine.running;
  fiber* to = next >= 0 ? workers_[static_cast<std::size_t>(next)]->on : main_fiber_;
  void* to_context = next >= 0 ? workers_[static_cast<std::size_t>(next)]->context : main_context_;
  leaving_ = current_;
  current_ = next;
  sanitizers::start_switch(leaving_finished ? nullptr : &mine.running->asan_fake_stack, to->stack_low(),
                           to->is_thread_stack ? 0 : to->stack_bytes(), to->tsan_fiber);
  arrived(bctx::jump_fcontext(to_context, this));
  identity_.restore(mine);
  sanitizers::finish_switch(mine.running->asan_fake_stack);
}

void sim_engine::arrived(bctx::transfer_t t) {
  if (leaving_ >= 0) workers_[static_cast<std::size_t>(leaving_)]->context = t.fctx;
  else main_context_ = t.fctx;
}

void sim_engine::make_ready(int id, sim::cycles at) {
  virtual_worker& w = *workers_[static_cast<std::size_t>(id)];
  if (w.st == state::napping || w.st == state::idle) ready_.erase(id);
  w.clock = std::max(w.clock, at);
  w.st = state::ready;
  w.waiting_on = nullptr;
  ready_.push(id, w.clock);
}

// Every worker sleeps without a timer: the simulated machine is idle until
// a thread outside the pool gives it work (from_outside).
void sim_engine::wait_for_outside() {
  std::unique_lock lock(mutex_);
  quiescent_at_ = 0;
  for (const auto& w : workers_) quiescent_at_ = std::max(quiescent_at_, w->clock);
  outside_ns_.store(to_ns(quiescent_at_), std::memory_order_relaxed);
  quiescent_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !quiescent_; });
}

void sim_engine::from_outside(void (*fn)(void*), void* arg) {
  if (t_sim == this || t_in_outside_call) return fn(arg);
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return quiescent_ || done_; });
  in_outside_call_ = t_in_outside_call = true;
  fn(arg);
  in_outside_call_ = t_in_outside_call = false;
  if (quiescent_ && !ready_.empty()) {
    quiescent_ = false;
    changed_.notify_all();
  }
}

// ------------------------------------------------------------ the engine calls

std::uint64_t sim_engine::now_ns() {
  if (t_sim != this || current_ < 0) return outside_ns_.load(std::memory_order_relaxed);
  virtual_worker& me = current();
  settle_spawns(me);
  return to_ns(me.clock);
}

void sim_engine::wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::uint64_t timeout_ns) {
  if (t_sim != this || current_ < 0) fatal("wait() called off a virtual worker");
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += machine_.costs.sleep;
  if (word.load(std::memory_order_acquire) != expected) return;
  me.waiting_on = &word;
  if (timeout_ns != 0) {
    me.st = state::napping;
    me.deadline = me.clock + to_cycles(timeout_ns);
    ready_.push(current_, me.deadline);
  } else {
    me.st = state::waiting;
  }
  run_next();
}

void sim_engine::wake(std::atomic<std::uint32_t>& word) {
  int target = -1;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const auto& w = *workers_[i];
    if ((w.st == state::waiting || w.st == state::napping) && w.waiting_on == &word) {
      target = static_cast<int>(i);
      break;
    }
  }
  if (t_sim == this && current_ >= 0) {
    virtual_worker& me = current();
    settle_spawns(me);
    me.clock += machine_.costs.wake;
    if (target >= 0) make_ready(target, me.clock);
    if (!idle_.empty()) wake_idle(me.clock);  // what woke a sleeper is work in sight
    yield_if_behind();
    return;
  }
  // From outside the pool: only inside from_outside, while quiescent.
  if (!in_outside_call_) fatal("wake() from outside the pool, not through from_outside()");
  if (target >= 0) make_ready(target, quiescent_at_ + machine_.costs.wake);
}

void sim_engine::relax(unsigned) {
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += machine_.costs.spin;
  yield_if_behind();
}

// An idle worker that sees no work it may take anywhere leaves the queue
// but for its deadline (the end of its spin), like a napper, and comes
// back when another worker may have shown work: a spawn left in a deque
// (settle_spawns), a policy's operation (charge), a wake, or the core's
// notify_idle. Its failed attempts in between are not simulated one by
// one: each would have found nothing, since nothing in sight changed.
// What this changes is when it looks again: at its first round after the
// event, and which victims it draws (docs/simulator.md, "Idle workers").
bool sim_engine::wait_for_work(std::uint64_t until_ns, std::uint64_t round_ns, std::uint64_t& skipped) {
  if (idle_attempts_ || t_sim != this || current_ < 0) return false;
  virtual_worker& me = current();
  settle_spawns(me);
  const sim::cycles until = to_cycles(until_ns);
  // Its spin ends within this nanosecond: the caller's spin step lets time
  // pass (returning true here would search again at the same instant).
  if (until <= me.clock) return false;
  // One round of its search: as the caller measured it, or before it has
  // measured one, a spin step and a steal attempt on its node (the round's
  // usual charges).
  me.idle_round = round_ns != 0 ? std::max<sim::cycles>(to_cycles(round_ns), 1)
                                : machine_.costs.spin + machine_.steal_cycles(sim::local_distance);
  me.idle_since = me.clock;
  me.st = state::idle;
  me.deadline = until;
  idle_.push_back(current_);
  ready_.push(current_, until);
  run_next();
  skipped = (me.clock - me.idle_since) / me.idle_round;
  return true;
}

// Only a running worker finds waiters here: a waiter stays in the ready
// queue (until its deadline), so the machine is not quiescent while there
// is one, and an outside call (from_outside) runs only when it is.
void sim_engine::notify_idle() {
  if (idle_.empty()) return;
  assert(t_sim == this && current_ >= 0 && "idle waiters while no worker runs");
  virtual_worker& me = current();
  settle_spawns(me);
  wake_idle(me.clock);
  yield_if_behind();
}

// Each waiter looks again at its own next round after `at`, as it would
// have spinning: the rounds it skipped keep their phase, so the waiters
// woken by one event do not all look at once in the order of their ids.
void sim_engine::wake_idle(sim::cycles at) {
  for (const int id : idle_) {
    virtual_worker& w = *workers_[static_cast<std::size_t>(id)];
    sim::cycles next = at;
    if (at > w.idle_since) {
      const sim::cycles rounds = (at - w.idle_since + w.idle_round - 1) / w.idle_round;
      next = w.idle_since + rounds * w.idle_round;
    }
    make_ready(id, std::min(next, w.deadline));
  }
  idle_.clear();
}

std::uint64_t sim_engine::seed(int worker) {
  return base_seed_ * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(worker) + 1;
}

int sim_engine::distance_to(const virtual_worker& me, int other) const {
  if (other < 0) return sim::local_distance;
  const int node = workers_[static_cast<std::size_t>(other)]->node;
  return machine_.topo.numa_distance[static_cast<std::size_t>(me.node)][static_cast<std::size_t>(node)];
}

void sim_engine::charge(sched_op op, int, int other) {
  if (t_sim != this || current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  switch (op) {
    case sched_op::steal_attempt: me.clock += machine_.steal_cycles(distance_to(me, other)); break;
    case sched_op::fiber_switch: me.clock += machine_.costs.fiber_switch; break;
  }
  yield_if_behind();
}

cost_id sim_engine::declare_cost(const operation_decl& op) {
  declared_.push_back(machine_.resolve_operation(op.name, op.lines));
  return {static_cast<int>(declared_.size()) - 1};
}

void sim_engine::charge(cost_id op, int, int other) {
  if (t_sim != this || current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += machine_.operation_cycles(declared_[static_cast<std::size_t>(op.index)], distance_to(me, other));
  // A policy's operation (a mailbox deposit) may have shown work.
  if (!idle_.empty()) [[unlikely]] wake_idle(me.clock);
  yield_if_behind();
}

fiber* sim_engine::home_fiber(int worker) { return workers_[static_cast<std::size_t>(worker)]->stack; }

std::vector<std::string> sim_engine::counter_names() const { return path_.counter_names(); }

void sim_engine::read_counters(int worker, std::uint64_t* out) const {
  path_.read_counters(*workers_[static_cast<std::size_t>(worker)], out);
}

std::uint64_t sim_engine::compute_cycles(int worker) const {
  return workers_[static_cast<std::size_t>(worker)]->computed.load(std::memory_order_relaxed);
}

// The levels the model has (memory_model.hpp: L1, L2, L3), each missed into
// the next one's hit latency, the last into local DRAM's.
std::vector<std::uint64_t> sim_engine::miss_penalty_cycles() const {
  int levels = 0;
  for (const auto& c : machine_.topo.caches) levels = std::max(levels, std::min(c.level, 3));
  const sim::latency_table& t = machine_.latency;
  const std::uint64_t next_hit[3] = {t.l2_hit, t.l3_hit, t.local_dram};
  std::vector<std::uint64_t> out;
  for (int i = 0; i < levels; ++i) out.push_back(i + 1 == levels ? t.local_dram : next_hit[i]);
  return out;
}

// ------------------------------------------------------------ annotations

// A touch runs through the access path, which gives way between its pages
// when another worker's clock is earlier.
void sim_engine::touch(const void* address, std::size_t bytes, access how) noexcept {
  if (current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  // The spawns may have left this worker behind another: let that one issue
  // its requests first.
  yield_if_behind();
  const auto kind = how == access::write ? sim::access_kind::write : sim::access_kind::read;
  path_.touch(me, reinterpret_cast<std::uintptr_t>(address), bytes, kind, give_way_between_batches());
  yield_if_behind();
}

void sim_engine::touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                               std::size_t count, std::size_t elem_size, access how) noexcept {
  if (current_ < 0) return;
  if (index_bytes != 1 && index_bytes != 2 && index_bytes != 4 && index_bytes != 8)
    fatal("touch_indexed(): indices must be 1, 2, 4 or 8 bytes wide");
  virtual_worker& me = current();
  settle_spawns(me);
  yield_if_behind();  // as in touch()
  const auto kind = how == access::write ? sim::access_kind::write : sim::access_kind::read;
  path_.touch_indexed(me, base, indices, index_bytes, is_signed, count, elem_size, kind, give_way_between_batches());
  yield_if_behind();
}

void sim_engine::compute(std::uint64_t cycles) noexcept {
  if (current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += cycles;
  me.computed.store(me.computed.load(std::memory_order_relaxed) + cycles, std::memory_order_relaxed);
  yield_if_behind();
}

// The page map and the memory model belong to the simulation thread; a
// thread outside the pool acts on them while the simulation is quiescent.

void sim_engine::place_pages(const void* address, std::size_t bytes, int node) noexcept {
  run_from_outside([&] { path_.place_pages(address, bytes, node); });
}

void sim_engine::forget_pages(const void* address, std::size_t bytes) noexcept {
  if (bytes == 0) return;
  run_from_outside([&] { path_.forget_pages(address, bytes); });
}

int sim_engine::page_home(const void* address) noexcept {
  int home = -1;
  run_from_outside([&] { home = path_.page_home(address); });
  return home;
}

}  // namespace locus::detail
