// The simulated engine: P virtual workers on one OS thread, a virtual clock.
//
// Each worker runs the real scheduler and policy code as a fiber of one
// simulation thread. Every worker has its own clock in cycles of the
// modeled machine; the engine always runs the worker whose clock is
// earliest (ties to the lower id), and a worker gives way as soon as an
// engine call leaves it behind another. Time passes only when it is charged:
//   - the work a task declares (locus::touch and touch_indexed through the
//     simulator's memory front end, sim/access_path.hpp: the memory model,
//     misses overlapped and queued at the controllers and links they use;
//     locus::compute),
//   - the scheduling operations the core reports (steal attempts and
//     mailbox operations by NUMA distance, fiber switches, sleep, wake, a
//     spin step), and each spawn's deque push and pop, read lazily from the
//     worker's spawn counter so that the fast path does not call the engine.
// Sleeping workers wait in the engine; a nap timer fires at its virtual
// deadline. When every worker sleeps with no timer the simulation is
// quiescent, and only then does a thread outside the pool act on it
// (from_outside), so the same program gives the same simulated run.
//
// This file is the virtual time (whose turn it is, sleeping, waking, the
// costs of scheduling); what a touch costs is sim/access_path.hpp's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/context/detail/fcontext.hpp>

#include "engine/engine.hpp"
#include "locus/annotate.hpp"
#include "sim/access_path.hpp"
#include "sim/machine_model.hpp"
#include "sim/memory_model.hpp"
#include "sim/ready_queue.hpp"

namespace locus::detail {

struct worker_view;

class sim_engine final : public engine {
 public:
  sim_engine(sim::machine_model machine, std::uint64_t seed, const sim::memory_options& memory = {},
             thread_identity_ops identity = {});
  ~sim_engine() override;

  const char* name() const override { return "sim"; }
  void start_workers(const placement& places, bool pin, const std::function<void(int)>& body) override;
  void join_workers() override;
  std::uint64_t now_ns() override;
  void wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::uint64_t timeout_ns) override;
  void wake(std::atomic<std::uint32_t>& word) override;
  void relax(unsigned spins) override;
  bool wait_for_work(std::uint64_t until_ns, std::uint64_t round_ns, std::uint64_t& skipped) override;
  bool waits_for_work() const override { return !idle_attempts_; }
  void notify_idle() override;
  std::uint64_t seed(int worker) override;
  void from_outside(void (*fn)(void*), void* arg) override;
  bool outside_waits_for_sleepers() const override { return true; }
  bool concurrent() const override { return false; }
  void charge(sched_op op, int worker, int other) override;
  cost_id declare_cost(const operation_decl& op) override;
  void charge(cost_id op, int worker, int other) override;
  fiber* home_fiber(int worker) override;
  std::vector<std::string> counter_names() const override;
  void read_counters(int worker, std::uint64_t* out) const override;
  std::size_t access_unit_bytes() const override { return path_.block_bytes(); }
  std::uint64_t compute_cycles(int worker) const override;
  std::vector<std::uint64_t> miss_penalty_cycles() const override;

  // The engine whose virtual workers run on the calling thread, or nullptr.
  static sim_engine* on_this_thread() noexcept;
  // The simulated pool, from any thread, or nullptr.
  static sim_engine* running() noexcept;

