#include "policy/cats/cats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "util/parse_setting.hpp"
#include "locus/errors.hpp"
#include "topology/topology.hpp"

namespace locus::detail {

using cats::tier;
using cats::task_id;

namespace {

// The task context's policy words (cats.hpp): the 48-bit id in [0] and the
// low half of [2], the root tag (profile.hpp) in the high half of [2]; in
// [1] the tier (top bits) and below it the number of children spawned so
// far, or, for an intra-socket task, its socket.
constexpr std::uint32_t tier_shift = 28;
constexpr std::uint32_t low_mask = (std::uint32_t{1} << tier_shift) - 1;
// frame::policy_word of a leaf inter-socket task's own job (route_spawn); the
// frames forked inside its subtree carry its tier too, but not this mark.
constexpr std::uint16_t leaf_job = 1;

task_id id_of(const task_context& c) { return c.policy[0] | (static_cast<task_id>(c.policy[2] & 0xFFFF) << 32); }
void set_id(task_context& c, task_id id) {
  c.policy[0] = static_cast<std::uint32_t>(id);
  c.policy[2] = (c.policy[2] & 0xFFFF0000u) | static_cast<std::uint32_t>((id >> 32) & 0xFFFF);
}
cats::root_tag root_of(const task_context& c) { return static_cast<cats::root_tag>(c.policy[2] >> 16); }
void set_root(task_context& c, cats::root_tag r) { c.policy[2] = (c.policy[2] & 0xFFFFu) | (std::uint32_t{r} << 16); }
tier tier_of(const task_context& c) { return static_cast<tier>((c.policy[1] >> tier_shift) & 3); }
std::uint32_t low_of(const task_context& c) { return c.policy[1] & low_mask; }
void set_tier(task_context& c, tier t, std::uint32_t low) {
  c.policy[1] = (static_cast<std::uint32_t>(t) << tier_shift) | (low & low_mask);
}

// "6M", "512K", "6291456": one byte up to 1 TiB.
std::uint64_t parse_bytes(std::string_view setting, std::string_view text) {
  return parse_byte_size(setting, text, 1, std::size_t{1} << 40);
}

double parse_number(std::string_view setting, std::string_view text, const char* accepted) {
  return parse_real(setting, text, 0, std::numeric_limits<double>::max(), accepted);
}
constexpr const char* misses_accepted = "a number >= 0 of private-cache misses per microsecond (0: off)";
constexpr const char* cmpi_accepted = "auto, or a number >= 0 of normalized misses per instruction (0: never CPU-bound)";
double parse_misses(std::string_view setting, std::string_view text) {
  return parse_number(setting, text, misses_accepted);
}
// auto: -1 (1 / p_1, set once the miss source is known).
double parse_cmpi(std::string_view setting, std::string_view text) {
  return text == "auto" ? -1 : parse_number(setting, text, cmpi_accepted);
}

bool parse_switch(std::string_view setting, std::string_view text) {
  if (text == "0" || text == "1") return text == "1";
  throw config_error(std::string(setting) + "=" + std::string(text) + ": accepted are 0 and 1");
}

// The outermost cache level private to `core` (held by no other core); 0
// if none is.
int private_level(const topology& topo, int core) {
  int level = 0;
  for (const auto& c : topo.caches)
    if (c.cores.size() == 1 && c.cores.front() == core) level = std::max(level, c.level);
  return level;
}

// The outermost cache holding `core`, or nullptr.
const cache_info* outermost_cache(const topology& topo, int core) {
  const cache_info* best = nullptr;
  for (const auto& c : topo.caches)
    for (int k : c.cores)
      if (k == core && (best == nullptr || c.level > best->level)) best = &c;
  return best;
}

}  // namespace

cats_policy::cats_policy(policy_context& c)
    : policy_base(c),
      misses_(c.eng(), c.num_workers(), c.option("miss_source"),
              private_level(c.topo(), c.places().worker_core.front()), c.option("penalties")),
      recorder_(c.num_workers()),
      cpu_bound_misses_(parse_misses("LOCUS_CATS_CPU_BOUND", c.option("cpu_bound_misses"))),
      cmpi_threshold_(parse_cmpi("LOCUS_CATS_CMPI", c.option("cmpi_threshold"))),
      socket_of_(static_cast<std::size_t>(c.num_workers())),
      state_(new worker_state[static_cast<std::size_t>(c.num_workers())]) {
  // Sockets: workers grouped by the outermost cache their cores share.
  std::vector<const cache_info*> key_of_socket;
  const cache_info* first_cache = nullptr;
  for (int w = 0; w < c.num_workers(); ++w) {
    const cache_info* llc = outermost_cache(c.topo(), c.places().worker_core[static_cast<std::size_t>(w)]);
    if (w == 0) first_cache = llc;
    std::size_t s = 0;
    while (s < key_of_socket.size() && key_of_socket[s] != llc) ++s;
    if (s == key_of_socket.size()) {
      key_of_socket.push_back(llc);
      sockets_.push_back(std::make_unique<socket_state>());
    }
    sockets_[s]->workers.push_back(w);
    socket_of_[static_cast<std::size_t>(w)] = static_cast<int>(s);
  }
  const std::string& cache = c.option("shared_cache");
  if (cache != "auto") {
    shared_cache_ = parse_bytes("LOCUS_CATS_SHARED_CACHE", cache);
  } else if (first_cache != nullptr) {
    shared_cache_ = first_cache->size_bytes;  // section 3.2.2: from the machine (the paper: /proc/cpuinfo)
  } else {
    throw config_error("LOCUS_POLICY=cats: the topology lists no cache to size intra-socket subtrees by; "
                       "set LOCUS_CATS_SHARED_CACHE (e.g. 6M)");
  }
  spread_ = parse_switch("LOCUS_CATS_SPREAD", c.option("spread"));
  sticky_ = parse_switch("LOCUS_CATS_STICKY", c.option("sticky"));
  // Section 3.5 gives no threshold. Ours, stated: a task is memory-bound
  // when its normalized misses, each costing p_1, would stall it at least
  // as long as its instructions take at one per cycle: CMPI >= 1 / p_1.
  if (cmpi_threshold_ < 0 && misses_.gives_cmpi())
    cmpi_threshold_ = 1.0 / static_cast<double>(misses_.l1_miss_penalty());
  if (c.option("penalties") != "off" && !misses_.gives_cmpi()) say_no_cmpi();
  subtree_limit_.store(shared_cache_);
  // With one socket and its own last-level cache as the limit there is no
  // other socket whose cache a subtree could stay out of, and one subtree at
  // a time would only idle cores: plain ws, unprofiled. A shared_cache set
  // by hand still partitions one socket (subtrees that fit it, in turn).
  if (misses_.kind() == cats::source_kind::none) plain_reason_ = no_miss_source;
  else if (sockets_.size() == 1 && cache == "auto") plain_reason_ = one_socket;
  if (plain_reason_ >= 0) {
    misses_.measuring(false);
    mode_.store(static_cast<int>(mode::plain));
    return;  // no hooks: plain work stealing at its own cost
  }
  for (int w = 0; w < c.num_workers(); ++w) c.worker_at(w).hooks |= hook_work_hints | hook_task_events;
}

// Penalties were given for section 3.5's CMPI on threads, but the source
// cannot count its inputs: said once, naming the event that failed.
void cats_policy::say_no_cmpi() const {
  const std::string& why = misses_.kind() == cats::source_kind::perf ? misses_.cmpi_error() : misses_.perf_error();
  std::fprintf(stderr,
               "locus: cats: LOCUS_CATS_PENALTIES is set, but the %s miss source gives no CMPI%s%s; a profile is "
               "CPU-bound only if nothing missed (counter no_cmpi)\n",
               cats::to_string(misses_.kind()), why.empty() ? "" : ": ", why.c_str());
}

// Under profile_lock_, and no engine call: under the simulator a wake can
// switch to another virtual worker on this thread, which may want the lock.
void cats_policy::set_mode(mode m) {
  misses_.measuring(m == mode::profiling);
  mode_.store(static_cast<int>(m), std::memory_order_seq_cst);
}

// After a mode change, outside profile_lock_: what workers may take changed
// (may_take), so sleepers look again.
void cats_policy::wake_all() {
  for (int w = 0; w < ctx->num_workers(); ++w) ctx->wake(ctx->worker_at(w));
}

// ------------------------------------------------------------ profiling

void cats_policy::switch_task(worker_view& w, bool measuring, task_id next, cats::root_tag root) {
  worker_state& st = state_[static_cast<std::size_t>(w.id)];
  if (st.measuring || measuring) {
    const cats::miss_sample m = misses_.read(w.id);
    const std::uint64_t t = ctx->eng().now_ns();
    if (st.measuring) {
      const cats::miss_sample d{m.misses - st.at.misses, m.weighted - st.at.weighted,
                                m.instructions - st.at.instructions};
      recorder_.credit(w.id, st.root, st.current, d, misses_.bytes_per_miss(), t - st.ns);
    }
    st.at = m;
    st.ns = t;
  }
  st.measuring = measuring;
  st.current = next;
  st.root = root;
}

void cats_policy::begin_root(worker_view& w) {
  cats::root_tag tag = 0;
  while (tag == 0) tag = static_cast<cats::root_tag>(roots_.fetch_add(1, std::memory_order_relaxed) + 1);
  set_root(w.ctx, tag);  // inherited by everything the root creates
  if (current_mode() == mode::profiling) recorder_.claim(tag);
}

void cats_policy::on_task(worker_view& w, task_event e, const frame* f) {
  // A root job begins (the empty path, no tag yet): a new root computation.
  if (e == task_event::begin && root_of(w.ctx) == 0 && id_of(w.ctx) == cats::root_id) begin_root(w);
  if (current_mode() == mode::profiling) {
    // A job begins, a continuation resumes: its strands run here now.
    if (e == task_event::begin || e == task_event::resume) return switch_task(w, true, id_of(w.ctx), root_of(w.ctx));
    return switch_task(w, false, 0, 0);
  }
  if (state_[static_cast<std::size_t>(w.id)].measuring) switch_task(w, false, 0, 0);
  if (f == nullptr || (e != task_event::begin && e != task_event::resume)) return;
  // The checks of section 3.3's two rules, counted (tests expect zeros).
  const tier t = tier_of(f->ctx);
  if (t == tier::leaf && e == task_event::begin && f->policy_word == leaf_job) {
    // A subtree starts; take_from_pool wrote its socket into the context
    // its frames inherit.
    socket_state& s = *sockets_[static_cast<std::size_t>(socket_of(w.id))];
    if (s.running.fetch_add(1, std::memory_order_acq_rel) != 0) ctx->count(w, subtree_overlaps);
    return;
  }
  if ((t == tier::intra || t == tier::leaf) && static_cast<int>(low_of(f->ctx)) != socket_of(w.id))
    ctx->count(w, intra_escapes);
}

// Figure 6 on each spawn; in the first iteration, ids and parent-first.
share_route cats_policy::share_work(worker_view& w, const task_context& group, task_context& child, double, double) {
  mode m = current_mode();
  if (m == mode::plain) return share_route::local;
  const tier running = tier_of(w.ctx);
  if (m == mode::partitioned && (running == tier::leaf || running == tier::intra)) {
    // Below a leaf inter-socket task: intra-socket, child-first, no lookup.
    set_tier(child, tier::intra, static_cast<std::uint32_t>(socket_of(w.id)));
    return share_route::local;
  }
  // fork_join asks first whether its task spreads (the group is then the
  // running context itself); the branches are then spawned and asked each.
  if (&group == &w.ctx) return share_route::away;
  const std::uint32_t index = (low_of(w.ctx) + 1) & low_mask;
  set_tier(w.ctx, running, index);  // the parent's count of children: S_i's i
  const task_id id = cats::child_id(id_of(w.ctx), index);
  set_id(child, id);
  set_tier(child, tier::unknown, 0);
  if (m == mode::profiling) {
    // Section 3.2.2: the second iteration begins when a task of a later
    // root computation than the profiled one spawns a task whose id
    // completed in the profile. Until then, section 3.4: parent-first.
    const cats::root_tag profiled = recorder_.root();
    if (profiled == 0 || !cats::later_root(root_of(w.ctx), profiled) || !recorder_.completed(id))
      return share_route::away;
    finish_profile(w);
    m = current_mode();
    if (m == mode::plain) return share_route::local;
  }
  std::uint64_t parent_soid = shared_cache_;  // an inter-socket parent's is at least that
  if (running == tier::unknown) {             // a root, or spawned before the partition
    const auto s = table_.soid(id_of(w.ctx));
    if (!s) {
      reprofile_.store(true, std::memory_order_relaxed);  // the next root profiles anew
      set_tier(child, tier::leaf, 0);
      return share_route::away;
    }
    parent_soid = *s;
  }
  const auto s = table_.soid(id);
  const tier t = s ? cats::classify(parent_soid, *s, subtree_limit_.load(std::memory_order_relaxed)) : tier::leaf;
  if (!s) reprofile_.store(true, std::memory_order_relaxed);
  if (t == tier::intra) {
    set_tier(child, tier::intra, static_cast<std::uint32_t>(socket_of(w.id)));
    return share_route::local;  // section 3.5: child-first into the intra-socket pool
  }
  set_tier(child, t, 0);
  return share_route::away;  // parent-first into the inter-socket pool (route_spawn)
}

void cats_policy::share_done(worker_view& w, const task_context& group, const task_context* child) {
  if (child == nullptr) return;
  const tier t = tier_of(*child);
  if (t == tier::unknown) {  // profiled: its SOID is final; Eq. (1) adds it to its parent's
    switch_task(w, state_[static_cast<std::size_t>(w.id)].measuring, id_of(group), root_of(group));
    if (recorder_.complete(w.id, root_of(*child), id_of(*child), id_of(group)))
      ctx->count(w, misses_.kind() == cats::source_kind::perf       ? profiled_perf
                    : misses_.kind() == cats::source_kind::declared ? profiled_declared
                                                                    : profiled_simulator);
    return;
  }
  if (t != tier::leaf) return;
  // The socket's intra-socket subtree is done: its head may start the next.
  // That is the socket that took it (recorded in the job's context), which
  // need not be w's: a subtree that waited for work posted to a worker
  // elsewhere (a static or affinity loop) resumes where that work ended.
  const int home = static_cast<int>(low_of(*child));
  socket_state& s = *sockets_[static_cast<std::size_t>(home)];
  s.running.fetch_sub(1, std::memory_order_acq_rel);
  s.active.fetch_sub(1, std::memory_order_seq_cst);
  if (s.workers.front() != w.id) ctx->wake(ctx->worker_at(s.workers.front()));
}

void cats_policy::finish_profile(worker_view& w) {
  {
    std::lock_guard guard(profile_lock_);
    if (current_mode() != mode::profiling) return;
    recorder_.build_into(table_);
    // Section 3.5's CMPI where the source gives it (cmpi_threshold 0:
    // never CPU-bound); ours per microsecond if asked for; else (declared,
    // perf without its group or penalties: no CMPI) CPU-bound only if
    // nothing missed, counted as no_cmpi.
    const bool without_cmpi = cpu_bound_misses_ == 0 && cmpi_threshold_ != 0 && !misses_.gives_cmpi();
    const bool cpu = cpu_bound_misses_ > 0   ? table_.cpu_bound_per_us(cpu_bound_misses_)
                     : cmpi_threshold_ == 0  ? false
                     : misses_.gives_cmpi() ? table_.cpu_bound_cmpi(cmpi_threshold_)
                                            : table_.no_misses();
    if (without_cmpi) ctx->count(w, no_cmpi);
    if (cpu) {
      ctx->count(w, cpu_bound);
      set_mode(mode::plain);  // section 3.5: plain task stealing, child-first
    } else {
      ctx->count(w, partitions);
      std::uint64_t limit = shared_cache_;
      if (spread_) {
        // Every socket gets a subtree: at most 1/sockets of the root's SOID,
        // with an eighth more for halos and uneven splits.
        const std::uint64_t share = table_.soid(cats::root_id).value_or(0) / sockets_.size();
        limit = std::min(limit, std::max<std::uint64_t>(1, share + share / 8));
      }
      subtree_limit_.store(limit, std::memory_order_relaxed);
      set_mode(mode::partitioned);
    }
  }
  wake_all();
}

// ------------------------------------------------------------ pools

void cats_policy::route_spawn(worker_view& w, frame* f) {
  const tier t = tier_of(f->ctx);
  if (t != tier::inter && t != tier::leaf) return push_own(w, f);  // profiling: parent-first, own deque
  int home = socket_of(w.id);
  if (sticky_ && t == tier::leaf) {
    // Option sticky: the socket that ran this subtree last iteration.
    std::lock_guard guard(sticky_lock_);
    const auto it = last_socket_.find(id_of(f->ctx));
    if (it != last_socket_.end()) home = it->second;
  }
  socket_state& s = *sockets_[static_cast<std::size_t>(home)];
  f->policy_word = t == tier::leaf ? leaf_job : 0;
  {
    std::lock_guard guard(s.lock);
    s.pool.push_back(f);
    if (t == tier::leaf) s.leaves_in_pool.fetch_add(1, std::memory_order_relaxed);
    // seq_cst: pairs with has_work_for's load before a head sleeps.
    s.count.fetch_add(1, std::memory_order_seq_cst);
  }
  ctx->count(w, inter_spawns);
  wake_heads(home);
}

// The socket's head, or if it is awake already, some other socket's.
void cats_policy::wake_heads(int first) {
  const int n = num_sockets();
  for (int i = 0; i < n; ++i) {
    const int head = sockets_[static_cast<std::size_t>((first + i) % n)]->workers.front();
    if (ctx->wake(ctx->worker_at(head))) return;
  }
}

// Own pool from its back (newest first), another's from its front; a leaf
// inter-socket task only if w's socket runs no subtree (section 3.3).
frame* cats_policy::take_from_pool(worker_view& w, socket_state& s, bool own) {
  if (s.count.load(std::memory_order_acquire) == 0) return nullptr;
  socket_state& home = *sockets_[static_cast<std::size_t>(socket_of(w.id))];
  std::lock_guard guard(s.lock);
  bool leaf_ok = home.active.load(std::memory_order_acquire) == 0;
  const std::size_t n = s.pool.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = own ? n - 1 - k : k;
    frame* f = s.pool[i];
    const bool leaf = tier_of(f->ctx) == tier::leaf;
    // s.lock is the pool's, not the home socket's: two workers of one
    // socket taking from two pools race for the socket, and one wins.
    if (leaf) {
      if (!leaf_ok) continue;
      if (!claim_socket(home)) {
        leaf_ok = false;
        continue;
      }
    }
    s.pool.erase(s.pool.begin() + static_cast<std::ptrdiff_t>(i));
    s.count.fetch_sub(1, std::memory_order_relaxed);
    if (leaf) {
      set_tier(f->ctx, tier::leaf, static_cast<std::uint32_t>(socket_of(w.id)));  // for share_done
      s.leaves_in_pool.fetch_sub(1, std::memory_order_relaxed);
      ctx->count(w, subtrees);
      if (sticky_) {
        std::lock_guard sticky(sticky_lock_);
        last_socket_[id_of(f->ctx)] = socket_of(w.id);
      }
    }
    if (!own) ctx->count(w, pool_steals);
    return f;
  }
  return nullptr;
}

