// locus: fork_join for recursion, parallel_for / parallel_reduce for loops.
// Loops run as the kernel wrote them (variant locus:<policy>), with a
// loop_affinity kept per loop and range across calls (locus:<policy>+affinity,
// as tbb:affinity keeps an affinity_partitioner per loop), in static
// blocks per worker (locus:<policy>+static), in OpenMP guided's chunks
// (locus:<policy>+guided, a model of that schedule for the simulator,
// which cannot run OpenMP), or with a block distribution
// of the loop's range over the places (locus:<policy>+nacs: TBB-NUMA's
// NUMA-aware computation scheduling, seed 001 section 5; with the default
// data layout, block p of each array at place p, it is (NACS, NADD), with
// +interleave (NACS, INTL)).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <locus/locus.hpp>

namespace bench {

// How the locus variants run loops (bench::variant::loops): as the kernel
// wrote them (plain: with the NUMA-WS place hints of places.hpp), with a
// loop_affinity, in static blocks, with a block distribution (+nacs), and
// TBB-NUMA's standard-TBB configurations, no place hints at all (+noap) or
// a loop_affinity and no place hints (+ap, the affinity partitioner).
enum class locus_loops { plain, affinity, static_blocks, guided, distributed, unhinted, affinity_unhinted };
// Whether the kernel's own place hints (places.hpp) apply. Not to the
// models of OpenMP's schedules (+static, +guided): OpenMP runs one loop over
// the whole range, so block k of all of it is worker k's, not block k of
// each place's share (which put half of heat's rows on a remote socket).
constexpr bool place_hinted(locus_loops l) {
  return l != locus_loops::distributed && l != locus_loops::unhinted && l != locus_loops::affinity_unhinted &&
         l != locus_loops::static_blocks && l != locus_loops::guided;
}
// Where the locus variants' data lives (bench::variant::data, places.hpp):
// block p of each array at place p, pages interleaved, or first touch.
// serial_init: every page at place 0, where a serial initialization (the
// runner's thread, NAS's makea, PARSEC's input readers) leaves them under
// first touch: TBB-NUMA's (FT) configurations, +serial-init.
enum class data_layout { blocks, interleave, first_touch, serial_init };

struct locus_backend {
  // Set by the runner from the variant.
  static inline locus_loops loops{};

  // One loop_affinity per loop site (Body type) and range, kept across calls.
  // Several loops of one site can run at once (a loop per place, or the
  // same range in two branches of a recursion); a loop_affinity serves one
  // loop at a time, so one that is in use is not handed out again (the
  // loop then runs without it). The lock is taken once per loop, not per
  // piece.
  struct affinity_slot {
    locus::loop_affinity affinity;
    bool in_use = false;
  };
  template <class Body>
  static affinity_slot* claim_affinity(std::int64_t lo, std::int64_t hi, std::mutex*& lock_out) {
    static std::mutex mutex;
    static std::map<std::pair<std::int64_t, std::int64_t>, affinity_slot> by_range;
    lock_out = &mutex;
    std::lock_guard lock(mutex);
    affinity_slot& slot = by_range.try_emplace({lo, hi}).first->second;
    if (slot.in_use) return nullptr;
    slot.in_use = true;
    return &slot;
  }
  // Runs fn(loop_affinity*) with the site's object for [lo, hi), or nullptr.
  template <class Body, class Fn>
  static auto with_affinity(std::int64_t lo, std::int64_t hi, Fn&& fn) {
    std::mutex* mutex = nullptr;
    affinity_slot* slot = claim_affinity<Body>(lo, hi, mutex);
    struct release {
      affinity_slot* slot;
      std::mutex* mutex;
      ~release() {
        if (slot == nullptr) return;
        std::lock_guard lock(*mutex);
        slot->in_use = false;
      }
    } on_exit{slot, mutex};
    return fn(slot != nullptr ? &slot->affinity : nullptr);
  }