  // The annotations of locus/annotate.hpp, for the running virtual worker.
  void touch(const void* address, std::size_t bytes, access how) noexcept;
  // base[indices[0..count)], elements of elem_size bytes: independent
  // accesses (a gather), overlapped like a touch's lines but never
  // prefetched. index_bytes is 1, 2, 4 or 8; signed says how to widen them.
  void touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                     std::size_t count, std::size_t elem_size, access how) noexcept;
  void compute(std::uint64_t cycles) noexcept;
  // Page homes (node < 0: interleave over all nodes); any thread, while the
  // simulation is quiescent or from a virtual worker.
  void place_pages(const void* address, std::size_t bytes, int node) noexcept;
  int page_home(const void* address) noexcept;
  // Drops the pages from the page map: what is mapped there later gets new
  // simulated pages (and no home yet).
  void forget_pages(const void* address, std::size_t bytes) noexcept;

  const sim::machine_model& machine() const { return machine_; }
  // LOCUS_SIM_IDLE=attempts: wait_for_work declines, so that every failed
  // attempt of an idle worker is simulated (the detailed model).
  void set_idle_attempts(bool every_attempt) { idle_attempts_ = every_attempt; }

 private:
  // idle: in wait_for_work, in the queue by its deadline like a napper.
  enum class state : std::uint8_t { ready, running, waiting, napping, idle, finished };
  // Its core, node, clock and access counters are the access path's issuer.
  struct virtual_worker : sim::issuer {
    state st = state::ready;
    fiber* stack = nullptr;   // the engine's stack its body starts on
    fiber* on = nullptr;      // the fiber it was running when it last gave way
    void* context = nullptr;  // where to jump to resume it
    const std::atomic<std::uint32_t>* waiting_on = nullptr;
    sim::cycles deadline = 0;  // napping or idle: when the timer fires
    worker_view* view = nullptr;
    std::uint64_t spawns_charged = 0;
    std::atomic<std::uint64_t> computed{0};  // cycles of locus::compute (compute_cycles)
    std::int64_t pushes_shown = 0;  // its deque's push mark when idle workers last looked
    // In wait_for_work: since when, and one round of its search.
    sim::cycles idle_since = 0;
    sim::cycles idle_round = 1;
  };

  static void virtual_thread_entry(boost::context::detail::transfer_t t);
  void run_simulation();  // the simulation thread
  virtual_worker& current();
  // Charges the spawns the worker made since the last charge.
  void settle_spawns(virtual_worker& w);
  // Gives way if another worker's clock is now earlier.
  void yield_if_behind();
  // yield_if_behind for the access path, between the batches of a touch.
  sim::between_batches give_way_between_batches();
  // yield_if_behind's switch, out of line: the queue's first runs, `me`
  // takes its place.
  void give_way(virtual_worker& me);
  // The current worker cannot go on (it gave way, sleeps or finished): runs
  // the next one. Returns when the current worker is resumed.
  void run_next();
  // Runs worker id, just taken from the queue (its nap timer fired if it
  // was napping); returns when the current worker is resumed.
  void resume(int id);
  void switch_to(int next);
  void arrived(boost::context::detail::transfer_t t);
  void wait_for_outside();
  void make_ready(int id, sim::cycles at);
  // The workers in wait_for_work search again, from `at` on.
  void wake_idle(sim::cycles at);
  // NUMA distance from the worker's node to other's (local when other < 0).
  int distance_to(const virtual_worker& me, int other) const;
  sim::cycles to_cycles(std::uint64_t ns) const;
  std::uint64_t to_ns(sim::cycles c) const;

  sim::machine_model machine_;
  sim::access_path path_;  // the memory front end
  thread_identity_ops identity_;  // the core's, switched with the workers
  std::vector<sim::operation_cost> declared_;  // by cost_id
  std::uint64_t base_seed_;
  std::function<void(int)> body_;
  std::vector<std::unique_ptr<virtual_worker>> workers_;
  sim::ready_queue ready_;  // ready and napping workers by (clock or deadline, id)
  int current_ = -1;                              // -1: the simulation thread's own stack
  int leaving_ = -1;                              // who made the switch in progress
  int finished_ = 0;
  // Workers in wait_for_work (state idle); LOCUS_SIM_IDLE=attempts: none ever.
  std::vector<int> idle_;
  bool idle_attempts_ = true;
  fiber* main_fiber_ = nullptr;
  void* main_context_ = nullptr;
  std::thread thread_;

  // Outside threads meet the simulation here.
  std::mutex mutex_;
  std::condition_variable changed_;
  bool quiescent_ = false;
  bool done_ = false;
  bool in_outside_call_ = false;
  sim::cycles quiescent_at_ = 0;
  std::atomic<std::uint64_t> outside_ns_{0};
};

}  // namespace locus::detail
