// Arenas and the resource manager (TBB-NUMA, seed 001, sections 3.4, 4.1 and
// 4.2): several scheduler instances share the one pool of workers, and the
// manager hands each arena that has work an equal share of the workers of
// every place.
//
// An arena is a slot of this table: its P+1 shared queues (root tasks,
// enqueued tasks, woken waiters), the count of its roots in flight (its
// demand: an arena with none asks for no workers) and the most workers it
// may have (its max_concurrency). Slot 0 is the default arena, which every
// program uses and which has every worker until a locus::arena is created.
//
// A worker serves one arena at a time (worker_view::arena). The manager
// gives every worker a target arena; a worker moves to its target when it
// looks for work with its own deque empty (scheduler.cpp), so the frames
// on a worker's deque are always of the arena it serves, and a task is never
// preempted. A frame carries its arena in its task context; one that
// reaches a worker of another arena (a steal racing with a move, a
// policy's mailbox, an inbox) is forwarded to its arena's shared queues.
//
// rebalance() is figure 8(c) and section 4.4.1: among the arenas with work,
// each place's workers are dealt out in turn (each arena at most its share
// of max_concurrency at that place), so every arena keeps the same share of
// every place, its mailboxes are all served, and the affinities of its
// tasks keep their meaning whatever else runs. With LOCUS_ARENA_SHARES=pool
// the workers are dealt out by count only, in worker order, as standard
// TBB's RML does (figure 2's unfortunate allocation: an arena may get whole
// places and no worker at others).
//
// With more arenas with work than workers, some arena gets no worker, and
// a task waiting for it (a nested execute) would wait for good. So a
// worker that finds nothing in its own arena lends itself to an arena
// that has work in its shared queues and no worker at all, for as long as
// its deque holds that arena's frames (try_lend, at most max_concurrency
// lenders at once), as idle TBB workers go to arenas that ask for them.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/shared_queues.hpp"
#include "topology/topology.hpp"

namespace locus::detail {

enum class arena_shares : std::uint8_t { places, pool };

struct arena_slot {
  shared_queues roots;
  std::atomic<int> in_flight{0};  // roots (execute calls, enqueued tasks) not yet returned
  std::atomic<int> max_concurrency{0};  // set when opened (read by lenders without the lock)
  std::atomic<int> lenders{0};    // workers lent to it now (try_lend)
  std::atomic<int> only_place{-1};  // a place-limited arena's place (locus::arena(at(p))), or -1
  bool open = false;              // a locus::arena (or the pool, for slot 0) holds it; under the lock
  // Workers per place given to this arena by the last rebalance.
  std::unique_ptr<std::atomic<int>[]> allotted;
};

class arena_manager {
 public:
  // Slot 0 (the default arena) is open with every worker. With `isolating`
  // false (the policy's registry entry says its schedule spans the whole
  // machine), every worker serves every arena: all arenas' frames go
  // through slot 0's queues and the shares are never applied. queue_lanes:
  // the lanes of each shared queue (shared_queues.hpp).
  void init(const placement& places, int max_arenas, arena_shares mode, bool isolating, unsigned queue_lanes);

  // Opens a slot for a locus::arena that asks for at most max_concurrency
  // workers (clamped to the pool, or with `only_place` >= 0 to the workers
  // of that place, the only ones it ever gets); throws std::runtime_error
  // naming LOCUS_ARENA_MAX when every slot is taken. A closed slot is
  // reused only once its work in flight has returned.
  int open(int max_concurrency, int only_place = -1);
  void close(int id);

  arena_slot& slot(int id) { return slots_[static_cast<std::size_t>(id)]; }
  // The shared queues that hold arena id's frames.
  shared_queues& queues_of(int id) { return slot(isolating_ ? id : 0).roots; }
  bool isolating() const { return isolating_; }
  const arena_slot& slot(int id) const { return slots_[static_cast<std::size_t>(id)]; }
  int size() const { return static_cast<int>(count_); }
  // The slots ever opened, the default arena's included: those past it
  // have never held work, so a scan of the arenas stops there (a loop of
  // short entries scanned all LOCUS_ARENA_MAX slots twice per entry).
  int used() const { return static_cast<int>(used_.load(std::memory_order_acquire)); }

