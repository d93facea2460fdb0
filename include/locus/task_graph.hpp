// Task graphs: Nabbit and its colored extension NabbitC (the NabbitC paper, sections
// II and III). A graph is a set of nodes named by keys; each node lists the
// keys of its predecessors and runs its compute() after every predecessor's
// compute() has returned, and under no other ordering.
//
// A node type (figure 2's DynamicNabbitNode, as a plain C++ type):
//
//   struct cell {
//     using key_type = std::pair<int, int>;             // any hashable type
//     explicit cell(const key_type& k);                 // made once per key
//     void init();                                      // optional
//     std::vector<key_type> predecessors() const;       // any range of keys
//     void compute();
//     static int color(const key_type& k);              // optional (NabbitC)
//   };
//
//   locus::task_graph<cell> g;          // dynamic: computed on demand
//   g.run(sink);                        // sink and everything it depends on
//   g.find(k)->...                      // a node that was created
//
//   locus::static_task_graph<cell> s;   // static: every node added up front
//   for (auto k : keys) s.add(k);
//   s.run();                            // computes every node added
//
// or with lambdas: make_task_graph<Key>(preds, compute[, color]) and
// make_static_task_graph<Key>(...) take preds(key) -> range of keys,
// compute(key) and color(key) -> int, all called concurrently (const).
//
// The dynamic form creates a node when some node first needs it: a
// concurrent map makes each key's node exactly once (detail/key_map.hpp),
// and a node's predecessors are explored in parallel, depth first (section
// II). A node that finds a predecessor already created puts itself on that
// predecessor's successor list; a computed node takes and closes its list in
// one atomic exchange and starts the successors whose last predecessor it
// was. So no notification is lost: an add either lands before the exchange
// (and is notified) or finds the list closed (and counts that predecessor as
// done itself).
//
// Colors (NabbitC). color(key) names the worker whose data the node mostly
// touches (locus::worker_color() while initializing data tells a worker its
// own color; no_color, or any number no worker has, is allowed). Under the
// `nabbitc` policy ready nodes are spawned by color with morphing
// continuations (figure 3) and every spawn tells the scheduler the colors in
// its continuation, which thieves match (colored steals, src/policy/nabbitc).
// Under any other policy colors are ignored: that is Nabbit.
//
// Exceptions thrown by a node's init(), predecessors() or compute() reach
// the caller of run() after every task of the run has finished; the nodes
// that depended on the failed one never run, and the graph refuses further
// runs. A cycle among the nodes the sink needs is reported by run() (a
// std::logic_error) once the nodes outside it have run.
//
// measure_locality() before a run counts the remote-access measure of
// section V-B (graph_locality), read with locality() after it.
//
// One run at a time per graph; find() may be called from compute() (for the
// results of predecessors, which are complete then) and after run().
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/detail/constructs_namespace.hpp"
#include "locus/detail/key_map.hpp"
#include "locus/detail/task_colors.hpp"
#include "locus/detail/worker_view.hpp"
#include "locus/detail/wait_queue.hpp"
#include "locus/fork_join.hpp"

