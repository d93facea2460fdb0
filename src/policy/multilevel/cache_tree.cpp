#include "policy/multilevel/cache_tree.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace locus::detail {

cache_tree::cache_tree(const topology& topo, const placement& places) {
  const int workers = static_cast<int>(places.worker_core.size());
  // The workers of each shared cache, merged by worker set.
  std::map<std::vector<int>, std::size_t> shared;  // workers -> capacity
  for (const cache_info& c : topo.caches) {
    std::vector<int> below;
    for (int w = 0; w < workers; ++w)
      if (std::find(c.cores.begin(), c.cores.end(), places.worker_core[static_cast<std::size_t>(w)]) != c.cores.end())
        below.push_back(w);
    if (below.size() < 2) continue;
    auto& cap = shared[below];
    cap = std::max(cap, c.size_bytes);
  }
  node memory;
  memory.capacity = unbounded;
  for (int w = 0; w < workers; ++w) memory.workers.push_back(w);
  nodes_.push_back(memory);
  // Larger sets first, so a node's parent exists before it.
  std::vector<std::pair<std::vector<int>, std::size_t>> order(shared.begin(), shared.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  auto contains = [](const std::vector<int>& big, const std::vector<int>& small) {
    return std::includes(big.begin(), big.end(), small.begin(), small.end());
  };
  // The parent: the smallest node holding more workers than `set`, the
  // later (deeper) one of equal size, as memory and a cache that holds
  // every worker are (the cache is memory's only child).
  auto smallest_holding = [&](const std::vector<int>& set) {
    int best = root;
    for (int id = 1; id < size(); ++id)
      if (at(id).workers.size() > set.size() && contains(at(id).workers, set) &&
          at(id).workers.size() <= at(best).workers.size())
        best = id;
    return best;
  };
  for (auto& [set, cap] : order) {
    node n;
    n.capacity = cap;
    n.workers = set;
    n.parent = smallest_holding(set);
    nodes_.push_back(std::move(n));
  }
  // A worker's private caches: those no other worker shares.
  std::vector<std::size_t> private_bytes(static_cast<std::size_t>(workers), 0);
  for (const cache_info& c : topo.caches) {
    int only = -1, count = 0;
    for (int w = 0; w < workers; ++w)
      if (std::find(c.cores.begin(), c.cores.end(), places.worker_core[static_cast<std::size_t>(w)]) != c.cores.end()) {
        only = w;
        ++count;
      }
    if (count == 1) private_bytes[static_cast<std::size_t>(only)] = std::max(private_bytes[static_cast<std::size_t>(only)], c.size_bytes);
  }
  leaf_.resize(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    node leaf;
    leaf.workers = {w};
    leaf.worker = w;
    leaf.capacity = private_bytes[static_cast<std::size_t>(w)];
    leaf.parent = smallest_holding(leaf.workers);
    leaf_[static_cast<std::size_t>(w)] = size();
    nodes_.push_back(std::move(leaf));
  }
  for (int id = 1; id < size(); ++id) nodes_[static_cast<std::size_t>(at(id).parent)].children.push_back(id);
  for (auto& n : nodes_)
    std::sort(n.children.begin(), n.children.end(),
              [&](int a, int b) { return at(a).workers.front() < at(b).workers.front(); });
  // Levels from the root down (parents come before children in nodes_).
  for (int id = 1; id < size(); ++id) {
    nodes_[static_cast<std::size_t>(id)].level = at(at(id).parent).level + 1;
    max_level_ = std::max(max_level_, at(id).level);
  }
  // Bottom-up election: a node's leader is its first child's leader, and a
  // worker leads the highest node it was elected for.
  initial_lead_.assign(static_cast<std::size_t>(workers), -1);
  for (int w = 0; w < workers; ++w) {
    int lead = leaf_of(w);
    while (at(lead).parent >= 0 && at(at(lead).parent).children.front() == lead) lead = at(lead).parent;
    initial_lead_[static_cast<std::size_t>(w)] = lead;
  }
}

int cache_tree::child_toward(int id, int worker) const {
  for (int c : at(id).children)
    if (std::binary_search(at(c).workers.begin(), at(c).workers.end(), worker)) return c;
  return -1;
}

std::vector<int> cache_tree::below(int id, int level) const {
  if (at(id).level >= level || is_leaf(id)) return {id};
  std::vector<int> out;
  for (int c : at(id).children) {
    const std::vector<int> sub = below(c, level);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

// Figure 15, lines 64-67.
int cache_tree::flatten_level(std::span<const int> caches, std::size_t size) const {
  auto capacity_at = [&](int level) {
    std::size_t sum = 0;
    for (int c : caches)
      for (int d : below(c, level)) {
        if (at(d).capacity == unbounded) return unbounded;
        sum += at(d).capacity;
      }
    return sum;
  };
  const int level = at(caches.front()).level;
  int next = level;
  std::size_t cap = capacity_at(level);
  while (next < max_level_ && size <= cap) cap = capacity_at(++next);
  return next;
}

std::string cache_tree::describe() const {
  std::ostringstream out;
  for (int id = 0; id < size(); ++id) {
    const node& n = at(id);
    if (n.worker >= 0) continue;
    out << std::string(static_cast<std::size_t>(2 * n.level), ' ') << "level " << n.level << " [" << n.workers.front()
        << ".." << n.workers.back() << "] ";
    if (n.capacity == unbounded) out << "memory";
    else out << n.capacity << " bytes";
    out << ", " << n.children.size() << " children\n";
  }
  return out.str();
}

}  // namespace locus::detail
