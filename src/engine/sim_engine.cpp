#include "engine/sim_engine.hpp"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/fiber.hpp"
#include "engine/declared_bytes.hpp"
#include "locus/detail/worker_view.hpp"

namespace locus::detail {
namespace bctx = boost::context::detail;

namespace {

thread_local sim_engine* t_sim = nullptr;
thread_local bool t_in_outside_call = false;  // nested from_outside runs at once
std::atomic<sim_engine*> g_running{nullptr};

// A virtual worker's own stack only holds worker_main's frame; the
// scheduler runs on pooled fibers. Sanitizers need more room.
constexpr std::size_t virtual_thread_stack_bytes = 256 * 1024;

// The simulated address space starts above page 0, so no simulated address
// is null.
constexpr std::uint64_t first_simulated_page = 1;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "locus: simulator: %s\n", what);
  std::abort();
}

}  // namespace

sim_engine::sim_engine(sim::machine_model machine, std::uint64_t seed, const sim::memory_options& memory)
    : machine_(std::move(machine)),
      memory_(machine_, memory),
      base_seed_(seed),
      contention_(machine_, memory_.block_bytes()) {
  // Simulated addresses keep the offset within the page, so a run repeats
  // only if the program's arrays land at the same offsets every time. glibc
  // moves its mmap threshold up as mapped blocks are freed, after which
  // large arrays come from the heap at offsets that depend on what the
  // process did before; setting the threshold turns that adjustment off
  // (mallopt(3)), so arrays of 128 KiB and more are always mapped afresh.
  // The top of the heap is trimmed to nothing spare, so that fewer large
  // requests are carved from a big free top chunk. Blocks coalesced in the
  // heap's bins can still serve them: for runs that repeat whatever came
  // before, allocate arrays at page boundaries (locus::alloc_*, or as
  // locus-bench does, bench/runner/large_blocks.cpp).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  mallopt(M_TOP_PAD, 0);
  std::uint64_t page = memory_.page_bytes();
  page_shift_ = 0;
  while (page > 1) {
    page >>= 1;
    ++page_shift_;
  }
  next_sim_page_ = first_simulated_page;
  const auto nodes = static_cast<std::size_t>(std::max(machine_.topo.num_numa_nodes, 1));
  batch_.dram_by_home.assign(nodes, 0);
  batch_.l3_by_node.assign(nodes, 0);
  batch_.writeback_by_home.assign(nodes, 0);
  batch_.beyond_private_by_home.assign(nodes, 0);
}

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
  if (!g_running.compare_exchange_strong(expected, this)) fail("two simulated pools at once");
  body_ = body;
  const int count = static_cast<int>(places.worker_core.size());
  for (int i = 0; i < count; ++i) {
    auto w = std::make_unique<virtual_worker>();
    w->core = places.worker_core[static_cast<std::size_t>(i)];
    w->node = machine_.topo.cores[static_cast<std::size_t>(w->core)].numa_node;
    w->stack = create_fiber(virtual_thread_stack_bytes, &virtual_thread_entry);
    w->on = w->stack;
    w->context = w->stack->ctx;
    w->beyond_private_by_home = std::make_unique<std::atomic<std::uint64_t>[]>(batch_.beyond_private_by_home.size());
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
  restore_thread_identity({nullptr, w.stack});
  try {
    self->body_(me);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locus: simulator: worker %d: %s\n", me, e.what());
    std::abort();
  }
  w.st = state::finished;
  ++self->finished_;
  self->run_next();
  fail("a finished virtual worker was resumed");
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
}

// Another worker is earlier: it is the queue's first, and it changes
// places with this one in the queue (one sift instead of a push and a pop).
inline void sim_engine::yield_if_behind() {
  virtual_worker& me = current();
  if (ready_.has_earlier(me.clock, current_)) give_way(me);
}

void sim_engine::give_way(virtual_worker& me) {
  me.st = state::ready;
  resume(ready_.replace_first(current_, me.clock));
}