namespace locus {

// A node without a color (and what color() returns when a node has none).
inline constexpr int no_color = -1;

// The calling worker's color: under `nabbitc` its id, or its place's index
// with LOCUS_NABBITC_COLORS=place; under other policies its id, so that one
// coloring serves both Nabbit and NabbitC. -1 off the pool.
int worker_color() noexcept;
// How many colors the workers have (num_workers(), or num_places() with
// LOCUS_NABBITC_COLORS=place under nabbitc).
int num_colors();

namespace detail {

// The running policy's colors (task_colors.hpp), with what holds without
// them: colors are on only under a policy that has them and on a worker;
// a worker's color is otherwise its id.
inline bool graph_colors_on() noexcept { return running_colors() != nullptr && current_worker() != nullptr; }
inline int graph_worker_color() noexcept {
  task_colors* c = running_colors();
  worker_view* w = current_worker();
  return c != nullptr && w != nullptr ? c->color_of(*w) : no_color;
}
inline std::uint32_t graph_colors_tag(const int* colors, std::size_t n) {
  task_colors* c = running_colors();
  return c != nullptr ? c->tag_of_set(colors, n) : 0;
}
inline std::uint32_t graph_color_tag(int color) noexcept {
  task_colors* c = running_colors();
  return c != nullptr ? c->tag_of(color) : 0;
}
inline int graph_color_place(int color) noexcept {
  if (task_colors* c = running_colors()) return c->place_of_color(color);
  return place_of_worker(color);  // colors are worker ids
}
inline void graph_release_tag(std::uint32_t tag) noexcept {
  if (task_colors* c = running_colors()) c->release(tag);
}
inline bool graph_last_steal_colored() noexcept {
  task_colors* c = running_colors();
  worker_view* w = current_worker();
  return c != nullptr && w != nullptr && c->last_steal_colored(*w);
}
inline bool graph_hands_off() noexcept {
  task_colors* c = running_colors();
  return c != nullptr && c->hands_off();
}
inline bool graph_tags_compute() noexcept {
  task_colors* c = running_colors();
  return c != nullptr && c->tags_compute();
}
inline bool graph_hand_off(frame* job, int color) {
  task_colors* c = running_colors();
  worker_view* w = current_worker();
  return c != nullptr && w != nullptr && c->hand_off(*w, job, color);
}
// Puts a color tag on the running task's context; returns the one it replaced.
inline std::uint32_t graph_carry_tag(task_context& ctx, std::uint32_t tag) noexcept {
  task_colors* c = running_colors();
  return c != nullptr ? c->carry(ctx, tag) : 0;
}

template <class N>
concept graph_node_type = requires(N& n, const N& cn) {
  typename N::key_type;
  n.compute();
  { cn.predecessors() } -> std::ranges::input_range;
};

// How a graph makes a node of a user type and colors a key.
template <class Node>
struct node_spec {
  using key_type = typename Node::key_type;
  Node make(const key_type& k) const { return Node(k); }
  int color(const key_type& k) const {
    if constexpr (requires { { Node::color(k) } -> std::convertible_to<int>; })
      return static_cast<int>(Node::color(k));
    else
      return no_color;
  }
};

struct no_key_color {
  template <class K>
  int operator()(const K&) const noexcept { return no_color; }
};

// The lambda form: a node is its key and the graph's functions.
template <class Key, class Preds, class Compute, class Color>
struct fn_spec {
  using key_type = Key;
  struct node {
    using key_type = Key;
    const Key* key;
    const fn_spec* fns;
    decltype(auto) predecessors() const { return fns->preds(*key); }
    void compute() { fns->compute(*key); }
  };
  node make(const Key& k) const { return node{&k, this}; }
  int color(const Key& k) const { return static_cast<int>(color_fn(k)); }
  Preds preds;
  Compute compute;
  Color color_fn;
};

// One node of a graph: the user's node, its join counter (predecessors not
// yet computed, plus one held by whoever is still exploring them), its
// successor list and its cells in its predecessors' lists.
template <class Node, class Key>
struct graph_entry {
  struct link {
    graph_entry* successor = nullptr;
    link* next = nullptr;
  };
  // A list that was taken by its node's compute_and_notify: adds fail.
  static link* closed() noexcept {
    static link mark;
    return &mark;
  }

  graph_entry(const Key& k, int c) : key(k), color(c) {}
  ~graph_entry() {
    if (constructed) node()->~Node();
  }
  Node* node() noexcept { return std::launder(reinterpret_cast<Node*>(storage)); }

  // Adds l to this node's successors unless it is computed (then false:
  // the caller counts this predecessor as done).
  bool add_successor(link& l) noexcept {
    link* head = successors.load(std::memory_order_acquire);
    do {
      if (head == closed()) return false;
      l.next = head;
      // Release: the notifier that takes the list reads l's fields.
    } while (!successors.compare_exchange_weak(head, &l, std::memory_order_release, std::memory_order_acquire));
    return true;
  }

