// The resource manager (arenas.hpp): which arena each worker serves.
#include "core/arenas.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locus::detail {

void arena_manager::init(const placement& places, int max_arenas, arena_shares mode, bool isolating,
                         unsigned queue_lanes) {
  places_ = &places;
  mode_ = mode;
  isolating_ = isolating;
  count_ = static_cast<std::size_t>(max_arenas);
  slots_ = std::make_unique<arena_slot[]>(count_);
  const auto num_places = static_cast<std::size_t>(places.num_places);
  for (std::size_t a = 0; a < count_; ++a) {
    slots_[a].roots.init(places.num_places, queue_lanes);
    slots_[a].allotted = std::make_unique<std::atomic<int>[]>(num_places);
    for (std::size_t p = 0; p < num_places; ++p) slots_[a].allotted[p].store(0, std::memory_order_relaxed);
  }
  arena_slot& fallback = slots_[0];
  fallback.open = true;
  fallback.max_concurrency.store(static_cast<int>(places.worker_place.size()), std::memory_order_relaxed);
  for (std::size_t p = 0; p < num_places; ++p)
    fallback.allotted[p].store(static_cast<int>(places.place_workers[p].size()), std::memory_order_relaxed);
  targets_ = std::make_unique<std::atomic<std::uint16_t>[]>(places.worker_place.size());
  for (std::size_t w = 0; w < places.worker_place.size(); ++w) targets_[w].store(0, std::memory_order_relaxed);
}

int arena_manager::open(int max_concurrency, int only_place) {
  const int workers = only_place >= 0
                          ? static_cast<int>(places_->place_workers[static_cast<std::size_t>(only_place)].size())
                          : static_cast<int>(places_->worker_place.size());
  std::lock_guard guard(lock_);
  for (std::size_t a = 1; a < count_; ++a) {
    arena_slot& s = slots_[a];
    // A closed slot whose last work has returned; nothing of a closed
    // arena can start new work, so in_flight stays at 0 once it is there.
    if (s.open || s.in_flight.load(std::memory_order_acquire) != 0) continue;
    s.open = true;
    s.max_concurrency.store(std::clamp(max_concurrency, 1, workers), std::memory_order_relaxed);
    s.only_place.store(only_place, std::memory_order_relaxed);
    if (isolating_) engaged_.store(true, std::memory_order_release);
    forget_deal();
    if (a >= used_.load(std::memory_order_relaxed)) used_.store(a + 1, std::memory_order_release);
    return static_cast<int>(a);
  }
  throw std::runtime_error("locus::arena: all " + std::to_string(count_ - 1) +
                           " arenas are in use (with work still in flight from destroyed ones); "
                           "LOCUS_ARENA_MAX sets how many may exist at once, the default arena included "
                           "(default 64, at most 4096)");
}

void arena_manager::close(int id) {
  std::lock_guard guard(lock_);
  slot(id).open = false;
  forget_deal();
}

int arena_manager::place_cap(int id, int p) const {
  const int places = places_->num_places;
  const int m = slot(id).max_concurrency.load(std::memory_order_relaxed);
  if (const int only = slot(id).only_place.load(std::memory_order_relaxed); only >= 0) return p == only ? m : 0;
  const int extra = ((p - id) % places + places) % places < m % places ? 1 : 0;
  return m / places + extra;
}

void arena_manager::assign(const std::vector<int>& active, std::vector<std::uint16_t>& target) {
  const auto k = active.size();
  const int places = places_->num_places;
  std::vector<int> share(k);
  std::vector<std::vector<int>> per_place(k, std::vector<int>(static_cast<std::size_t>(places), 0));
  if (mode_ == arena_shares::places) {
    // Section 4.2: each place's workers dealt out in turn among the arenas
    // with work, each up to its cap there; the turn starts at a different
    // arena at each place, so that the arenas share the odd workers.
    for (int p = 0; p < places; ++p) {
      const auto& mine = places_->place_workers[static_cast<std::size_t>(p)];
      std::size_t next = 0;
      std::size_t turn = static_cast<std::size_t>(p) % k;
      for (std::size_t tried = 0; next < mine.size() && tried < k; turn = (turn + 1) % k) {
        const int a = active[turn];
        if (per_place[turn][static_cast<std::size_t>(p)] >= place_cap(a, p)) {
          ++tried;
          continue;
        }
        tried = 0;
        ++per_place[turn][static_cast<std::size_t>(p)];
        target[static_cast<std::size_t>(mine[next++])] = static_cast<std::uint16_t>(a);
      }
      // Workers no arena with work asks for wait in the default arena.
      for (; next < mine.size(); ++next) target[static_cast<std::size_t>(mine[next])] = 0;
    }
  } else {
    // Standard TBB's RML: shares by count, dealt in turn up to each
    // arena's max_concurrency, then consecutive workers (numbered place by
    // place) to each arena in order, whatever their places.
    const int workers = static_cast<int>(target.size());
    int left = workers;
    for (std::size_t tried = 0, turn = 0; left > 0 && tried < k; turn = (turn + 1) % k) {
      if (share[turn] >= slot(active[turn]).max_concurrency.load(std::memory_order_relaxed)) {
        ++tried;
        continue;
      }
      tried = 0;
      ++share[turn];
      --left;
    }
    int w = 0;
    for (std::size_t i = 0; i < k; ++i)
      for (int n = 0; n < share[i]; ++n, ++w) {
        target[static_cast<std::size_t>(w)] = static_cast<std::uint16_t>(active[i]);
        ++per_place[i][static_cast<std::size_t>(places_->worker_place[static_cast<std::size_t>(w)])];
      }
    for (; w < workers; ++w) target[static_cast<std::size_t>(w)] = 0;
  }
  for (std::size_t a = 0, used = used_.load(std::memory_order_relaxed); a < used; ++a)
    for (int p = 0; p < places; ++p) slots_[a].allotted[static_cast<std::size_t>(p)].store(0, std::memory_order_relaxed);
  for (std::size_t i = 0; i < k; ++i)
    for (int p = 0; p < places; ++p)
      slot(active[i]).allotted[static_cast<std::size_t>(p)].store(per_place[i][static_cast<std::size_t>(p)],
                                                                  std::memory_order_release);
  // The default arena also holds the workers nobody asks for.
  for (int p = 0; p < places; ++p) {
    int in_default = 0;
    for (int w : places_->place_workers[static_cast<std::size_t>(p)]) in_default += target[static_cast<std::size_t>(w)] == 0;
    slots_[0].allotted[static_cast<std::size_t>(p)].store(in_default, std::memory_order_release);
  }
}

