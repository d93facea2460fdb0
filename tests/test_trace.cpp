// Traces (LOCUS_TRACE, docs/observability.md): slices, order, determinism
// under the simulator, the size limit, settings, and a policy's own named
// events. The file's JSON form is checked with a real parser by
// test_trace.py (Python's json module); here the writer's one-event-a-line
// layout is read with plain string search.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "locus/errors.hpp"
#include "locus/locus.hpp"
#include "policy/spi/registry.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "locus_trace_" + name + "_" + std::to_string(::getpid()) + ".json";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The value after "key": in a one-line event ("" if absent).
std::string field(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\":";
  const auto at = line.find(k);
  if (at == std::string::npos) return "";
  auto b = at + k.size();
  if (line[b] == '"') return line.substr(b + 1, line.find('"', b + 1) - b - 1);
  auto e = line.find_first_of(",}", b);
  return line.substr(b, e - b);
}

struct slice {
  std::string name, kind;
  double ts, dur;
  long long seq, lo, hi;
  int tid;
};

std::vector<slice> slices_of(const std::string& text) {
  std::vector<slice> out;
  for (const auto& l : lines_of(text)) {
    if (field(l, "ph") != "X") continue;
    slice s{field(l, "name"), field(l, "kind"), std::stod(field(l, "ts")), std::stod(field(l, "dur")),
            field(l, "seq").empty() ? -1 : std::stoll(field(l, "seq")),
            field(l, "lo").empty() ? -1 : std::stoll(field(l, "lo")),
            field(l, "hi").empty() ? -1 : std::stoll(field(l, "hi")), std::stoi(field(l, "tid"))};
    out.push_back(s);
  }
  return out;
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

long tree(int depth) {
  if (depth == 0) return 1;
  long a = 0;
  locus::task_group g;
  g.spawn([&] { a = tree(depth - 1); }, locus::label("node"));
  const long b = tree(depth - 1);
  g.sync();
  return a + b;
}

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  locus::fork_join([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  locus::compute(3);
  return a + b;
}

TEST(Trace, OneWorkerSlicesInSerialOrder) {
  const std::string path = temp_path("serial");
  {
    locus::runtime_options o;
    o.workers = 1;
    o.trace = path;
    locus::runtime rt(o);
    locus::task_group g;
    g.spawn([] { EXPECT_EQ(tree(6), 64); }, locus::label("tree"));
    g.sync();
    locus::parallel_for(0, 1024, 8, [](std::int64_t, std::int64_t) {});
  }
  const std::string text = read_file(path);
  std::vector<slice> all = slices_of(text);
  ASSERT_FALSE(all.empty());
  std::sort(all.begin(), all.end(), [](const slice& a, const slice& b) { return a.seq < b.seq; });
  // Begin times follow the order the worker started the tasks in.
  all.erase(std::remove_if(all.begin(), all.end(), [](const slice& s) { return s.kind == "sleep"; }), all.end());
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LE(all[i - 1].ts, all[i].ts);

  // The tree: 63 spawned "node" children, each within the slice of the task
  // it was spawned from (nothing is stolen on one worker, so they nest).
  std::vector<slice> nodes;
  for (const auto& s : all)
    if (s.name == "node") nodes.push_back(s);
  ASSERT_EQ(nodes.size(), 63u);
  for (const auto& s : nodes) EXPECT_EQ(s.kind, "spawned");
  const auto tree_slice = std::find_if(all.begin(), all.end(), [](const slice& s) { return s.name == "tree"; });
  ASSERT_NE(tree_slice, all.end());
  for (const auto& s : nodes) {
    EXPECT_GE(s.ts, tree_slice->ts);
    EXPECT_LE(s.ts + s.dur, tree_slice->ts + tree_slice->dur + 0.001);
  }

  // The loop: 128 leaves of 8, in serial order, left to right.
  std::vector<slice> leaves;
  for (const auto& s : all)
    if (s.kind == "loop") leaves.push_back(s);
  ASSERT_EQ(leaves.size(), 128u);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    EXPECT_EQ(leaves[i].lo, static_cast<long long>(i) * 8);
    EXPECT_EQ(leaves[i].hi, static_cast<long long>(i) * 8 + 8);
  }
  std::remove(path.c_str());
}

locus::runtime_options simulated(const std::string& path, int workers) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.workers = workers;
  o.seed = 7;
  o.trace = path;
  return o;
}

// The simulator maps the data's real pages to simulated ones, so both runs
// use the same vector (as test_sim_engine's SameSeedGivesTheSameRun does).
std::string simulated_run(const std::string& path, std::vector<double>& data) {
  {
    locus::runtime rt(simulated(path, 8));
    EXPECT_EQ(fib(18), 2584);
    locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(data.size()), std::int64_t{256}, [&](std::int64_t lo, std::int64_t hi) {
      locus::touch(&data[static_cast<std::size_t>(lo)], static_cast<std::size_t>(hi - lo) * sizeof(double));
    });
  }
  std::string text = read_file(path);
  std::remove(path.c_str());
  return text;
}