void sim_engine::resume(int id) {
  virtual_worker& w = *workers_[static_cast<std::size_t>(id)];
  if (w.st == state::napping) {  // its timer fired
    w.clock = std::max(w.clock, w.deadline);
    w.waiting_on = nullptr;
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
  const thread_identity mine = save_thread_identity();
  const bool leaving_finished = current_ >= 0 && current().st == state::finished;
  if (current_ >= 0) current().on = mine.running;
  fiber* to = next >= 0 ? workers_[static_cast<std::size_t>(next)]->on : main_fiber_;
  void* to_context = next >= 0 ? workers_[static_cast<std::size_t>(next)]->context : main_context_;
  leaving_ = current_;
  current_ = next;
  sanitizers::start_switch(leaving_finished ? nullptr : &mine.running->asan_fake_stack, to->stack_low(),
                           to->is_thread_stack ? 0 : to->stack_bytes(), to->tsan_fiber);
  arrived(bctx::jump_fcontext(to_context, this));
  restore_thread_identity(mine);
  sanitizers::finish_switch(mine.running->asan_fake_stack);
}

void sim_engine::arrived(bctx::transfer_t t) {
  if (leaving_ >= 0) workers_[static_cast<std::size_t>(leaving_)]->context = t.fctx;
  else main_context_ = t.fctx;
}

void sim_engine::make_ready(int id, sim::cycles at) {
  virtual_worker& w = *workers_[static_cast<std::size_t>(id)];
  if (w.st == state::napping) ready_.erase(id);
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
  if (t_sim != this || current_ < 0) fail("wait() called off a virtual worker");
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
    yield_if_behind();
    return;
  }
  // From outside the pool: only inside from_outside, while quiescent.
  if (!in_outside_call_) fail("wake() from outside the pool, not through from_outside()");
  if (target >= 0) make_ready(target, quiescent_at_ + machine_.costs.wake);
}

void sim_engine::relax(unsigned) {
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += machine_.costs.spin;
  yield_if_behind();
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
  yield_if_behind();
}

fiber* sim_engine::home_fiber(int worker) { return workers_[static_cast<std::size_t>(worker)]->stack; }

// The names LOCUS_STATS has always used for the memory model's levels, then
// the coherence traffic (not accesses: consumers that sum the levels keep
// to the first six).
std::vector<std::string> sim_engine::counter_names() const {
  std::vector<std::string> names{"l1_hits",    "l2_hits",    "l3_hits",   "remote_l3_hits",
                                 "local_dram", "remote_dram", "writebacks", "invalidations"};
  for (std::size_t node = 0; node < batch_.beyond_private_by_home.size(); ++node)
    names.push_back("beyond_private_home_" + std::to_string(node));
  return names;
}

void sim_engine::read_counters(int worker, std::uint64_t* out) const {
  static_assert(sim::served_by_count == 6, "counter_names() lists one name per served_by");
  const auto& w = *workers_[static_cast<std::size_t>(worker)];
  for (std::size_t i = 0; i < sim::served_by_count; ++i) out[i] = w.served[i].load(std::memory_order_relaxed);
  out[sim::served_by_count] = w.writebacks.load(std::memory_order_relaxed);
  out[sim::served_by_count + 1] = w.invalidations.load(std::memory_order_relaxed);
  for (std::size_t node = 0; node < batch_.beyond_private_by_home.size(); ++node)
    out[sim::served_by_count + 2 + node] = w.beyond_private_by_home[node].load(std::memory_order_relaxed);
}

// ------------------------------------------------------------ memory

// The n-th page first touched gets a simulated page number that is a fixed
// pseudo-random permutation of n within its group of 2^12 (16 MiB of 4 KiB
// pages). The caches index sets by simulated address, so a page's number
// is its color. Numbered in touch order, an array that 56 workers first
// touch together got numbers striding by about 56, a few colors for each
// worker: a fraction of its L2 in use. An operating system gives a fresh
// page whatever frame is free, colors without a pattern; so does this.
// Groups keep the numbers dense (sim/block_directory.hpp).
std::uint64_t sim_engine::colored_page(std::uint64_t n) {
  constexpr int group_bits = 12;
  constexpr std::uint64_t mask = (std::uint64_t{1} << group_bits) - 1;
  // A bijection on group_bits-bit numbers: odd multipliers and xor-shifts.
  std::uint64_t x = n & mask;
  x = (x * 0x9E3779B1u) & mask;
  x ^= x >> (group_bits / 2);
  x = (x * 0x85EBCA6Bu) & mask;
  x ^= x >> (group_bits / 2);
  return (n & ~mask) | x;
}