// Section 3.3, enforced: the socket's one subtree slot goes from free to
// taken by one compare-and-swap, whichever pool the leaf comes from and in
// every mode (the drains of an earlier partition's pools included).
// share_done gives it back.
bool cats_policy::claim_socket(socket_state& home) {
  int free = 0;
  return home.active.compare_exchange_strong(free, 1, std::memory_order_acq_rel);
}

// ------------------------------------------------------------ stealing

worker_view* cats_policy::choose_victim(worker_view& thief) {
  const int n = ctx->num_workers();
  if (n < 2) return nullptr;
  int v = static_cast<int>(ctx->rng(thief).below(static_cast<std::uint64_t>(n - 1)));
  if (v >= thief.id) ++v;
  return &ctx->worker_at(v);
}

search_result cats_policy::find_work(worker_view& w) {
  if (plain_reason_ >= 0) return plain_search(w);  // no pools, no profile: ws's own round
  if (frame* f = w.deque.pop()) return {f, found_at::own_deque};
  const int home = socket_of(w.id);
  const int n = num_sockets();
  if (current_mode() != mode::partitioned) {
    // Ordinary work stealing (the first iteration, or a CPU-bound
    // program); pools left from an earlier partition are drained first.
    for (int i = 0; i < n; ++i)
      if (frame* f = take_from_pool(w, *sockets_[static_cast<std::size_t>((home + i) % n)], i == 0))
        return {f, found_at::policy};
    return default_search(w);
  }
  // Section 3.3: the socket's other intra-socket pools...
  const auto& mates = sockets_[static_cast<std::size_t>(home)]->workers;
  if (mates.size() > 1) {
    const std::size_t start = ctx->rng(w).below(mates.size());
    for (std::size_t k = 0; k < mates.size(); ++k) {
      worker_view& victim = ctx->worker_at(mates[(start + k) % mates.size()]);
      if (&victim == &w || !ctx->steal_attempt(w, victim)) continue;
      if (frame* f = victim.deque.steal()) {
        ctx->stole(w);
        return {f, found_at::steal};
      }
    }
  }
  if (!is_head(w.id)) return {};
  // ...then, for the head core, its inter-socket pool, new roots, and other
  // sockets' inter-socket pools.
  if (frame* f = take_from_pool(w, *sockets_[static_cast<std::size_t>(home)], true)) return {f, found_at::policy};
  if (frame* f = ctx->take_root(w)) {
    if (reprofile_.exchange(false, std::memory_order_acq_rel)) {
      // A spawned id was missing from the profile: this root starts a new one.
      {
        std::lock_guard guard(profile_lock_);
        recorder_.start(0);  // the next root to begin is profiled
        ctx->count(w, reprofiles);
        set_mode(mode::profiling);
      }
      wake_all();
    }
    return {f, found_at::roots};
  }
  const std::size_t start = n > 1 ? ctx->rng(w).below(static_cast<std::uint64_t>(n - 1)) : 0;
  for (int k = 0; k + 1 < n; ++k) {
    const int other = (home + 1 + static_cast<int>((start + static_cast<std::size_t>(k)) % static_cast<std::size_t>(n - 1))) % n;
    if (frame* f = take_from_pool(w, *sockets_[static_cast<std::size_t>(other)], false)) return {f, found_at::policy};
  }
  return {};
}

