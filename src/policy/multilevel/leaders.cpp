#include "policy/multilevel/leaders.hpp"

#include <algorithm>
#include <cassert>
#include <span>
#include <string>

#include "locus/errors.hpp"

namespace locus::detail {

cache_leaders::cache_leaders(policy_context& ctx, counters ids, bool flattening)
    : ctx_(&ctx),
      ids_(ids),
      tree_(ctx.topo(), ctx.places()),
      lead_(index(ctx.num_workers())),
      pending_(index(ctx.num_workers())),
      leader_(index(tree_.size())),
      tied_(index(tree_.size())),
      domain_of_(index(tree_.size())) {
  if (flattening) build_flat_domains();
  saved_.resize(index(domains()));
  for (int id = 0; id < tree_.size(); ++id) {
    parked_.push_back(std::make_unique<parked_frames>());
    tied_[index(id)].value.store(0, std::memory_order_relaxed);
    domain_of_[index(id)].value.store(tree_.at(id).parent, std::memory_order_relaxed);
  }
  for (int w = 0; w < ctx.num_workers(); ++w) {
    const int lead = tree_.initial_lead(w);
    lead_[index(w)].value.store(lead, std::memory_order_relaxed);
    leader_[index(lead)].value.store(w, std::memory_order_relaxed);
  }
}

// Every flattened domain figure 15 can choose, made up front so that a
// task's context can name it by id: for each run of sibling caches (or the
// root alone) and each deeper level whose caches under them are not just
// the first cache's children (that is figure 13's tie). A run of caches
// within a flattened domain is not flattened again (only one cache is), so
// runs are of siblings in the tree.
void cache_leaders::build_flat_domains() {
  auto add = [&](int first, int last, const std::vector<int>& run) {
    for (int level = tree_.at(first).level + 1; level <= tree_.max_level(); ++level) {
      std::vector<int> children;
      for (int c : run) {
        const std::vector<int> below = tree_.below(c, level);
        children.insert(children.end(), below.begin(), below.end());
      }
      if (children == run) continue;  // nothing below them to spread over
      if (first == last && children == tree_.at(first).children) {
        flat_ids_[{first, last, level}] = first;  // the tie of figure 13
        continue;
      }
      // The same caches as at the level above (their leaves stop early).
      if (auto prev = flat_ids_.find({first, last, level - 1});
          prev != flat_ids_.end() && prev->second >= tree_.size() && flat(prev->second).children == children) {
        flat_ids_[{first, last, level}] = prev->second;
        continue;
      }
      flat_domain d;
      d.first = first;
      d.last = last;
      d.level = level;
      d.children = std::move(children);
      for (int c : run) {
        d.workers.insert(d.workers.end(), tree_.at(c).workers.begin(), tree_.at(c).workers.end());
        std::vector<int> stack{c};
        while (!stack.empty()) {
          const int n = stack.back();
          stack.pop_back();
          if (std::find(d.children.begin(), d.children.end(), n) != d.children.end()) continue;
          d.covered.push_back(n);
          for (int k : tree_.at(n).children) stack.push_back(k);
        }
      }
      const int id = tree_.size() + static_cast<int>(flat_.size());
      if (id + 1 > static_cast<int>(level_word::domain_bits))
        throw config_error("LOCUS_POLICY=ml-adws: this machine's cache tree has too many ways to flatten it (" +
                           std::to_string(id) + "; at most 65534 domains fit a context)");
      flat_ids_[{first, last, level}] = id;
      flat_.push_back(std::move(d));
    }
  };
  add(cache_tree::root, cache_tree::root, {cache_tree::root});
  for (int p = 0; p < tree_.size(); ++p) {
    const auto& ch = tree_.at(p).children;
    for (std::size_t i = 0; i < ch.size(); ++i) {
      if (tree_.is_leaf(ch[i])) continue;  // a leaf's leader ties nothing
      for (std::size_t m = i; m < ch.size(); ++m)
        add(ch[i], ch[m], std::vector<int>(ch.begin() + static_cast<std::ptrdiff_t>(i),
                                           ch.begin() + static_cast<std::ptrdiff_t>(m) + 1));
    }
  }
}

int cache_leaders::index_in(int domain, int node) const {
  const auto& ch = children_of(domain);
  const int first = tree_.at(node).workers.front();
  auto it = std::lower_bound(ch.begin(), ch.end(), first,
                             [&](int c, int worker) { return tree_.at(c).workers.front() < worker; });
  return it != ch.end() && *it == node ? static_cast<int>(it - ch.begin()) : -1;
}

int cache_leaders::child_toward(int domain, int worker) const {
  if (domain < tree_.size()) return tree_.child_toward(domain, worker);
  for (int c : children_of(domain))
    if (std::binary_search(tree_.at(c).workers.begin(), tree_.at(c).workers.end(), worker)) return c;
  return -1;
}

// Figure 15 lines 62-71 (figure 13's line 55 when flattening is off or
// the footprint unknown: an unknown footprint fits the first cache).
int cache_leaders::choose(int first, int through, std::size_t footprint) const {
  if (flat_.empty() || footprint == unknown_footprint) {
    return footprint == unknown_footprint || footprint <= tree_.at(first).capacity ? first : -1;
  }
  // The caches C_i..C_max(i,j-1), siblings in the tree.
  const int parent = tree_.at(first).parent;
  std::span<const int> run(&first, 1);
  if (through >= 0 && through != first && parent >= 0 && tree_.at(through).parent == parent) {
    const auto& ch = tree_.at(parent).children;
    const auto a = std::find(ch.begin(), ch.end(), first);
    const auto b = std::find(a, ch.end(), through);
    if (b != ch.end()) run = std::span<const int>(&*a, static_cast<std::size_t>(b - a) + 1);
  }
  through = run.back();
  const int level = tree_.flatten_level(run, footprint);
  if (level == tree_.at(first).level) return -1;  // line 71
  const auto it = flat_ids_.find({first, through, level});
  return it == flat_ids_.end() ? -1 : it->second;
}

int cache_leaders::tie(worker_view& w, task_context& group, std::size_t footprint, int through) {
  const int c = lead_of(w.id);
  if (tree_.is_leaf(c)) return -1;  // line 55: a leaf ties nothing
  if (!at_level(w, w.ctx) || must_settle(w.id)) return -1;  // a posted frame away from its level; a leader on its way
  const int d = choose(c, through, footprint);
  if (d < 0) return -1;  // line 60
  if (d < tree_.size()) return tie_to(w, group, d);
  if (const int f = flatten(w, group, d); f >= 0) return f;
  // A covered cache has a group of its own: figure 13 alone.
  return footprint <= tree_.at(c).capacity ? tie_to(w, group, c) : -1;
}

// The group's children, and the rest of the running task until the sync
// (the continuations its spawns push), belong to the new level.
void cache_leaders::set_contexts(worker_view& w, task_context& group, int domain) {
  saved_[index(domain)] = w.ctx;
  const std::uint32_t word = level_word::tag(domain);
  group.policy[0] = word | level_word::tie_mark;
  w.ctx.policy[0] = word;
}

int cache_leaders::lead_toward(int to, int worker) const {
  for (int n = to;;) {
    const int v = leader_of(n);
    if (v < 0 || v == worker || tree_.is_leaf(n)) return n;
    n = tree_.child_toward(n, worker);
  }
}

int cache_leaders::claimable(const worker_view& w) const {
  if (must_settle(w.id)) return -1;
  const int lead = lead_of(w.id);
  const int up = tree_.at(lead).parent;
  if (up <= cache_tree::root || domain_of(lead) != up) return -1;  // memory, or w runs a flattened domain
  if (leader_of(up) >= 0 || tied_[index(up)].value.load(std::memory_order_acquire) != 0) return -1;
  // A flattening clears a covered node's leader, but the node stays the
  // lead of its old leader until that one settles (possibly back to it
  // after the unflattening): not free.
  for (const slot& lead_of_worker : lead_)
    if (lead_of_worker.value.load(std::memory_order_acquire) == up) return -1;
  return up;
}

bool cache_leaders::claim(worker_view& w, int parent) {
  {
    std::lock_guard lock(flatten_lock_);  // against a flattening and a settle
    if (claimable(w) != parent) return false;
    lead(w.id, lead_of(w.id), parent);
  }
  if (ids_.claims >= 0) ctx_->count(w, ids_.claims);
  ctx_->trace(w, "claim", parent);
  return true;
}

bool cache_leaders::step_down(worker_view& w, int node) {
  {
    std::lock_guard lock(flatten_lock_);  // against a flattening, a settle and a claim
    if (leaderless_below(w, [node](int n) { return n == node; }) != node) return false;
    lead(w.id, lead_of(w.id), node);
  }
  if (ids_.claims >= 0) ctx_->count(w, ids_.claims);
  ctx_->trace(w, "step down", node);
  return true;
}

// worker stops leading `from` (if it still does) and leads `to`.
void cache_leaders::lead(int worker, int from, int to) {
  int expected = worker;
  leader_[index(from)].value.compare_exchange_strong(expected, -1, std::memory_order_acq_rel);
  lead_[index(worker)].value.store(to, std::memory_order_release);
  leader_[index(to)].value.store(worker, std::memory_order_release);
}

int cache_leaders::tie_to(worker_view& w, task_context& group, int c) {
  int expected = 0;
  if (!tied_[index(c)].value.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    // A flattening covered c a moment ago (w will settle); anything else
    // would be a second group on one cache, which the tests look for.
    std::lock_guard lock(flatten_lock_);
    if (!must_settle(w.id)) ctx_->count(w, ids_.overlapping_ties);
    return -1;
  }
  park(w, c);
  {
    std::lock_guard lock(flatten_lock_);  // lead_toward against a claim
    lead(w.id, c, lead_toward(tree_.child_toward(c, w.id), w.id));
  }
  set_contexts(w, group, c);
  ctx_->count(w, ids_.ties);
  ctx_->trace(w, "tie", c);
  wake_leaders(c, -1, w.id);
  return c;
}

// Figure 15 line 69: the covered caches are tied to the group, their
// leaders (and those of the nodes between them and the domain's caches)
// step down to the domain's cache on their path, w at once, the others
// when they settle. flatten_lock_ is never held across a wake or a park:
// under the simulator the workers are fibers of one thread, and a wake
// may switch to another that wants the lock.
int cache_leaders::flatten(worker_view& w, task_context& group, int domain) {
  flat_domain& d = flat(domain);
  const int c = lead_of(w.id);
  std::vector<std::pair<int, int>> moved;
  {
    std::lock_guard lock(flatten_lock_);
    for (std::size_t k = 0; k < d.covered.size(); ++k) {
      int expected = 0;
      if (tied_[index(d.covered[k])].value.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) continue;
      while (k-- > 0) tied_[index(d.covered[k])].value.store(0, std::memory_order_release);
      return -1;
    }
    for (int s : d.children) domain_of_[index(s)].value.store(domain, std::memory_order_release);
    d.restore.clear();
    for (int n : d.covered) leader_[index(n)].value.store(-1, std::memory_order_release);
    for (int u : d.workers) {
      const int pending = pending_[index(u)].value.load(std::memory_order_acquire);
      const int now = pending >= 0 ? pending : lead_of(u);
      if (std::find(d.covered.begin(), d.covered.end(), now) == d.covered.end()) continue;
      d.restore.emplace_back(u, now);
      const int down = child_toward(domain, u);
      if (u == w.id) lead(u, c, lead_toward(down, u));
      else pending_[index(u)].value.store(down, std::memory_order_seq_cst);  // pairs with has_work_for's last look
    }
    moved = d.restore;
  }
  park(w, c);
  set_contexts(w, group, domain);
  ctx_->count(w, ids_.flattened);
  ctx_->trace(w, "flatten", domain);
  for (auto [u, node] : moved)
    if (u != w.id) ctx_->wake(ctx_->worker_at(u));
  wake_leaders(domain, -1, w.id);
  return domain;
}

void cache_leaders::untie(worker_view& w, int domain) {
  if (domain >= tree_.size()) return unflatten(w, domain);
  const int was = lead_of(w.id);
  assert(domain_of(was) == domain && "a tied group's continuation runs on a leader of the node's children");
  lead(w.id, was, domain);
  tied_[index(domain)].value.fetch_sub(1, std::memory_order_acq_rel);
  w.ctx = saved_[index(domain)];
  ctx_->trace(w, "untie", domain);
}

// The flattened group's sync is done on w: w leads the first covered cache
// (its task's owner), every other covered node's leader goes back up.
void cache_leaders::unflatten(worker_view& w, int domain) {
  flat_domain& d = flat(domain);
  std::vector<int> up;
  {
    std::lock_guard lock(flatten_lock_);
    const int was = lead_of(w.id);
    assert(domain_of(was) == domain && "a flattened group's continuation runs in its domain");
    for (int s : d.children) domain_of_[index(s)].value.store(tree_.at(s).parent, std::memory_order_release);
    lead(w.id, was, d.first);
    for (auto [u, node] : d.restore) {
      if (u == w.id || node == d.first) continue;  // w leads d.first; its old leader stays below
      pending_[index(u)].value.store(node, std::memory_order_seq_cst);
      up.push_back(u);
    }
    for (int n : d.covered) tied_[index(n)].value.store(0, std::memory_order_release);
  }
  w.ctx = saved_[index(domain)];
  ctx_->trace(w, "unflatten", domain);
  for (int u : up) ctx_->wake(ctx_->worker_at(u));
}

void cache_leaders::settle(worker_view& w) {
  if (!must_settle(w.id)) return;
  int to, was;
  {
    std::lock_guard lock(flatten_lock_);
    to = pending_[index(w.id)].value.exchange(-1, std::memory_order_acq_rel);
    if (to < 0) return;
    to = lead_toward(to, w.id);  // a worker may have claimed it
    was = lead_of(w.id);
    if (to == was) return;
    lead(w.id, was, to);
  }
  ctx_->trace(w, "settle", to);
  // Stepping down: the frames on its deque belong to the level it left,
  // but for those of the flattened domain itself, which a task posted to
  // w (a static partition's piece) may have pushed before w settled.
  if (tree_.at(to).level > tree_.at(was).level) park(w, was, domain_of(to));
}

// The frames on the leader's deque belong to the level above the tie;
// those of domain `keep` stay on it, in their order.
void cache_leaders::park(worker_view& w, int node, int keep) {
  std::vector<frame*> frames;
  while (frame* f = w.deque.pop()) frames.push_back(f);
  if (frames.empty()) return;
  std::reverse(frames.begin(), frames.end());  // oldest first
  std::vector<frame*> away;
  for (frame* f : frames) {
    if (keep != no_domain && level_word::domain(f->ctx) == keep) push_own(w, f);
    else away.push_back(f);
  }
  if (!away.empty()) park_frames(w, node, away);
}

void cache_leaders::hand_over(worker_view& w, frame* f) {
  const int d = level_word::domain(f->ctx);
  int node = cache_tree::root;
  if (d >= 0) {
    node = child_toward(d, w.id);
    if (node < 0) node = children_of(d).front();
  }
  park_frames(w, node, {f});
}

void cache_leaders::park_frames(worker_view& w, int node, const std::vector<frame*>& oldest_first) {
  parked_frames& p = *parked_[index(node)];
  {
    std::lock_guard lock(p.lock);
    for (frame* f : oldest_first) p.frames.push_back(f);
    // seq_cst: pairs with has_parked in a sleeper's last look.
    p.count.fetch_add(static_cast<int>(oldest_first.size()), std::memory_order_seq_cst);
  }
  for (std::size_t i = 0; i < oldest_first.size(); ++i) ctx_->count(w, ids_.parked);
  // Its leader, and the leaders of its siblings, may take them now.
  if (const int v = leader_of(node); v >= 0 && v != w.id) ctx_->wake(ctx_->worker_at(v));
  if (const int d = domain_of(node); d >= 0) wake_leaders(d, node, w.id);
}

void cache_leaders::wake_leaders(int domain, int except, int skip_worker) {
  for (int k : children_of(domain)) {
    const int v = leader_of(k);
    if (k != except && v >= 0 && v != skip_worker) ctx_->wake(ctx_->worker_at(v));
  }
}

frame* cache_leaders::take_parked(int node, bool newest) {
  parked_frames* p = parked_[index(node)].get();
  if (p->count.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard lock(p->lock);
  if (p->frames.empty()) return nullptr;
  frame* f;
  if (newest) {
    f = p->frames.back();
    p->frames.pop_back();
  } else {
    f = p->frames.front();
    p->frames.pop_front();
  }
  p->count.fetch_sub(1, std::memory_order_relaxed);
  return f;
}

bool cache_leaders::has_parked(int node) const {
  return parked_[index(node)]->count.load(std::memory_order_seq_cst) != 0;
}

}  // namespace locus::detail