std::uint64_t sim_engine::simulated_address(std::uint64_t address, bool assign) {
  const std::uint64_t real_page = address >> page_shift_;
  const std::uint64_t offset = address & ((std::uint64_t{1} << page_shift_) - 1);
  if (real_page != last_real_page_) {
    auto it = page_map_.find(real_page);
    if (it == page_map_.end()) {
      if (!assign) return 0;
      it = page_map_.emplace(real_page, colored_page(next_sim_page_++)).first;
    }
    last_real_page_ = real_page;
    last_sim_page_ = it->second;
  }
  return (last_sim_page_ << page_shift_) | offset;
}

void sim_engine::batch::clear() {
  counts = {};
  std::fill(dram_by_home.begin(), dram_by_home.end(), 0);
  std::fill(l3_by_node.begin(), l3_by_node.end(), 0);
  std::fill(writeback_by_home.begin(), writeback_by_home.end(), 0);
  std::fill(beyond_private_by_home.begin(), beyond_private_by_home.end(), 0);
}

void sim_engine::access_range(virtual_worker& me, std::uint64_t at, std::uint64_t bytes, sim::access_kind kind,
                              batch& into) {
  const std::uint64_t end = at + bytes;
  if (end < at) fail("touch(): the range wraps around the address space");
  const std::uint64_t page_bytes = std::uint64_t{1} << page_shift_;
  while (at < end) {
    // Simulated pages are not contiguous: one memory-model access per page.
    const std::uint64_t piece = std::min(end, (at & ~(page_bytes - 1)) + page_bytes) - at;
    const sim::access_counts counts = memory_.access(me.core, simulated_address(at, true), piece, kind);
    into.counts += counts;
    at += piece;
    if (counts.writebacks != 0) {
      const auto& written = memory_.last_writeback_blocks_by_node();
      for (std::size_t node = 0; node < written.size(); ++node) into.writeback_by_home[node] += written[node];
    }
    // Only what came from beyond the core's private caches has a home to
    // count, and only what came from beyond its own L3 a node to charge.
    const std::uint64_t beyond_l3 =
        counts[sim::served_by::remote_l3] + counts[sim::served_by::local_dram] + counts[sim::served_by::remote_dram];
    if (beyond_l3 + counts[sim::served_by::local_l3] == 0) continue;
    const auto& homes = memory_.last_beyond_private_by_home();
    for (std::size_t node = 0; node < homes.size(); ++node) into.beyond_private_by_home[node] += homes[node];
    if (beyond_l3 == 0) continue;
    const auto& dram = memory_.last_dram_blocks_by_node();
    const auto& l3 = memory_.last_remote_l3_blocks_by_node();
    for (std::size_t node = 0; node < dram.size(); ++node) {
      into.dram_by_home[node] += dram[node];
      into.l3_by_node[node] += l3[node];
    }
  }
}