search_result cats_policy::plain_search(worker_view& w) {
  const search_result r = default_search(w);
  // Why cats is plain ws, said once with the first root (not when workers
  // first look: that can precede a stats reset).
  if (r.where == found_at::roots && !announced_.load(std::memory_order_relaxed) &&
      !announced_.exchange(true, std::memory_order_relaxed))
    ctx->count(w, plain_reason_);
  return r;
}

bool cats_policy::has_work_for(worker_view& w) {
  if (current_mode() == mode::partitioned && !is_head(w.id)) return false;
  const bool leaf_ok = sockets_[static_cast<std::size_t>(socket_of(w.id))]->active.load(std::memory_order_seq_cst) == 0;
  for (const auto& s : sockets_) {
    const int count = s->count.load(std::memory_order_seq_cst);
    const int leaves = s->leaves_in_pool.load(std::memory_order_relaxed);
    if (count > leaves || (leaves > 0 && leaf_ok)) return true;
  }
  return false;
}

// Partitioned: intra-socket work stays in its socket, and root tasks go to
// heads.
bool cats_policy::may_take(const worker_view& w, const worker_view* owner) {
  if (current_mode() != mode::partitioned) return true;
  if (owner == nullptr) return is_head(w.id);
  return socket_of(owner->id) == socket_of(w.id);
}