  // A root of arena id started or returned; each returns whether the
  // demand changed in a way that may change the deal, so that rebalance
  // must run. Only an arena's first root and its last one's return change
  // its demand. Even those need no rebalance when the deal lasts: the last
  // arena with work ends (rebalance keeps the deal when none has work), or
  // an arena starts alone and is the one arena of the deal in force. Each
  // arena that starts or ends work counts itself in busy_arenas_ after its
  // in_flight, so of two that cross, one sees the other and rebalances,
  // and rebalance reads in_flight under the lock.
  bool started(int id) {
    if (slot(id).in_flight.fetch_add(1, std::memory_order_seq_cst) != 0) return false;
    return busy_arenas_.fetch_add(1, std::memory_order_seq_cst) != 0 || sole_dealt_.load(std::memory_order_seq_cst) != id;
  }
  bool finished(int id) {
    if (slot(id).in_flight.fetch_sub(1, std::memory_order_seq_cst) != 1) return false;
    return busy_arenas_.fetch_sub(1, std::memory_order_seq_cst) != 1;
  }

  // Whether a locus::arena was ever opened: until then every worker serves
  // the default arena and nothing here is consulted.
  bool engaged() const { return engaged_.load(std::memory_order_acquire); }

  // Recomputes every arena's share from the arenas that have work now and
  // appends to `moved` the workers whose target changed (to be woken, out
  // of any lock: under the simulator a wake may switch fibers). Nothing
  // changes when no arena has work or the same arenas have work as at the
  // last deal: a deal lasts until the demand changes (arenas.cpp).
  void rebalance(std::vector<int>& moved);

  // Some arena with work got no worker at the last rebalance.
  bool starving() const { return starving_.load(std::memory_order_acquire); }
  // An arena other than `mine` with frames in its shared queues, no worker
  // allotted and fewer lenders than its max_concurrency, that a worker of
  // place `place` may serve (a place-limited arena takes only its own
  // place's), now counting one more lender; or -1. end_lend gives the
  // lender back.
  int try_lend(int mine, int place);
  // Whether arena id has no worker allotted (lenders may serve it).
  bool unserved(int id) const;
  // Some arena other than `mine` a worker of `place` could be lent to
  // (try_lend's test, without counting a lender).
  bool lendable_work(int mine, int place) const;
  void end_lend(int arena) { slot(arena).lenders.fetch_sub(1, std::memory_order_acq_rel); }
  // A free slot of arena id for a worker of `place` that enters it in
  // place from a task of another arena (roots.cpp), now counted as one
  // more lender: the workers the deal gives it while it has work, and its
  // lenders, are fewer than its max_concurrency (oneTBB's rule: the
  // entering thread counts as one of them). end_lend gives it back.
  bool try_enter(int id, int place);

  std::uint16_t target(int worker) const { return targets_[static_cast<std::size_t>(worker)].load(std::memory_order_acquire); }
  int allotted(int arena, int place) const {
    return slot(arena).allotted[static_cast<std::size_t>(place)].load(std::memory_order_acquire);
  }

 private:
  // The workers arena `id` may have at place p: its max_concurrency dealt
  // over the places, the extras from place (id mod P) on, so that two small
  // arenas do not both crowd place 0; a place-limited arena's all at its
  // place and none elsewhere.
  int place_cap(int id, int p) const;
  void assign(const std::vector<int>& active, std::vector<std::uint16_t>& target);
  // open and close (under lock_): a slot may be reused with another
  // max_concurrency or place, so the next demand deals afresh.
  void forget_deal() {
    dealt_.clear();
    sole_dealt_.store(-1, std::memory_order_seq_cst);
  }

  const placement* places_ = nullptr;
  arena_shares mode_ = arena_shares::places;
  bool isolating_ = true;
  std::size_t count_ = 0;
  std::atomic<std::size_t> used_{1};  // 1 + the highest slot ever opened (grows under lock_)
  std::unique_ptr<arena_slot[]> slots_;
  std::unique_ptr<std::atomic<std::uint16_t>[]> targets_;  // per worker
  std::atomic<bool> engaged_{false};
  std::atomic<bool> starving_{false};
  std::vector<int> active_;  // rebalance's scratch list of the arenas with work
  std::vector<int> dealt_;   // the arenas with work at the last deal (rebalance)
  std::atomic<int> sole_dealt_{-1};   // dealt_'s arena when it holds exactly one, else -1
  std::atomic<int> busy_arenas_{0};   // arenas whose in_flight is above 0 (started, finished)
  std::mutex lock_;          // open, close, rebalance; active_ and dealt_
};

}  // namespace locus::detail