  template <class F, class G>
  static void fork2(F&& f, G&& g) {
    locus::fork_join(std::forward<F>(f), std::forward<G>(g));
  }
  template <class Body>
  static void loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    auto piece = [&](std::int64_t a, std::int64_t b) { body(a, b); };
    switch (loops) {
      case locus_loops::plain:
      case locus_loops::unhinted: return locus::parallel_for(lo, hi, grain, piece);
      case locus_loops::affinity:
      case locus_loops::affinity_unhinted:
        return with_affinity<Body>(lo, hi, [&](locus::loop_affinity* a) {
          if (a != nullptr) locus::parallel_for(lo, hi, grain, piece, *a);
          else locus::parallel_for(lo, hi, grain, piece);
        });
      case locus_loops::static_blocks: return locus::parallel_for(lo, hi, piece, locus::static_partition);
      case locus_loops::guided: return guided_loop(lo, hi, grain, piece);
      case locus_loops::distributed:
        return locus::parallel_for(lo, hi, grain, piece, locus::block_distribution(hi - lo));
    }
  }
  template <class Body>
  static double reduce(std::int64_t lo, std::int64_t hi, std::int64_t grain, Body&& body) {
    auto piece = [&](std::int64_t a, std::int64_t b, double acc) { return acc + body(a, b); };
    switch (loops) {
      case locus_loops::plain:
      case locus_loops::unhinted: return locus::parallel_reduce(lo, hi, grain, 0.0, piece, std::plus<>());
      case locus_loops::affinity:
      case locus_loops::affinity_unhinted:
        return with_affinity<Body>(lo, hi, [&](locus::loop_affinity* a) {
          if (a != nullptr) return locus::parallel_reduce(lo, hi, grain, 0.0, piece, std::plus<>(), *a);
          return locus::parallel_reduce(lo, hi, grain, 0.0, piece, std::plus<>());
        });
      case locus_loops::static_blocks:
        return locus::parallel_reduce(lo, hi, 0.0, piece, std::plus<>(), locus::static_partition);
      case locus_loops::guided: {
        // Per claimer, then summed in claimer order: a fixed order of
        // additions for a given schedule, as OpenMP's reduction has.
        std::vector<double> sums(static_cast<std::size_t>(locus::num_workers()), 0.0);
        guided_loop(lo, hi, grain, [&](std::int64_t a, std::int64_t b) {
          sums[static_cast<std::size_t>(locus::worker_id())] += body(a, b);
        });
        double total = 0;
        for (double v : sums) total += v;
        return total;
      }
      case locus_loops::distributed:
        return locus::parallel_reduce(lo, hi, grain, 0.0, piece, std::plus<>(), locus::block_distribution(hi - lo));
    }
    return 0.0;
  }
  // OpenMP's guided schedule as libgomp deals it (gomp_iter_guided_next):
  // one claimer per worker, posted by the static partition, each taking
  // the next max(ceil(left / P), grain) iterations from a shared counter
  // until none are left. The simulator charges the chunks' work and memory,
  // not the counter's cache line (an OpenMP team pays that too).
  template <class Piece>
  static void guided_loop(std::int64_t lo, std::int64_t hi, std::int64_t grain, Piece&& piece) {
    const std::int64_t team = locus::num_workers();
    const std::int64_t least = std::max<std::int64_t>(grain, 1);
    std::atomic<std::int64_t> next{lo};
    locus::parallel_for(std::int64_t{0}, team, [&](std::int64_t, std::int64_t) {
      for (std::int64_t start = next.load(std::memory_order_relaxed);;) {
        if (start >= hi) return;
        const std::int64_t size = std::min(std::max((hi - start + team - 1) / team, least), hi - start);
        if (next.compare_exchange_weak(start, start + size, std::memory_order_relaxed)) {
          piece(start, start + size);
          start = next.load(std::memory_order_relaxed);
        }
      }
    }, locus::static_partition);
  }

  // Enter the pool once, so the kernel's own constructs run on workers
  // rather than each being submitted from the runner's thread. The kernel
  // carries all the work (the empty branch none), so that the ADWS
  // policies give it the whole machine's range (seed 003, section 3.1: the
  // root task's range is [0, P)), not half of it.
  template <class Fn>
  static void region(Fn&& fn) {
    if (locus::worker_id() >= 0) return fn();
    locus::fork_join(locus::with(fn, locus::work(1.0)), locus::with([] {}, locus::work(0.0)));
  }
  template <class Fn>
  static void single(Fn&& fn) {
    fn();
  }
  template <class Fn>
  static void run(Fn&& fn) {
    region(std::forward<Fn>(fn));
  }
};

}  // namespace bench
