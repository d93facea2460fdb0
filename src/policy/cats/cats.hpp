// `cats`: cache-aware task stealing (Chen et al., seed 002, section 3).
//
// Sockets. CATS's socket is a group of workers sharing a last-level cache:
// here, the workers whose cores share the outermost cache of the topology
// (a package on the paper's Opteron; an L3 complex on a CPU with several).
// The first worker of each is its head core (section 3.1). With one such
// group there is one socket: the bi-tier rules still hold, and every
// intra-socket subtree runs on the whole machine, one at a time.
//
// Iteration one: profiling (section 3.2.1). Every spawn is parent-first
// (section 3.4) and gets a spawn-path id (profile.hpp) that the child's
// task context carries: policy[0] and the low half of policy[2] hold the
// 48-bit id, the high half the root tag, policy[1] the number of children
// the task has spawned (the i of S_i) and the tier. Whenever the running
// task changes on a worker (a child is spawned or done, a task begins,
// resumes or suspends), the worker's last-private-level misses since the
// last change are credited to the task that ran (miss_source.hpp), and a
// completed task's SOID is returned to its parent (Eq. 1, figure 5).
// Stealing is ordinary work stealing.
//
// Each root task gets a root tag its tasks inherit; a profile belongs to
// one root, and each worker records its strands in its own slot
// (profile.hpp). The second iteration begins when a task of a later root
// spawns a task whose id is found among the completed ones (section
// 3.2.2). Then the program is judged CPU-bound or not (section 3.5: each
// task's normalized misses per instruction, CMPI, against cmpi_threshold);
// a CPU-bound program runs as plain work stealing from then on,
// child-first, with no lookups.
//
// Later iterations: the tier of each child follows figure 6 from its SOID
// and its parent's (the shared cache size: shared_cache). Inter-socket
// tasks (leaf ones included) are spawned parent-first into the socket's
// inter-socket pool; intra-socket tasks child-first onto the worker's own
// deque, the intra-socket pool (sections 3.1, 3.4, 3.5; below a leaf
// inter-socket task nothing is looked up). Bi-tier stealing (section 3.3):
// own deque, then the deques of the socket's other workers; then, for the
// head core only, its socket's inter-socket pool and then other sockets'
// pools. A socket runs one intra-socket subtree at a time: a leaf
// inter-socket task leaves a pool only for a worker that claimed its
// socket's slot (claim_socket), free again when the subtree is done.
// Root tasks are inter-socket work: heads take them.
//
// A spawned id missing from the profile (the program's tree changed shape,
// or an earlier phase was profiled) is run as a leaf inter-socket task and
// makes the next root task start a new profile.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "policy/cats/miss_source.hpp"
#include "policy/cats/profile.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {

class cats_policy final : public policy_base {
 public:
  // Indices in the registry entry's counters.
  enum counter : int {
    profiled_simulator,  // tasks profiled from the simulator's misses
    profiled_perf,       // tasks profiled from hardware counters
    profiled_declared,   // tasks profiled from the bytes they declare
    no_miss_source,      // once per pool told to use none (then: ws)
    cpu_bound,           // once per profile judged CPU-bound (then: ws)
    partitions,          // profiles finished and partitioned
    inter_spawns,        // tasks spawned into an inter-socket pool
    subtrees,            // leaf inter-socket tasks taken by a head
    pool_steals,         // inter-socket tasks taken from another socket's pool
    reprofiles,          // profiles restarted (a spawned id was missing)
    intra_escapes,       // intra-socket tasks run outside their socket (a bug if not 0)
    subtree_overlaps,    // two subtrees running on one socket at once (a bug if not 0)
    one_socket,          // once per pool with one socket and shared_cache auto (then: ws)
    no_cmpi,             // once per profile judged without section 3.5's CMPI (the source gives none)
  };

  explicit cats_policy(policy_context& c);