  const Key& key;  // the map's copy
  const int color;
  bool constructed = false;
  // The worker whose notification or exploration made the node ready, when
  // the graph measures locality (graph_locality's breakdown); read by the
  // worker that computes it, after the frame that carried it reached it.
  int readied_by = -1;
  // Handed to the workers of its color instead of computed by its readier
  // (written before the hand-off publishes it).
  bool handed_off = false;
  std::atomic<bool> computed{false};
  std::atomic<std::int64_t> join{0};
  std::atomic<link*> successors{nullptr};
  std::unique_ptr<link[]> links;
  alignas(Node) unsigned char storage[sizeof(Node)];
};

}  // namespace detail

inline namespace LOCUS_CONSTRUCTS_NS {

namespace detail_graph {

// Runs body with the running task's context carrying `tag` (figure 3's
// cilkrts_set_next_colors before a spawn; task_colors::carry): the frame
// fork_join pushes copies it, and so carries the colors of the continuation. Restored on the
// worker that returns (the body may have moved to another), also when the
// body throws; the tag is released once its frame has joined.
struct next_colors {
  explicit next_colors(std::uint32_t tag, bool release) : tag_(tag), release_(release) {
#ifndef LOCUS_SERIAL_ELISION
    saved_ = detail::graph_carry_tag(detail::current_worker()->ctx, tag);
#endif
  }
  ~next_colors() {
#ifndef LOCUS_SERIAL_ELISION
    detail::graph_carry_tag(detail::current_worker()->ctx, saved_);
#endif
    if (release_) detail::graph_release_tag(tag_);
  }
  next_colors(const next_colors&) = delete;
  next_colors& operator=(const next_colors&) = delete;

 private:
  std::uint32_t tag_;
  std::uint32_t saved_ = 0;
  bool release_;
};

inline bool colors_on() noexcept {
#ifdef LOCUS_SERIAL_ELISION
  return false;
#else
  return detail::graph_colors_on();
#endif
}

// spawn_nodes (figure 3, lines 18-32): a parallel loop over nodes of one
// color, the continuation of each spawn carrying that color.
template <class Item, class Act>
void spawn_nodes(Item* items, std::size_t n, int color, bool colored, Act& act) {
  if (n == 1) {
    act(items[0]);
    return;
  }
  const std::size_t half = n / 2;
  auto first = [&] { spawn_nodes(items, half, color, colored, act); };
  auto second = [&] { spawn_nodes(items + half, n - half, color, colored, act); };
  if (colored) {
    next_colors next(detail::graph_color_tag(color), false);  // line 29
    fork_join(first, second);
  } else {
    fork_join(first, second);
  }
}

// spawn_colors (figure 3, lines 1-15): groups [lo, hi) of items sorted by
// color; group g is items[bounds[g], bounds[g + 1]) of color colors[g].
template <class Item, class Act>
void spawn_colors(Item* items, const std::size_t* bounds, const int* colors, std::size_t lo, std::size_t hi,
                  Act& act) {
  if (hi - lo == 1) return spawn_nodes(items + bounds[lo], bounds[lo + 1] - bounds[lo], colors[lo], true, act);
  // Morphing continuation: the half holding this worker's color runs first
  // (lines 6-11); a thief that takes the continuation starts here again,
  // with its own color.
  const int mine = detail::graph_worker_color();
  std::size_t a_lo = lo, a_hi = lo + (hi - lo) / 2, b_lo = a_hi, b_hi = hi;
  if (std::binary_search(colors + b_lo, colors + b_hi, mine)) std::swap(a_lo, b_lo), std::swap(a_hi, b_hi);
  next_colors next(detail::graph_colors_tag(colors + b_lo, b_hi - b_lo), true);  // line 12
  fork_join([&] { spawn_colors(items, bounds, colors, a_lo, a_hi, act); },
            [&] { spawn_colors(items, bounds, colors, b_lo, b_hi, act); });
}

// Spawns act(item) for every item (figure 4's gather_colors, then
// spawn_colors): by color under nabbitc, in list order otherwise (Nabbit).
template <class Item, class ColorOf, class Act>
void spawn_all(Item* items, std::size_t n, ColorOf color_of, Act& act) {
  if (n == 0) return;
  if (n == 1) return act(items[0]);
  if (!colors_on()) return spawn_nodes(items, n, no_color, false, act);
  std::stable_sort(items, items + n, [&](const Item& a, const Item& b) { return color_of(a) < color_of(b); });
  std::vector<std::size_t> bounds{0};
  std::vector<int> colors{color_of(items[0])};
  for (std::size_t i = 1; i < n; ++i)
    if (color_of(items[i]) != colors.back()) {
      bounds.push_back(i);
      colors.push_back(color_of(items[i]));
    }
  bounds.push_back(n);
  spawn_colors(items, bounds.data(), colors.data(), 0, colors.size(), act);
}
template <class Item, class ColorOf, class Act>
void spawn_all(std::vector<Item>& items, ColorOf color_of, Act& act) {
  spawn_all(items.data(), items.size(), color_of, act);
}

// The successors a notification made ready: a few in place (a stencil's
// node readies at most three), more on the heap, so that the common case
// allocates nothing per node.
template <class Item>
class ready_list {
 public:
  void push_back(Item x) {
    if (n_ < inline_capacity) {
      inline_[n_++] = x;
      return;
    }
    if (n_ == inline_capacity) more_.assign(inline_, inline_ + inline_capacity);
    more_.push_back(x);
    ++n_;
  }
  std::size_t size() const { return n_; }
  Item* data() { return n_ <= inline_capacity ? inline_ : more_.data(); }
  Item& operator[](std::size_t i) { return data()[i]; }

 private:
  static constexpr std::size_t inline_capacity = 8;
  Item inline_[inline_capacity];
  std::size_t n_ = 0;
  std::vector<Item> more_;
};

// Runs fn on the pool (a worker calls it directly).
template <class F>
void on_pool(F& fn) {
#ifdef LOCUS_SERIAL_ELISION
  fn();
#else
  if (detail::current_worker() != nullptr) return fn();
  detail::run_on_pool([](void* f) { (*static_cast<F*>(f))(); }, &fn);
#endif
}

}  // namespace detail_graph

// The remote-access measure of NabbitC's section V-B, at node level: of
// the nodes a run computed, those computed on a worker whose place has no
// worker of the node's color, and of their predecessors, those whose color
// no worker of the computing worker's place has (no_color and colors no
// worker has count as remote). The paper reports the sum of the two remote
// counts over the sum of the two totals.
struct graph_locality {
  std::uint64_t nodes = 0;
  std::uint64_t remote_nodes = 0;
  std::uint64_t predecessors = 0;
  std::uint64_t remote_predecessors = 0;
  // Where the computed nodes came from (node counts, of `nodes`), each with
  // how many of them were remote: computed by the worker that made them
  // ready (run in place, or spawned and popped back by it), or by another
  // worker whose latest steal was colored (nabbitc, section III) or not
  // (a random attempt, or any steal under another policy).
  std::uint64_t by_readier = 0, by_readier_remote = 0;
  std::uint64_t after_colored = 0, after_colored_remote = 0;
  std::uint64_t after_random = 0, after_random_remote = 0;
  // Handed to the workers of their color (nabbitc) by the worker that made
  // them ready, and taken by one of them or by a random attempt.
  std::uint64_t handed = 0, handed_remote = 0;
  double remote_share() const {
    const std::uint64_t all = nodes + predecessors;
    return all == 0 ? 0.0 : static_cast<double>(remote_nodes + remote_predecessors) / static_cast<double>(all);
  }
};

// What the dynamic and the static forms share: the nodes, the map,
// compute_and_notify.
template <class Node, class Hash, class Eq, class Spec>
class basic_task_graph {
  static_assert(detail::graph_node_type<Node>,
                "a task graph node needs key_type, compute() and a const predecessors() returning a range of keys");

 public:
  using key_type = typename Spec::key_type;
  using node_type = Node;

  basic_task_graph(const basic_task_graph&) = delete;
  basic_task_graph& operator=(const basic_task_graph&) = delete;

  // The node of `key` if it was created (and constructed), else nullptr.
  Node* find(const key_type& key) const {
    entry* e = map_.find(key);
    return e != nullptr && e->constructed ? e->node() : nullptr;
  }
  // Whether the node of `key` exists and its compute() has returned.
  bool computed(const key_type& key) const {
    entry* e = map_.find(key);
    return e != nullptr && e->computed.load(std::memory_order_acquire);
  }
  // Nodes created so far.
  std::size_t size() const { return map_.size(); }

  // Counts the remote-access measure (graph_locality) in the runs that
  // follow: a look-up of each node's and each predecessor's color per node
  // computed, off unless asked. Call before run(), not during one.
  void measure_locality() {
#ifndef LOCUS_SERIAL_ELISION
    locality_.assign(static_cast<std::size_t>(num_workers()), {});
#endif
  }
  // The measure summed over the workers (zeros if it was not asked for, and
  // in the serial elision, which has no places).
  graph_locality locality() const {
    graph_locality sum;
    for (const auto& slot : locality_) {
      sum.nodes += slot.counts.nodes;
      sum.remote_nodes += slot.counts.remote_nodes;
      sum.predecessors += slot.counts.predecessors;
      sum.remote_predecessors += slot.counts.remote_predecessors;
      sum.by_readier += slot.counts.by_readier;
      sum.by_readier_remote += slot.counts.by_readier_remote;
      sum.after_colored += slot.counts.after_colored;
      sum.after_colored_remote += slot.counts.after_colored_remote;
      sum.after_random += slot.counts.after_random;
      sum.after_random_remote += slot.counts.after_random_remote;
      sum.handed += slot.counts.handed;
      sum.handed_remote += slot.counts.handed_remote;
    }
    return sum;
  }

 protected:
  using entry = detail::graph_entry<Node, key_type>;
  using link = typename entry::link;
  struct pred_item {
    key_type key;
    std::uint32_t index;  // its cell in the successor's links
    int color;
  };

  explicit basic_task_graph(Spec spec) : spec_(std::move(spec)) {}
  ~basic_task_graph() = default;

  std::pair<entry*, bool> find_or_create(const key_type& key) {
    return map_.find_or_create(key, [&](const key_type& k) { return std::make_unique<entry>(k, spec_.color(k)); });
  }

  void construct(entry& e) {
    ::new (static_cast<void*>(e.storage)) Node(spec_.make(e.key));
    e.constructed = true;
    if constexpr (requires(Node& n) { n.init(); }) e.node()->init();
  }

  std::vector<pred_item> predecessors_of(entry& e) {
    std::vector<pred_item> preds;
    std::uint32_t i = 0;
    const auto& keys = std::as_const(*e.node()).predecessors();
    if constexpr (requires { std::size(keys); }) preds.reserve(std::size(keys));
    for (auto&& k : keys) {
      const key_type& key = k;
      preds.push_back({key, i++, spec_.color(key)});
    }
    e.links = std::make_unique<link[]>(preds.size());
    return preds;
  }

  // compute_and_notify (figure 4, lines 35-39): compute, then take the
  // successor list and close it in one exchange (so no successor waits
  // behind a batch, as the paper's "while there are new successors" loop
  // would let it), and spawn the successors this made ready, by color. A
  // single ready successor runs in this loop, so a chain does not deepen
  // the stack. Under nabbitc with the option hand_offs=on (ours, off by
  // default) a ready successor of another worker's color is handed to that
  // color instead (hand_off): figure 3 alone, the paper's, computes it here
  // whenever it is the only one ready (spawn_nodes, lines 18-21), and that
  // is where most remote nodes came from (docs/benchmarks.md).
  void compute_and_notify(entry& first) {
    const bool colored = detail_graph::colors_on();
    const bool hand = colored && detail::graph_hands_off();
    // Ours, off by default (option tag_compute): the paper sets colors only
    // at the library's spawns (figure 3, lines 12 and 29).
    const bool tag_compute = colored && detail::graph_tags_compute();
    const int mine = colored ? detail::graph_worker_color() : no_color;
    for (entry* e = &first;;) {
      if (!locality_.empty()) [[unlikely]] count_locality(*e);
      if (tag_compute) {
        // The node's own color on what its compute() spawns.
        detail_graph::next_colors own(detail::graph_color_tag(e->color), false);
        e->node()->compute();
      } else {
        e->node()->compute();
      }
      e->computed.store(true, std::memory_order_release);
      // acq_rel: our compute's writes go to whoever finds the list closed;
      // the successors' cells are read below.
      link* l = e->successors.exchange(entry::closed(), std::memory_order_acq_rel);
      detail_graph::ready_list<entry*> ready;
      for (; l != nullptr; l = l->next)
        if (l->successor->join.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          readied(*l->successor);
          if (!(hand && hand_off(*l->successor, mine))) ready.push_back(l->successor);
        }
      if (ready.size() == 1) {
        e = ready[0];
        continue;
      }
      auto act = [this](entry* s) { compute_and_notify(*s); };
      detail_graph::spawn_all(ready.data(), ready.size(), [](entry* s) { return s->color; }, act);
      return;
    }
  }

  // A ready node whose color belongs to another worker than `mine` (the
  // caller's color) goes to the workers of its color as a job (nabbitc's
  // hand-off lists), counted in pending_ until it and what it starts are
  // done. False if it stays here: its color is the caller's, or no
  // worker's.
  bool hand_off(entry& e, int mine) {
#ifndef LOCUS_SERIAL_ELISION
    if (e.color == mine || detail::graph_color_place(e.color) < 0) return false;
    auto* job = ::new (detail::allocate_job(sizeof(handed_job))) handed_job(*this, e);
    e.handed_off = true;
    pending_.fetch_add(1, std::memory_order_relaxed);  // before anyone can run it (the hand-off publishes it)
    if (detail::graph_hand_off(job, e.color)) return true;
    pending_.fetch_sub(1, std::memory_order_relaxed);
    e.handed_off = false;
    job->~handed_job();
    detail::free_job(job, sizeof(handed_job));
#else
    (void)e;
    (void)mine;
#endif
    return false;
  }

  // Readiness at a place where the node would otherwise run at once.
  void start_ready(entry& e) {
    readied(e);
    if (detail_graph::colors_on() && detail::graph_hands_off() && hand_off(e, detail::graph_worker_color())) return;
    compute_and_notify(e);
  }

  // Runs fn (the run's own tasks), then waits for the nodes handed off
  // during it; rethrows fn's exception, else the first a handed node threw.
  template <class F>
  void run_then_wait(F&& fn) {
    std::exception_ptr own;
    try {
      fn();
    } catch (...) {
      own = std::current_exception();
    }
#ifndef LOCUS_SERIAL_ELISION
    // acq_rel: the handed nodes' writes (and handed_error_) come before.
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) != 1)
      detail::wait_until_handed(this, &basic_task_graph::finished_or_enqueue);
    pending_.store(1, std::memory_order_relaxed);
    finished_ = false;
    std::exception_ptr handed = std::exchange(handed_error_, nullptr);
    handed_failed_.store(false, std::memory_order_relaxed);
    if (!own) own = handed;
#endif
    if (own) std::rethrow_exception(own);
  }

