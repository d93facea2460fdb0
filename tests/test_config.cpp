// Settings: a bad value names the setting, the value, and what is accepted.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "locus/locus.hpp"

namespace {

std::string error_of(const char* var, const char* value) {
  setenv(var, value, 1);
  std::string msg;
  try {
    locus::runtime rt;
  } catch (const locus::config_error& e) {
    msg = e.what();
  }
  unsetenv(var);
  return msg;
}

}  // namespace

TEST(Config, BadEnvironmentValuesAreNamed) {
  const std::string w = error_of("LOCUS_WORKERS", "two");
  EXPECT_NE(w.find("LOCUS_WORKERS=\"two\""), std::string::npos) << w;
  EXPECT_NE(w.find("integer from 1 to 4096"), std::string::npos) << w;
  EXPECT_NE(error_of("LOCUS_WORKERS", "0").find("LOCUS_WORKERS"), std::string::npos);
  const std::string p = error_of("LOCUS_POLICY", "magic");
  EXPECT_NE(p.find("LOCUS_POLICY=\"magic\""), std::string::npos) << p;
  EXPECT_NE(p.find("ws"), std::string::npos) << p;
  const std::string s = error_of("LOCUS_STACK_SIZE", "12Q");
  EXPECT_NE(s.find("LOCUS_STACK_SIZE=\"12Q\""), std::string::npos) << s;
  EXPECT_NE(s.find("K, M or G"), std::string::npos) << s;
  EXPECT_NE(error_of("LOCUS_STACK_SIZE", "1K").find("LOCUS_STACK_SIZE"), std::string::npos);
  EXPECT_NE(error_of("LOCUS_PIN", "yes").find("LOCUS_PIN=\"yes\""), std::string::npos);
  EXPECT_NE(error_of("LOCUS_SPIN_US", "-1").find("LOCUS_SPIN_US"), std::string::npos);
  EXPECT_NE(error_of("LOCUS_TOPOLOGY", "4y8").find("LOCUS_TOPOLOGY"), std::string::npos);
  EXPECT_NE(error_of("LOCUS_PLACES", "galaxy").find("LOCUS_PLACES"), std::string::npos);
  // Policy options, declared by their policy's registry entry, are checked
  // whichever policy runs.
  const std::string t = error_of("LOCUS_PUSH_THRESHOLD", "0");
  EXPECT_NE(t.find("LOCUS_PUSH_THRESHOLD=\"0\""), std::string::npos) << t;
  EXPECT_NE(t.find("1 to 255"), std::string::npos) << t;
  EXPECT_NE(error_of("LOCUS_STEAL_WEIGHTS", "8,,1").find("LOCUS_STEAL_WEIGHTS=\"8,,1\""), std::string::npos);
}

TEST(Config, OptionsOverrideTheEnvironment) {
  setenv("LOCUS_WORKERS", "3", 1);
  {
    locus::runtime rt;
    EXPECT_EQ(locus::num_workers(), 3);
  }
  {
    locus::runtime_options o;
    o.workers = 2;
    locus::runtime rt(o);
    EXPECT_EQ(locus::num_workers(), 2);
  }
  unsetenv("LOCUS_WORKERS");
  locus::runtime_options bad;
  bad.workers = -2;
  EXPECT_THROW(locus::runtime rt(bad), locus::config_error);
  bad.workers = 0;
  bad.policy = "nope";
  EXPECT_THROW(locus::runtime rt(bad), locus::config_error);
}

TEST(Config, PolicyOptionsResolveByName) {
  using locus::detail::resolve_settings;
  locus::runtime_options o;
  o.policy = "numa-ws";
  setenv("LOCUS_PUSH_THRESHOLD", "7", 1);
  const auto from_env = resolve_settings(o).policy_options;
  using option = std::pair<std::string, std::string>;
  EXPECT_EQ(from_env, (std::vector<option>{{"steal_weights", "distance"},
                                           {"push_threshold", "7"},
                                           {"scan_place_mailboxes", "off"},
                                           {"wake_place_mates", "off"}}));
  o.policy_options = {{"push_threshold", "3"}};  // the option wins over the environment
  EXPECT_EQ(resolve_settings(o).policy_options[1], (option{"push_threshold", "3"}));
  unsetenv("LOCUS_PUSH_THRESHOLD");
  o.policy = "ws";
  o.policy_options.clear();
  EXPECT_TRUE(resolve_settings(o).policy_options.empty());
}