TEST(Trace, SimulatedTraceIsByteIdenticalAndHasEveryKind) {
  std::vector<double> data(1 << 14, 1.0);
  const std::string a = simulated_run(temp_path("sim_a"), data);
  const std::string b = simulated_run(temp_path("sim_b"), data);
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "two simulated runs with one seed wrote different traces";
  EXPECT_NE(a.find("\"clock\":\"virtual\""), std::string::npos);
  // With 8 workers on 4 sockets the simulated run steals (the same steals
  // every run); each steal is a slice and an arrow from the victim.
  EXPECT_GT(count_of(a, "\"kind\":\"stolen\""), 0);
  EXPECT_EQ(count_of(a, "\"ph\":\"s\""), count_of(a, "\"ph\":\"f\""));
  EXPECT_GT(count_of(a, "\"name\":\"steal\""), 0);
  EXPECT_GT(count_of(a, "\"kind\":\"fork\""), 0);
  EXPECT_GT(count_of(a, "\"kind\":\"loop\""), 0);
  EXPECT_GT(count_of(a, "\"kind\":\"root\""), 0);
  EXPECT_GT(count_of(a, "failed steals\""), 0);
  EXPECT_GT(count_of(a, "accesses\""), 0);
  EXPECT_GT(count_of(a, "\"name\":\"process_name\""), 3);  // one process per place
}

TEST(Trace, OverflowIsReportedNotACrash) {
  const std::string path = temp_path("overflow");
  testing::internal::CaptureStderr();
  {
    locus::runtime_options o;
    o.workers = 2;
    o.trace = path;
    o.trace_max = 1 << 20;
    locus::runtime rt(o);
    EXPECT_EQ(fib(24), 46368);  // about 75,000 forks: far more than 1 MiB of trace
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("trace size limit reached (LOCUS_TRACE_MAX=1048576 bytes)"), std::string::npos) << err;
  const std::string text = read_file(path);
  EXPECT_LE(text.size(), std::size_t{1} << 20);
  EXPECT_NE(text.find("\"stopped\":true"), std::string::npos);
  EXPECT_NE(text.find("trace stopped: LOCUS_TRACE_MAX reached"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\n]}\n");  // a whole file, closed
  std::remove(path.c_str());
}

TEST(Trace, SettingsAreChecked) {
  auto message = [](const locus::runtime_options& o) {
    try {
      locus::runtime rt(o);
    } catch (const locus::config_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  locus::runtime_options o;
  o.workers = 1;
  o.trace = "/nonexistent-dir/t.json";
  EXPECT_EQ(message(o),
            "runtime_options::trace=\"/nonexistent-dir/t.json\": cannot create this file; expected the path of a "
            "file to write the trace to");
  o.trace = temp_path("settings");
  o.trace_max = 1000;
  EXPECT_NE(message(o).find("runtime_options::trace_max=\"1000\": expected a size in bytes"), std::string::npos);
  o.trace_max = 0;
  ::setenv("LOCUS_TRACE_MAX", "12Q", 1);
  EXPECT_NE(message(o).find("LOCUS_TRACE_MAX=\"12Q\": expected a size in bytes"), std::string::npos);
  ::unsetenv("LOCUS_TRACE_MAX");
  std::remove(o.trace.c_str());
}

// A policy records its own events through policy_context::trace, without
// touching the recorder: here, every frame it steals.
class tracing_policy final : public locus::detail::policy_base {
 public:
  using policy_base::policy_base;
  locus::detail::frame* after_steal(locus::detail::worker_view& w, locus::detail::frame* f) override {
    ctx->trace(w, "handoff", w.id);
    return f;
  }
};
const bool tracing_registered = (locus::detail::register_policy(
    {.name = "trace-test", .make = &locus::detail::make_policy_of<tracing_policy>}), true);

TEST(Trace, PolicyRecordsNamedEvents) {
  ASSERT_TRUE(tracing_registered);
  const std::string path = temp_path("policy");
  {
    locus::runtime_options o = simulated(path, 8);
    o.policy = "trace-test";
    locus::runtime rt(o);
    EXPECT_EQ(fib(16), 987);
  }
  const std::string text = read_file(path);
  const int handoffs = count_of(text, "\"name\":\"handoff\"");
  EXPECT_GT(handoffs, 0);
  EXPECT_EQ(handoffs, count_of(text, "\"kind\":\"stolen\""));  // one per steal, as the policy records it
  std::remove(path.c_str());
}

// numa-ws records its pushes: one "push" instant per push it counts, and
// a "mailbox take" per frame taken from a mailbox (SIMULATED, numa-ws-4x8).
long hinted_sum(int depth, int place) {
  if (depth == 0) {
    locus::compute(2000);
    return 1;
  }
  long a = 0, b = 0;
  locus::fork_join(locus::at(place, [&] { a = hinted_sum(depth - 1, place); }),
                   locus::at((place + 1) % 4, [&] { b = hinted_sum(depth - 1, (place + 1) % 4); }));
  return a + b;
}

TEST(Trace, NumaWsRecordsItsPushes) {
  const std::string path = temp_path("numa-ws");
  std::uint64_t pushes = 0, hits = 0;
  {
    locus::runtime_options o = simulated(path, 32);
    o.policy = "numa-ws";
    o.places = "socket";
    locus::runtime rt(o);
    EXPECT_EQ(hinted_sum(10, 0), 1024);
    const locus::stats st = locus::get_stats();
    pushes = st.total().counter("pushes");
    hits = st.total().counter("mailbox_hits");
  }
  const std::string text = read_file(path);
  EXPECT_GT(pushes, 0u);
  EXPECT_EQ(static_cast<std::uint64_t>(count_of(text, "\"name\":\"push\"")), pushes);
  EXPECT_EQ(static_cast<std::uint64_t>(count_of(text, "\"name\":\"mailbox take\"")), hits);
  std::remove(path.c_str());
}

}  // namespace