  // Notes who made e ready, for graph_locality's breakdown (measured runs).
  void readied(entry& e) {
#ifndef LOCUS_SERIAL_ELISION
    if (!locality_.empty()) [[unlikely]] e.readied_by = detail::current_worker()->id;
#else
    (void)e;
#endif
  }

  // Section V-B's two counts for a node about to be computed here; each
  // worker writes only its own slot.
  void count_locality(entry& e) {
#ifndef LOCUS_SERIAL_ELISION
    const detail::worker_view* w = detail::current_worker();
    graph_locality& c = locality_[static_cast<std::size_t>(w->id)].counts;
    ++c.nodes;
    const bool remote = detail::graph_color_place(e.color) != w->place;
    if (remote) ++c.remote_nodes;
    if (e.handed_off) {
      ++c.handed;
      c.handed_remote += remote ? 1 : 0;
    } else if (e.readied_by == w->id) {
      ++c.by_readier;
      c.by_readier_remote += remote ? 1 : 0;
    } else if (detail::graph_last_steal_colored()) {
      ++c.after_colored;
      c.after_colored_remote += remote ? 1 : 0;
    } else {
      ++c.after_random;
      c.after_random_remote += remote ? 1 : 0;
    }
    for (auto&& k : std::as_const(*e.node()).predecessors()) {
      ++c.predecessors;
      if (detail::graph_color_place(spec_.color(k)) != w->place) ++c.remote_predecessors;
    }
#else
    (void)e;
#endif
  }