TEST(Config, VirtualTopologyGivesPlacesAndWrapsPinning) {
  locus::runtime_options o;
  o.topology = "4x2";
  o.places = "socket";
  locus::runtime rt(o);
  EXPECT_EQ(locus::num_workers(), 8);
  EXPECT_EQ(locus::num_places(), 4);
  long hits = 0;
  locus::parallel_for(0, 1000, 1, [&](std::int64_t) { __atomic_add_fetch(&hits, 1, __ATOMIC_RELAXED); });
  EXPECT_EQ(hits, 1000);
}

TEST(Config, ByteSizes) {
  using locus::detail::parse_byte_size;
  EXPECT_EQ(parse_byte_size("X", "64K", 1, 1 << 30), 65536u);
  EXPECT_EQ(parse_byte_size("X", "2M", 1, 1 << 30), 2u << 20);
  EXPECT_EQ(parse_byte_size("X", "4096", 1, 1 << 30), 4096u);
  EXPECT_THROW(parse_byte_size("X", "", 1, 10), locus::config_error);
  EXPECT_THROW(parse_byte_size("X", "K", 1, 10), locus::config_error);
}

// Per-rank output files: "%r" is the rank the MPI launcher gave the process.
TEST(Config, RankInOutputPaths) {
  using locus::detail::resolve_settings;
  setenv("LOCUS_TRACE", "/tmp/locus-test-trace-%r.json", 1);
  setenv("LOCUS_STATS", "json:/tmp/locus-test-stats-%r.json", 1);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  const auto ranked = resolve_settings({});
  unsetenv("OMPI_COMM_WORLD_RANK");
  setenv("PMI_RANK", "5", 1);
  const auto pmi = resolve_settings({});
  unsetenv("PMI_RANK");
  const auto alone = resolve_settings({});  // no launcher: rank 0
  unsetenv("LOCUS_TRACE");
  unsetenv("LOCUS_STATS");
  EXPECT_EQ(ranked.trace_path, "/tmp/locus-test-trace-3.json");
  EXPECT_EQ(ranked.stats_at_exit, "json:/tmp/locus-test-stats-3.json");
  EXPECT_EQ(pmi.trace_path, "/tmp/locus-test-trace-5.json");
  EXPECT_EQ(alone.trace_path, "/tmp/locus-test-trace-0.json");
  for (const char* f : {"/tmp/locus-test-trace-3.json", "/tmp/locus-test-trace-5.json", "/tmp/locus-test-trace-0.json"})
    std::remove(f);
}

// The default worker count is the cores the process may use, which on an
// unbound process is every core of the host topology.
TEST(Config, DefaultWorkersAreTheAllowedCores) {
  const auto s = locus::detail::resolve_settings({});
  EXPECT_EQ(s.workers, s.topo.num_cores());
  EXPECT_LE(s.workers, static_cast<int>(locus::detail::allowed_os_cpus().size()));
}

// Worker observers run on each worker's own thread, once at its start and
// once at its end; the threads are named locus-w<index>.
TEST(Config, WorkerObserversAndThreadNames) {
  constexpr int workers = 3;
  std::mutex m;
  std::vector<int> started, stopped;
  std::vector<std::string> names;
  bool on_own_thread = true;
  {
    locus::runtime_options o;
    o.workers = workers;
    o.on_worker_start = [&](int i) {
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof name);
      const std::lock_guard lock(m);
      started.push_back(i);
      names.emplace_back(name);
      on_own_thread = on_own_thread && locus::worker_id() == i;
    };
    o.on_worker_stop = [&](int i) {
      const std::lock_guard lock(m);
      stopped.push_back(i);
      on_own_thread = on_own_thread && locus::worker_id() == i;
    };
    locus::runtime rt(o);
    locus::parallel_for(0, 100, [](std::int64_t) {});
  }
  std::sort(started.begin(), started.end());
  std::sort(stopped.begin(), stopped.end());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(started, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(stopped, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(names, (std::vector<std::string>{"locus-w0", "locus-w1", "locus-w2"}));
  EXPECT_TRUE(on_own_thread);
}

TEST(Config, WorkerObserversUnderTheSimulator) {
  std::atomic<int> started{0}, stopped{0};
  {
    locus::runtime_options o;
    o.engine = "sim";
    o.machine = "cats-opteron-4x4";
    o.on_worker_start = [&](int i) { started += locus::worker_id() == i; };
    o.on_worker_stop = [&](int i) { stopped += locus::worker_id() == i; };
    locus::runtime rt(o);
    locus::parallel_for(0, 100, [](std::int64_t) {});
  }
  EXPECT_EQ(started.load(), 16);
  EXPECT_EQ(stopped.load(), 16);
}
