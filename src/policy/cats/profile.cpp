#include "policy/cats/profile.hpp"

#include <vector>

namespace locus::detail::cats {

// ------------------------------------------------------------ soid_table

void soid_table::credit(task_id id, const miss_sample& d, std::uint64_t bytes_per_miss, std::uint64_t ns) {
  task_counts c;
  c.add(d, bytes_per_miss, ns);
  add(id, c);
}

void soid_table::add(task_id id, const task_counts& c) {
  std::lock_guard guard(lock_);
  entries_[id].own.add(c);
}

std::uint64_t soid_table::complete(task_id id, task_id parent) {
  std::lock_guard guard(lock_);
  entry& e = entries_[id];
  e.completed = true;
  const std::uint64_t s = e.soid();
  entries_[parent].children_bytes += s;  // may rehash: e is not used after this
  return s;
}

bool soid_table::completed(task_id id) const {
  std::lock_guard guard(lock_);
  const auto it = entries_.find(id);
  return it != entries_.end() && it->second.completed;
}

std::optional<std::uint64_t> soid_table::soid(task_id id) const {
  std::lock_guard guard(lock_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second.soid();
}

std::optional<soid_table::entry> soid_table::find(task_id id) const {
  std::lock_guard guard(lock_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void soid_table::clear() {
  std::lock_guard guard(lock_);
  entries_.clear();
}

std::size_t soid_table::size() const {
  std::lock_guard guard(lock_);
  return entries_.size();
}

bool soid_table::cpu_bound_cmpi(double threshold) const {
  std::lock_guard guard(lock_);
  std::size_t working = 0, light = 0;
  for (const auto& [id, e] : entries_) {
    if (e.own.instructions == 0 && e.own.weighted == 0) continue;
    ++working;
    if (e.own.weighted < threshold * static_cast<double>(e.own.instructions)) ++light;
  }
  return working > 0 && 2 * light > working;
}

bool soid_table::cpu_bound_per_us(double misses_per_us, std::uint64_t min_ns) const {
  std::lock_guard guard(lock_);
  std::size_t working = 0, light = 0;
  for (const auto& [id, e] : entries_) {
    if (e.own.ns < min_ns) continue;
    ++working;
    if (static_cast<double>(e.own.misses) * 1000.0 < misses_per_us * static_cast<double>(e.own.ns)) ++light;
  }
  return working > 0 && 2 * light > working;
}

bool soid_table::no_misses() const {
  std::lock_guard guard(lock_);
  for (const auto& [id, e] : entries_)
    if (e.own.misses != 0) return false;
  return true;
}

// ------------------------------------------------------------ profile_recorder

profile_recorder::profile_recorder(int workers) : workers_(workers), slots_(new slot[static_cast<std::size_t>(workers)]) {}

void profile_recorder::start(root_tag root) {
  root_.store(root, std::memory_order_release);
  for (int w = 0; w < workers_; ++w) {
    slot& s = slots_[static_cast<std::size_t>(w)];
    std::lock_guard guard(s.lock);
    s.own.clear();
    s.done.clear();
  }
}

bool profile_recorder::claim(root_tag root) {
  root_tag none = 0;
  return root_.compare_exchange_strong(none, root, std::memory_order_acq_rel) || none == root;
}

void profile_recorder::credit(int w, root_tag root, task_id id, const miss_sample& d, std::uint64_t bytes_per_miss,
                              std::uint64_t ns) {
  slot& s = slots_[static_cast<std::size_t>(w)];
  std::lock_guard guard(s.lock);
  // Read under the slot's lock: start() changes the root before it clears
  // the slot, so an old root's strand never lands in a new profile.
  if (root == 0 || root != root_.load(std::memory_order_acquire)) return;
  s.own[id].add(d, bytes_per_miss, ns);
}

bool profile_recorder::complete(int w, root_tag root, task_id id, task_id parent) {
  slot& s = slots_[static_cast<std::size_t>(w)];
  std::lock_guard guard(s.lock);
  if (root == 0 || root != root_.load(std::memory_order_acquire)) return false;
  s.done[id] = parent;
  return true;
}

bool profile_recorder::completed(task_id id) const {
  for (int w = 0; w < workers_; ++w) {
    const slot& s = slots_[static_cast<std::size_t>(w)];
    std::lock_guard guard(s.lock);
    if (s.done.count(id) != 0) return true;
  }
  return false;
}

void profile_recorder::build_into(soid_table& table) const {
  std::unordered_map<task_id, task_counts> own;
  std::unordered_map<task_id, task_id> parent_of;
  for (int w = 0; w < workers_; ++w) {
    const slot& s = slots_[static_cast<std::size_t>(w)];
    std::lock_guard guard(s.lock);
    for (const auto& [id, c] : s.own) own[id].add(c);
    parent_of.insert(s.done.begin(), s.done.end());
  }
  // Eq. (1) bottom-up: a completed task's SOID goes to its parent once all
  // of its own completed children have gone to it.
  std::unordered_map<task_id, std::size_t> pending;  // completed children not yet added
  for (const auto& [id, parent] : parent_of) ++pending[parent];
  table.clear();
  for (const auto& [id, c] : own) table.add(id, c);
  std::vector<task_id> ready;
  for (const auto& [id, parent] : parent_of)
    if (pending.count(id) == 0) ready.push_back(id);
  while (!ready.empty()) {
    const task_id id = ready.back();
    ready.pop_back();
    const task_id parent = parent_of.at(id);
    table.complete(id, parent);
    if (--pending[parent] == 0 && parent_of.count(parent) != 0) ready.push_back(parent);
  }
}

}  // namespace locus::detail::cats