  // Throws if an earlier run failed; marks the graph failed if fn throws.
  template <class F>
  void guarded_run(const char* who, F&& fn) {
    if (failed_) throw std::logic_error(std::string(who) + ": an earlier run of this graph failed; build a new graph");
    try {
      detail_graph::on_pool(fn);
    } catch (...) {
      failed_ = true;
      throw;
    }
  }
  std::size_t not_computed() const {
    std::size_t n = 0;
    map_.for_each([&](const entry& e) { n += e.computed.load(std::memory_order_relaxed) ? 0 : 1; });
    return n;
  }
  [[noreturn]] void fail_cycle(const char* who) {
    failed_ = true;
    throw std::logic_error(std::string(who) + ": " + std::to_string(not_computed()) +
                           " nodes could not run: their predecessors form a cycle (a task graph must be acyclic)");
  }

#ifndef LOCUS_SERIAL_ELISION
  // A node handed to the workers of its color: a job the scheduler runs.
  struct handed_job : detail::frame {
    handed_job(basic_task_graph& g, entry& e) : graph(&g), node(&e) {
      run = &run_handed;
      // The readier's whole context, as a spawn's child gets it: its arena
      // (a frame runs only in its arena, scheduler.cpp) and place hint;
      // then the node's color in place of the readier's tag.
      ctx = detail::current_worker()->ctx;
      detail::graph_carry_tag(ctx, detail::graph_color_tag(e.color));
    }
    static detail::frame* run_handed(detail::frame* f) {
      auto* job = static_cast<handed_job*>(f);
      basic_task_graph* g = job->graph;
      entry* e = job->node;
      job->~handed_job();
      detail::free_job(job, sizeof(handed_job));
      try {
        g->compute_and_notify(*e);
      } catch (...) {
        if (!g->handed_failed_.exchange(true, std::memory_order_relaxed)) g->handed_error_ = std::current_exception();
      }
      // acq_rel: with the run's own decrement, which waits for this one.
      if (g->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) g->finish();
      return nullptr;
    }
    basic_task_graph* graph;
    entry* node;
  };
  // The last handed node is done and the run waits (pending_ went to 0
  // after the run's own decrement): wake it. Not a semaphore: a release
  // whose permit the run takes on its fast path may still be unlocking the
  // semaphore when the run returns and the graph goes away; here the run
  // looks at finished_ only under the queue lock, and nothing of the graph
  // is touched after that lock is released (hand_to touches the waiter).
  void finish() {
    waiters_.lock();
    finished_ = true;
    detail::task_waiter* w = waiters_.pop();
    waiters_.unlock();
    if (w != nullptr) detail::hand_to(w);
  }
  static bool finished_or_enqueue(void* self, detail::task_waiter* w) noexcept {
    auto& g = *static_cast<basic_task_graph*>(self);
    g.waiters_.lock();
    const bool done = g.finished_;
    if (!done) g.waiters_.push(w);
    g.waiters_.unlock();
    return done;
  }
  // Handed nodes not yet done, plus one held by the run until its own tasks
  // are; the last to finish wakes the run if it waits.
  std::atomic<std::int64_t> pending_{1};
  detail::wait_queue waiters_;  // the run, once it waits
  bool finished_ = false;       // under waiters_' lock
  std::atomic<bool> handed_failed_{false};
  std::exception_ptr handed_error_;  // written by the first handed node that threw
#endif