bool arena_manager::unserved(int id) const {
  for (int p = 0; p < places_->num_places; ++p)
    if (allotted(id, p) > 0) return false;
  return true;
}

namespace {
// A place-limited arena takes a lender of its own place only.
bool serves_place(const arena_slot& s, int place) {
  const int only = s.only_place.load(std::memory_order_relaxed);
  return only < 0 || only == place;
}
}  // namespace

bool arena_manager::lendable_work(int mine, int place) const {
  for (std::size_t a = 0, used = used_.load(std::memory_order_acquire); a < used; ++a) {
    const arena_slot& s = slots_[a];
    if (static_cast<int>(a) != mine && serves_place(s, place) && !s.roots.empty() && unserved(static_cast<int>(a)) &&
        s.lenders.load(std::memory_order_acquire) < std::max(1, s.max_concurrency.load(std::memory_order_relaxed)))
      return true;
  }
  return false;
}

int arena_manager::try_lend(int mine, int place) {
  for (std::size_t a = 0, used = used_.load(std::memory_order_acquire); a < used; ++a) {
    arena_slot& s = slots_[a];
    if (static_cast<int>(a) == mine || !serves_place(s, place) || s.roots.empty() || !unserved(static_cast<int>(a)))
      continue;
    if (s.lenders.fetch_add(1, std::memory_order_acq_rel) < std::max(1, s.max_concurrency.load(std::memory_order_relaxed))) return static_cast<int>(a);
    s.lenders.fetch_sub(1, std::memory_order_acq_rel);
  }
  return -1;
}

bool arena_manager::try_enter(int id, int place) {
  arena_slot& s = slot(id);
  if (!serves_place(s, place)) return false;
  int dealt = 0;  // a lasting deal of an arena without work serves nothing (rebalance)
  if (s.in_flight.load(std::memory_order_acquire) > 0)
    for (int p = 0; p < places_->num_places; ++p) dealt += allotted(id, p);
  if (s.lenders.fetch_add(1, std::memory_order_acq_rel) + dealt < std::max(1, s.max_concurrency.load(std::memory_order_relaxed)))
    return true;
  s.lenders.fetch_sub(1, std::memory_order_acq_rel);
  return false;
}

void arena_manager::rebalance(std::vector<int>& moved) {
  std::lock_guard guard(lock_);
  std::vector<int>& active = active_;  // reused: a rebalance that deals nothing allocates nothing
  active.clear();
  for (std::size_t a = 0, used = used_.load(std::memory_order_relaxed); a < used; ++a)
    if (slots_[a].in_flight.load(std::memory_order_seq_cst) > 0) active.push_back(static_cast<int>(a));
  // A deal lasts (issue 44, oneTBB's hysteresis): when no arena has work
  // left, the workers keep the deal they have (they are idle wherever they
  // wait), and a deal for the arenas that have work now is the one in force.
  // So a loop of short execute calls deals once, not twice per entry; an
  // arena that starts or ends work while another has work still deals at
  // once, and open and close forget the deal (a slot may be reused with
  // another max_concurrency or place).
  if (active.empty() || active == dealt_) return;
  dealt_ = active;
  sole_dealt_.store(active.size() == 1 ? active[0] : -1, std::memory_order_seq_cst);
  std::vector<std::uint16_t> target(places_->worker_place.size(), 0);
  assign(active, target);
  for (std::size_t w = 0; w < target.size(); ++w)
    if (targets_[w].exchange(target[w], std::memory_order_acq_rel) != target[w]) moved.push_back(static_cast<int>(w));
  bool starving = false;
  for (int a : active) {
    int workers = 0;
    for (int p = 0; p < places_->num_places; ++p) workers += allotted(a, p);
    starving |= workers == 0;
  }
  starving_.store(starving, std::memory_order_release);
}

}  // namespace locus::detail