// Memory-level parallelism. L1 hits cost their latency one after another.
// Every other block is a miss that holds one of the core's outstanding-miss
// slots (the L1's fill buffers) for its latency; with M slots, misses of
// total latency S issue in S / M cycles (Little's law), and the last one's
// data comes L (its latency) after it issued, L - L / M after the issue
// time ends: the tail. One miss alone costs its full latency, and so does
// each of a chain of one-line touches (pointer chasing). In a sequential
// run (one page of a touch), the misses after the first prefetch_trigger
// are the stream prefetcher's, prefetch_outstanding in flight instead of M.
// Bandwidth: the batch also occupies the controllers and links it used
// (sim/contention.hpp) from its issue time; it cannot end before they have
// passed it. Its write-backs occupy their home's controller and the links
// to it, posted.
void sim_engine::charge_batch(virtual_worker& me, const batch& b, bool sequential, double& tail) {
  const sim::access_counts& c = b.counts;
  const std::uint64_t l1_hits = c[sim::served_by::l1];
  const std::uint64_t misses = c.accesses() - l1_hits;
  const double hit_cycles = static_cast<double>(l1_hits * machine_.latency.l1_hit);
  double issue = hit_cycles;
  if (misses == 0) {
    tail = std::max(0.0, tail - issue);
  } else {
    const double miss_cycles = static_cast<double>(c.total_cycles) - hit_cycles;
    const auto& distance = machine_.topo.numa_distance[static_cast<std::size_t>(me.node)];
    sim::cycles slowest = 0;
    if (c[sim::served_by::l2] != 0) slowest = machine_.latency.l2_hit;
    if (c[sim::served_by::local_l3] != 0) slowest = std::max(slowest, machine_.latency.l3_hit);
    for (std::size_t node = 0; node < b.dram_by_home.size(); ++node) {
      if (b.l3_by_node[node] != 0) slowest = std::max(slowest, machine_.remote_l3_cycles(distance[node]));
      if (b.dram_by_home[node] != 0) slowest = std::max(slowest, machine_.dram_cycles(distance[node]));
    }
    const double slots = machine_.outstanding_misses;
    const double streams = machine_.prefetch_outstanding;
    const std::uint64_t demand =
        sequential && streams > 0 ? std::min<std::uint64_t>(misses, machine_.prefetch_trigger) : misses;
    const double demand_share = static_cast<double>(demand) / static_cast<double>(misses);
    issue += miss_cycles * demand_share / slots;
    if (demand < misses) issue += miss_cycles * (1 - demand_share) / streams;
    const double last_slots = demand < misses ? streams : slots;
    tail = static_cast<double>(slowest) * (1 - 1 / last_slots);
  }
  double done = static_cast<double>(me.clock) + issue;
  if (contention_.enabled()) {
    done = std::max(done, contention_.reserve_reads(me.node, static_cast<double>(me.clock), b.dram_by_home,
                                                    b.l3_by_node));
    // The dirty blocks this batch's fills evicted are posted from its issue
    // time: nobody waits for them, later requests queue behind them.
    if (c.writebacks != 0)
      contention_.reserve_writebacks(me.node, static_cast<double>(me.clock), b.writeback_by_home);
  }
  me.clock = static_cast<sim::cycles>(std::llround(done));
  count_served(me, b);
}

void sim_engine::count_served(virtual_worker& me, const batch& b) {
  auto add = [](std::atomic<std::uint64_t>& to, std::uint64_t n) {
    if (n != 0) to.store(to.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  };
  const sim::access_counts& counts = b.counts;
  for (std::size_t i = 0; i < sim::served_by_count; ++i) add(me.served[i], counts.served[i]);
  add(me.writebacks, counts.writebacks);
  add(me.invalidations, counts.invalidations);
  for (std::size_t node = 0; node < b.beyond_private_by_home.size(); ++node)
    add(me.beyond_private_by_home[node], b.beyond_private_by_home[node]);
}

// A touch is issued page by page, and the worker gives way between pages
// when another's clock is earlier: requests from all workers reach the
// controllers and links in virtual-time order (to a page's granularity).
void sim_engine::touch(const void* address, std::size_t bytes, access how) noexcept {
  if (current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  // The spawns may have left this worker behind another: let that one issue
  // its requests first.
  yield_if_behind();
  const auto kind = how == access::write ? sim::access_kind::write : sim::access_kind::read;
  std::uint64_t at = reinterpret_cast<std::uintptr_t>(address);
  const std::uint64_t end = at + bytes;
  if (end < at) fail("touch(): the range wraps around the address space");
  const std::uint64_t page_bytes = std::uint64_t{1} << page_shift_;
  double tail = 0;
  while (at < end) {
    const std::uint64_t piece = std::min(end, (at & ~(page_bytes - 1)) + page_bytes) - at;
    batch_.clear();
    access_range(me, at, piece, kind, batch_);
    charge_batch(me, batch_, /*sequential=*/true, tail);
    at += piece;
    if (at < end) yield_if_behind();
  }
  me.clock += static_cast<sim::cycles>(std::llround(tail));
  yield_if_behind();
}

namespace {
std::int64_t index_at(const void* indices, unsigned index_bytes, bool is_signed, std::size_t i) {
  const auto* p = static_cast<const unsigned char*>(indices) + i * index_bytes;
  switch (index_bytes) {
    case 1: return is_signed ? *reinterpret_cast<const std::int8_t*>(p) : *p;
    case 2: return is_signed ? *reinterpret_cast<const std::int16_t*>(p) : *reinterpret_cast<const std::uint16_t*>(p);
    case 4: return is_signed ? *reinterpret_cast<const std::int32_t*>(p) : *reinterpret_cast<const std::uint32_t*>(p);
    default: return *reinterpret_cast<const std::int64_t*>(p);
  }
}
}  // namespace

void sim_engine::touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                               std::size_t count, std::size_t elem_size, access how) noexcept {
  if (current_ < 0) return;
  if (index_bytes != 1 && index_bytes != 2 && index_bytes != 4 && index_bytes != 8)
    fail("touch_indexed(): indices must be 1, 2, 4 or 8 bytes wide");
  virtual_worker& me = current();
  settle_spawns(me);
  yield_if_behind();  // as in touch()
  const auto kind = how == access::write ? sim::access_kind::write : sim::access_kind::read;
  const auto origin = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(base));
  // Elements are charged in groups of a page's worth of lines, so that the
  // worker gives way as often as a touch does.
  const std::size_t group = std::max<std::size_t>(1, memory_.page_bytes() / memory_.block_bytes());
  double tail = 0;
  for (std::size_t first = 0; first < count; first += group) {
    batch_.clear();
    const std::size_t last = std::min(count, first + group);
    for (std::size_t i = first; i < last; ++i) {
      const std::int64_t offset = index_at(indices, index_bytes, is_signed, i) * static_cast<std::int64_t>(elem_size);
      access_range(me, static_cast<std::uint64_t>(origin + offset), elem_size, kind, batch_);
    }
    charge_batch(me, batch_, /*sequential=*/false, tail);
    if (last < count) yield_if_behind();
  }
  me.clock += static_cast<sim::cycles>(std::llround(tail));
  yield_if_behind();
}