  Spec spec_;
  detail::key_map<key_type, entry, Hash, Eq> map_;
  bool failed_ = false;
  struct alignas(64) locality_slot {
    graph_locality counts;
  };
  std::vector<locality_slot> locality_;  // per worker; empty: not measured
};

// The dynamic form: nodes are created on demand, from the sink.
template <class Node, class Hash = std::hash<typename Node::key_type>, class Eq = std::equal_to<typename Node::key_type>,
          class Spec = detail::node_spec<Node>>
class task_graph : public basic_task_graph<Node, Hash, Eq, Spec> {
  using base = basic_task_graph<Node, Hash, Eq, Spec>;
  using typename base::entry;
  using typename base::pred_item;

 public:
  using key_type = typename base::key_type;
  task_graph() : base(Spec{}) {}
  explicit task_graph(Spec spec) : base(std::move(spec)) {}

  // Computes `sink` and every node it transitively depends on that no
  // earlier run computed. Returns when all are done; rethrows a node's
  // exception once every task of the run has finished.
  void run(const key_type& sink) {
    this->guarded_run("task_graph::run", [&] {
      auto [e, created] = this->find_or_create(sink);
      this->run_then_wait([&] {
        if (created) init_and_compute(*e);
      });
      if (!e->computed.load(std::memory_order_acquire)) this->fail_cycle("task_graph::run");
    });
  }

