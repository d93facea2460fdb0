#include "policy/cats/profile.hpp"

namespace locus::detail::cats {

void soid_table::credit(task_id id, std::uint64_t misses, std::uint64_t bytes_per_miss, std::uint64_t ns) {
  std::lock_guard guard(lock_);
  entry& e = entries_[id];
  e.own_misses += misses;
  e.own_bytes += misses * bytes_per_miss;
  e.own_ns += ns;
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

bool soid_table::cpu_bound(double misses_per_us, std::uint64_t min_ns) const {
  std::lock_guard guard(lock_);
  std::size_t working = 0, light = 0;
  for (const auto& [id, e] : entries_) {
    if (e.own_ns < min_ns) continue;
    ++working;
    if (static_cast<double>(e.own_misses) * 1000.0 < misses_per_us * static_cast<double>(e.own_ns)) ++light;
  }
  return working > 0 && 2 * light > working;
}

}  // namespace locus::detail::cats