void sim_engine::compute(std::uint64_t cycles) noexcept {
  if (current_ < 0) return;
  virtual_worker& me = current();
  settle_spawns(me);
  me.clock += cycles;
  yield_if_behind();
}

// The page map and the memory model belong to the simulation thread; a
// thread outside the pool acts on them while the simulation is quiescent.

void sim_engine::place_pages(const void* address, std::size_t bytes, int node) noexcept {
  run_from_outside([&] {
    std::uint64_t at = reinterpret_cast<std::uintptr_t>(address);
    const std::uint64_t end = at + bytes;
    const std::uint64_t page_bytes = std::uint64_t{1} << page_shift_;
    // Interleaved: round robin over the nodes from the range's first page,
    // as mbind(MPOL_INTERLEAVE) does (not by simulated page number, which
    // is a page's color: colored_page).
    const int nodes = std::max(machine_.topo.num_numa_nodes, 1);
    int next_node = 0;
    for (at &= ~(page_bytes - 1); at < end; at += page_bytes) {
      const std::uint64_t sim_address = simulated_address(at, true);
      const int home = node < 0 ? next_node : std::min(node, nodes - 1);
      next_node = (next_node + 1) % nodes;
      memory_.bind(sim_address, page_bytes, home);
    }
  });
}

void sim_engine::forget_pages(const void* address, std::size_t bytes) noexcept {
  if (bytes == 0) return;
  run_from_outside([&] {
    const std::uint64_t first = reinterpret_cast<std::uintptr_t>(address) >> page_shift_;
    const std::uint64_t last = (reinterpret_cast<std::uintptr_t>(address) + bytes - 1) >> page_shift_;
    for (std::uint64_t page = first; page <= last; ++page) page_map_.erase(page);
    last_real_page_ = ~std::uint64_t{0};
  });
}

int sim_engine::page_home(const void* address) noexcept {
  int home = -1;
  run_from_outside([&] {
    const std::uint64_t sim_address = simulated_address(reinterpret_cast<std::uintptr_t>(address), false);
    if (sim_address == 0) return;
    if (const auto found = memory_.home_of(sim_address)) home = *found;
  });
  return home;
}

}  // namespace locus::detail