 private:
  // init_node_and_compute (figure 4, lines 18-23), for a node this caller
  // created. A node with one predecessor continues in this loop with that
  // predecessor when it created it, so a chain explored on demand does not
  // deepen the stack.
  void init_and_compute(entry& first) {
    for (entry* e = &first;;) {
      this->construct(*e);
      std::vector<pred_item> preds = this->predecessors_of(*e);
      if (preds.empty()) return this->start_ready(*e);
      if (preds.size() == 1) {
        // Its one predecessor notifies it, or is found computed: join = 1,
        // no extra count held.
        e->join.store(1, std::memory_order_relaxed);
        auto [p, created] = this->find_or_create(preds[0].key);
        if (!attach(*e, *p, 0)) {
          if (e->join.fetch_sub(1, std::memory_order_acq_rel) == 1) return this->start_ready(*e);
          return;
        }
        if (!created) return;
        e = p;
        continue;
      }
      // One count per predecessor, plus ours until all are explored.
      e->join.store(static_cast<std::int64_t>(preds.size()) + 1, std::memory_order_relaxed);
      auto act = [this, e](pred_item& p) { try_init_compute(*e, p); };
      detail_graph::spawn_all(preds, [](const pred_item& p) { return p.color; }, act);  // lines 20-21
      if (e->join.fetch_sub(1, std::memory_order_acq_rel) == 1) return this->start_ready(*e);  // lines 22-23
      return;
    }
  }