  search_result find_work(worker_view& w) override;
  worker_view* choose_victim(worker_view& thief) override;
  void route_spawn(worker_view& w, frame* f) override;
  bool has_work_for(worker_view& w) override;
  // may_take never says no when cats is plain ws from the start.
  bool filters_work() const override { return plain_reason_ < 0; }
  bool may_take(const worker_view& w, const worker_view* owner) override;
  void on_task(worker_view& w, task_event e, const frame* f) override;
  share_route share_work(worker_view& w, const task_context& group, task_context& child, double lo, double hi) override;
  void share_done(worker_view& w, const task_context& group, const task_context* child) override;

  cats::source_kind source() const { return misses_.kind(); }
  std::uint64_t shared_cache_bytes() const { return shared_cache_; }
  int num_sockets() const { return static_cast<int>(sockets_.size()); }
  int socket_of(int worker) const { return socket_of_[static_cast<std::size_t>(worker)]; }
  const cats::soid_table& profile() const { return table_; }
  // The CPU-bound rule's threshold on CMPI (section 3.5): 0 never
  // CPU-bound, -1 auto where the source gives no CMPI.
  double cmpi_threshold() const { return cmpi_threshold_; }

 private:
  enum class mode : int { profiling, partitioned, plain };

  struct alignas(64) socket_state {
    std::mutex lock;
    std::deque<frame*> pool;        // inter-socket tasks; owner end: back
    std::atomic<int> count{0};      // pool.size(), read without the lock
    std::atomic<int> leaves_in_pool{0};
    std::atomic<int> active{0};     // leaf inter-socket tasks taken, not done
    std::atomic<int> running{0};    // the same, counted at begin (the check)
    std::vector<int> workers;       // head first
  };
  // Owner-only: the task whose misses accrue, and the counts at the switch.
  struct alignas(64) worker_state {
    cats::task_id current = 0;
    cats::root_tag root = 0;
    bool measuring = false;
    cats::miss_sample at;
    std::uint64_t ns = 0;
  };

  mode current_mode() const { return static_cast<mode>(mode_.load(std::memory_order_acquire)); }
  void set_mode(mode m);  // under profile_lock_
  void wake_all();
  void say_no_cmpi() const;  // at construction: penalties given, no CMPI from the source
  bool is_head(int w) const { return sockets_[static_cast<std::size_t>(socket_of(w))]->workers.front() == w; }
  // Credits w's misses since its last switch to the task that ran, and
  // makes `next` (if measuring) the task that runs now.
  void switch_task(worker_view& w, bool measuring, cats::task_id next, cats::root_tag root);
  // A root task begins on w: its own root tag; the profile's if none is.
  void begin_root(worker_view& w);
  // Section 3.3: w's socket runs one intra-socket subtree at a time.
  bool claim_socket(socket_state& home);
  void finish_profile(worker_view& w);
  frame* take_from_pool(worker_view& w, socket_state& s, bool own);
  search_result plain_search(worker_view& w);  // plain ws from the start (plain_reason_)
  void wake_heads(int first);

  cats::miss_source misses_;
  cats::profile_recorder recorder_;  // the profile being recorded
  cats::soid_table table_;           // the last finished profile
  std::atomic<std::uint32_t> roots_{0};  // root computations begun (their tags)
  std::uint64_t shared_cache_ = 0;
  // What a subtree must stay below: the shared cache, or with spread also
  // 1/sockets of the root's SOID (set when a profile ends).
  std::atomic<std::uint64_t> subtree_limit_{0};
  bool spread_ = false;
  bool sticky_ = false;
  std::mutex sticky_lock_;
  std::unordered_map<cats::task_id, int> last_socket_;  // sticky: leaf id -> socket
  double cpu_bound_misses_ = 0;  // ours, 0: off
  double cmpi_threshold_ = 0;
  std::vector<std::unique_ptr<socket_state>> sockets_;
  std::vector<int> socket_of_;
  std::unique_ptr<worker_state[]> state_;
  std::atomic<int> mode_{static_cast<int>(mode::profiling)};
  std::atomic<bool> reprofile_{false};
  int plain_reason_ = -1;               // no_miss_source or one_socket: ws from the start
  std::atomic<bool> announced_{false};  // plain_reason_ counted
  std::mutex profile_lock_;             // ends or restarts a profile once; no engine call under it
};

policy_entry cats_entry();

}  // namespace locus::detail