policy_entry cats_entry() {
  return {
      .name = "cats",
      .make = &make_policy_of<cats_policy>,
      .options = {{.name = "shared_cache",
                   .env = "LOCUS_CATS_SHARED_CACHE",
                   .accepted = "auto, or a size in bytes with an optional K, M or G suffix (e.g. 6M)",
                   .default_value = "auto",
                   .help = "the shared cache an intra-socket subtree must fit (section 3.2.2); auto: the "
                           "outermost cache of the first worker's core",
                   .check = [](std::string_view s, std::string_view v) {
                     if (v != "auto") parse_bytes(s, v);
                   }},
                  {.name = "cpu_bound_misses",
                   .env = "LOCUS_CATS_CPU_BOUND",
                   .accepted = misses_accepted,
                   .default_value = "0",
                   .help = "ours, 0: off: instead of section 3.5's CMPI, private-cache misses per microsecond "
                           "below which a task is CPU-bound; most tasks CPU-bound: plain work stealing",
                   .check = [](std::string_view s, std::string_view v) { parse_misses(s, v); }},
                  {.name = "cmpi_threshold",
                   .env = "LOCUS_CATS_CMPI",
                   .accepted = cmpi_accepted,
                   .default_value = "auto",
                   .help = "section 3.5: normalized misses per instruction below which a task is CPU-bound; "
                           "auto: 1 / p_1 (the paper gives no value); most tasks CPU-bound: plain work stealing",
                   .check = [](std::string_view s, std::string_view v) { parse_cmpi(s, v); }},
                  {.name = "penalties",
                   .env = "LOCUS_CATS_PENALTIES",
                   .accepted = cats::penalties_accepted,
                   .default_value = "off",
                   .help = "section 3.5's p_i for the perf source's CMPI (hardware counters on threads); off: no "
                           "CMPI there, a profile is CPU-bound only if nothing missed; the simulator uses its model's",
                   .check = [](std::string_view s, std::string_view v) { cats::parse_penalties(s, v); }},
                  {.name = "spread",
                   .env = "LOCUS_CATS_SPREAD",
                   .accepted = "0 or 1",
                   .default_value = "0",
                   .help = "1: a subtree also holds at most 1/sockets of the root's SOID (an eighth more for halos), "
                           "so every socket gets one; 0: figure 6's cache rule alone",
                   .check = [](std::string_view s, std::string_view v) { parse_switch(s, v); }},
                  {.name = "sticky",
                   .env = "LOCUS_CATS_STICKY",
                   .accepted = "0 or 1",
                   .default_value = "0",
                   .help = "1: a leaf inter-socket task goes to the pool of the socket that ran it last iteration "
                           "(not in the paper); 0: to the spawning socket's",
                   .check = [](std::string_view s, std::string_view v) { parse_switch(s, v); }},
                  {.name = "miss_source",
                   .env = "LOCUS_CATS_MISS_SOURCE",
                   .accepted = "auto, simulator, perf, declared or none",
                   .default_value = "auto",
                   .help = "where the profile's cache misses come from (section 3.2.1); auto: the simulator's "
                           "counts, else hardware counters, else the bytes tasks declare with locus::touch; "
                           "none: CATS runs as ws",
                   .check = &cats::check_source_name}},
      // In the order of cats_policy::counter.
      .counters = {"profiled_simulator", "profiled_perf", "profiled_declared", "no_miss_source", "cpu_bound", "partitions",
                   "inter_spawns", "subtrees", "pool_steals", "reprofiles", "intra_escapes", "subtree_overlaps", "one_socket",
                   "no_cmpi"},
  };
}

}  // namespace locus::detail