  // try_init_compute (figure 4, lines 26-32): the node of p is created once;
  // u goes on its successor list first (the creator's node is its first
  // successor), then the creator explores it.
  void try_init_compute(entry& u, pred_item& p) {
    auto [v, created] = this->find_or_create(p.key);
    if (!attach(u, *v, p.index)) u.join.fetch_sub(1, std::memory_order_acq_rel);  // we hold one: never 0
    if (created) init_and_compute(*v);
  }

  // Puts u's cell `index` on v's successor list; false if v is computed.
  static bool attach(entry& u, entry& v, std::uint32_t index) {
    auto& cell = u.links[index];
    cell.successor = &u;
    return v.add_successor(cell);
  }
};

// The static form: every node is added before run(), which computes them
// all, starting from the nodes without predecessors.
template <class Node, class Hash = std::hash<typename Node::key_type>, class Eq = std::equal_to<typename Node::key_type>,
          class Spec = detail::node_spec<Node>>
class static_task_graph : public basic_task_graph<Node, Hash, Eq, Spec> {
  using base = basic_task_graph<Node, Hash, Eq, Spec>;
  using typename base::entry;
  using typename base::pred_item;

 public:
  using key_type = typename base::key_type;
  static_task_graph() : base(Spec{}) {}
  explicit static_task_graph(Spec spec) : base(std::move(spec)) {}

  // Creates and initializes the node of `key`. Throws std::invalid_argument
  // for a key added twice and std::logic_error after run().
  Node& add(const key_type& key) {
    if (ran_) throw std::logic_error("static_task_graph::add: the graph has run; add every node before run()");
    auto [e, created] = this->find_or_create(key);
    if (!created) throw std::invalid_argument("static_task_graph::add: a key was added twice; each node once");
    this->construct(*e);
    added_.push_back(e);
    return *e->node();
  }

  // Computes every node added. Throws std::invalid_argument (before any
  // node runs) if a node lists a predecessor that was not added.
  void run() {
    if (ran_) throw std::logic_error("static_task_graph::run: the graph has run already; build a new graph");
    ran_ = true;
    std::vector<entry*> sources;
    for (entry* e : added_) {
      const std::vector<pred_item> preds = this->predecessors_of(*e);
      e->join.store(static_cast<std::int64_t>(preds.size()), std::memory_order_relaxed);
      for (const pred_item& p : preds) {
        auto* v = this->map_.find(p.key);
        if (v == nullptr) {
          this->failed_ = true;
          throw std::invalid_argument(
              "static_task_graph::run: a node lists a predecessor key that was never added (a static graph needs "
              "every node added before run(); task_graph creates them on demand)");
        }
        e->links[p.index].successor = e;
        v->add_successor(e->links[p.index]);
      }
      if (preds.empty()) sources.push_back(e);
    }
    this->guarded_run("static_task_graph::run", [&] {
      for (entry* e : sources) this->readied(*e);
      auto act = [this](entry* s) { this->compute_and_notify(*s); };
      this->run_then_wait([&] { detail_graph::spawn_all(sources, [](entry* s) { return s->color; }, act); });
      if (this->not_computed() != 0) this->fail_cycle("static_task_graph::run");
    });
  }

 private:
  std::vector<entry*> added_;
  bool ran_ = false;
};

// The lambda forms: preds(key) -> a range of keys, compute(key), and
// optionally color(key) -> int.
template <class Key, class Preds, class Compute, class Color = detail::no_key_color,
          class Hash = std::hash<Key>, class Eq = std::equal_to<Key>>
auto make_task_graph(Preds preds, Compute compute, Color color = {}) {
  using spec = detail::fn_spec<Key, Preds, Compute, Color>;
  return task_graph<typename spec::node, Hash, Eq, spec>(spec{std::move(preds), std::move(compute), std::move(color)});
}

template <class Key, class Preds, class Compute, class Color = detail::no_key_color,
          class Hash = std::hash<Key>, class Eq = std::equal_to<Key>>
auto make_static_task_graph(Preds preds, Compute compute, Color color = {}) {
  using spec = detail::fn_spec<Key, Preds, Compute, Color>;
  return static_task_graph<typename spec::node, Hash, Eq, spec>(
      spec{std::move(preds), std::move(compute), std::move(color)});
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace locus
