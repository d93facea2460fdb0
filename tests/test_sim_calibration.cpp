// Calibration of the simulator against each preset's machine (issue 11,
// item 5): a STREAM-like triad (one core and one socket, data local and on
// the next node) and a pointer chase (local and remote) run under the
// simulator, at a small size, and must reproduce the machine's figures
// within 15%:
// - chase: the preset's DRAM latencies (published measurements, see
//   docs/simulator.md);
// - triads: the time their busiest resource needs for the traffic they made
//   (reads and write-backs), at the preset's figures: the controller's and
//   the links' vendor peaks, and for the reads in flight per core Little's
//   law, the lines the prefetcher keeps in flight x the line size / the
//   DRAM latency (a derived figure: the presets have no published
//   single-core STREAM result).
// The table the test prints is the one in docs/simulator.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "locus/annotate.hpp"
#include "locus/locus.hpp"
#include "sim/contention.hpp"
#include "sim/machine_model.hpp"

namespace sim = locus::detail::sim;

namespace {

constexpr double tolerance = 0.15;
constexpr std::size_t triad_grain = 4096;  // 32 KiB of each array per piece
constexpr std::size_t chase_hops = 20000;
constexpr std::size_t line = 64;
constexpr int remote_node = 1;

struct page_array {
  struct free_it {
    void operator()(double* p) const { std::free(p); }
  };
  std::unique_ptr<double[], free_it> data;
  explicit page_array(std::size_t n)
      : data(static_cast<double*>(std::aligned_alloc(4096, (n * sizeof(double) + 4095) / 4096 * 4096))) {
    std::fill(data.get(), data.get() + n, 1.0);
  }
};

locus::runtime_options on(const std::string& machine, int workers) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = machine;
  o.workers = workers;
  o.pack = 1;  // the workers on node 0's cores
  o.seed = 1;
  return o;
}

// A simulated run of a[i] = b[i] + s c[i]: its GB/s counted as STREAM counts
// them (24 bytes per element), and the DRAM traffic it made (the lines read,
// and the dirty lines of `a` written back, which STREAM does not count). The
// pages are new to the simulator, so every line comes from DRAM: first
// touch homes them on node 0, or they are bound to `home`.
struct triad_run {
  double stream_gbps;
  double read_bytes, written_back_bytes;
};

// Elements per array: each array at least twice the largest cache, as STREAM
// sizes its arrays beyond the caches, so that most of a's dirty lines are
// written back while the triad runs (at least 8 MiB, a power of two).
std::size_t triad_elements(const sim::machine_model& m) {
  std::size_t bytes = std::size_t{8} << 20;
  std::size_t largest = 0;
  for (const auto& cache : m.topo.caches) largest = std::max(largest, cache.size_bytes);
  while (bytes < 2 * largest) bytes *= 2;
  return bytes / sizeof(double);
}

// The cores of node 0: one socket's triad runs on them.
int cores_of_node_0(const sim::machine_model& m) {
  return static_cast<int>(std::count_if(m.topo.cores.begin(), m.topo.cores.end(),
                                        [](const auto& core) { return core.numa_node == 0; }));
}

triad_run triad(const std::string& machine, int workers, int home) {
  const std::size_t elements = triad_elements(sim::find_machine(machine));
  page_array a(elements), b(elements), c(elements);
  locus::runtime rt(on(machine, workers));
  const std::size_t bytes = elements * sizeof(double);
  if (home >= 0)
    for (double* p : {a.data.get(), b.data.get(), c.data.get()}) locus::detail::simulate_place_pages(p, bytes, home);
  locus::reset_stats();
  locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(elements / triad_grain), std::int64_t{1},
                      [&](std::int64_t piece) {
                        const std::size_t lo = static_cast<std::size_t>(piece) * triad_grain;
                        locus::touch(b.data.get() + lo, triad_grain * sizeof(double));
                        locus::touch(c.data.get() + lo, triad_grain * sizeof(double));
                        locus::touch(a.data.get() + lo, triad_grain * sizeof(double), locus::access::write);
                        for (std::size_t i = lo; i < lo + triad_grain; ++i)
                          a.data[i] = b.data[i] + 3.0 * c.data[i];
                      });
  const locus::stats st = locus::get_stats();
  EXPECT_EQ(a.data[elements - 1], 4.0);
  const auto total = st.total();
  const double read = static_cast<double>(total.counter("local_dram") + total.counter("remote_dram")) * line;
  return {24.0 * static_cast<double>(elements) / st.elapsed_s / 1e9, read,
          static_cast<double>(total.counter("writebacks")) * line};
}

// Simulated ns per hop of a chase through lines in random order, one touch
// per hop (separate touches are dependent).
double chase_ns(const std::string& machine, int home) {
  const std::size_t doubles_per_line = line / sizeof(double);
  page_array buffer(chase_hops * doubles_per_line);
  std::vector<std::size_t> order(chase_hops);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  locus::runtime rt(on(machine, 1));
  if (home >= 0)
    locus::detail::simulate_place_pages(buffer.data.get(), chase_hops * line, home);
  locus::reset_stats();
  locus::fork_join(
      [&] {
        for (const std::size_t hop : order) locus::touch(buffer.data.get() + hop * doubles_per_line, sizeof(double));
      },
      [] {});
  return locus::get_stats().elapsed_s * 1e9 / static_cast<double>(chase_hops);
}

struct figures {
  double core_local, socket_local, core_remote, socket_remote;  // GB/s, as STREAM counts
  double chase_local, chase_remote;                               // ns
};

struct triads {
  triad_run core_local, socket_local, core_remote, socket_remote;
};

// What the machine's figures say: see the comment at the top. A triad takes
// as long as its busiest resource needs for the traffic it made: the home
// controller moves the reads and the write-backs; a remote triad's reads
// cross the links one way, with their packet headers, and its write-backs
// and the reads' requests the other (full duplex); the
// prefetchers of `cores` cores keep Little's figure of reads in flight
// (write-backs are posted, they hold no fill buffer).
figures expected(const sim::machine_model& m, const triads& run) {
  const auto& topo = m.topo;
  const int d = topo.numa_distance[0][remote_node];
  const double local_ns = static_cast<double>(m.dram_cycles(sim::local_distance)) / m.clock_ghz;
  const double remote_ns = static_cast<double>(m.dram_cycles(d)) / m.clock_ghz;
  const int socket = cores_of_node_0(m);
  const double in_flight = m.prefetch_outstanding > 0 ? m.prefetch_outstanding : m.outstanding_misses;
  const auto little = [&](double ns) { return in_flight * static_cast<double>(line) / ns; };  // GB/s
  const double controller = m.memory_controller_gbps > 0 ? m.memory_controller_gbps : 1e9;
  const double link = m.link_gbps > 0 ? m.link_gbps * m.links_per_hop : 1e9;
  const double stream_bytes = 24.0 * static_cast<double>(triad_elements(m));
  const auto gbps = [&](const triad_run& r, int cores, bool remote) {
    const double read = r.read_bytes, back = r.written_back_bytes;
    double ns = std::max((read + back) / controller, read / (cores * little(remote ? remote_ns : local_ns)));
    // On a link each line carries its packet header; the write-backs'
    // direction carries the reads' requests too (the snoops spread over
    // every link and are left out of the figure: the reads' direction is
    // the busiest).
    const double header = 1 + m.protocol.data_header_bytes / static_cast<double>(line);
    const double requests = read / static_cast<double>(line) * m.protocol.request_bytes;
    if (remote) ns = std::max({ns, read * header / link, (back * header + requests) / link});
    return stream_bytes / ns;
  };
  return {gbps(run.core_local, 1, false),
          gbps(run.socket_local, socket, false),
          gbps(run.core_remote, 1, true),
          gbps(run.socket_remote, socket, true),
          local_ns,
          remote_ns};
}

// ------------------------------------------------------------ the parts

TEST(Interconnect, LinksFollowTheOneHopDistances) {
  const sim::interconnect ring(sim::find_machine("numa-ws-4x8").topo);  // 10/20/30 ring of 4
  EXPECT_EQ(ring.links.size(), 8u);                                     // each node to its two neighbours
  EXPECT_EQ(ring.route(0, 1).size(), 1u);
  EXPECT_EQ(ring.route(0, 3).size(), 1u);
  ASSERT_EQ(ring.route(0, 2).size(), 2u);  // over node 1, the lower of the two ways
  EXPECT_EQ(ring.links[static_cast<std::size_t>(ring.route(0, 2)[0])], (std::pair<int, int>{0, 1}));
  EXPECT_EQ(ring.links[static_cast<std::size_t>(ring.route(0, 2)[1])], (std::pair<int, int>{1, 2}));
  EXPECT_TRUE(ring.route(2, 2).empty());

  const sim::interconnect mesh(sim::find_machine("tbb-numa-westmere-4x8").topo);  // 10/20: all one hop
  EXPECT_EQ(mesh.links.size(), 12u);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) EXPECT_EQ(mesh.route(a, b).size(), a == b ? 0u : 1u);
}

sim::machine_model slow_two_nodes() {
  sim::machine_model m = sim::find_machine("tbb-numa-nehalem-2x4");
  m.clock_ghz = 1;                  // 1 cycle = 1 ns
  m.memory_controller_gbps = 1;     // a 64-byte block: 64 cycles of a controller
  m.link_gbps = 0.5;                // 128 cycles of a link
  m.links_per_hop = 1;
  m.protocol = {};                  // only the data crosses (the protocol has its own test)
  return m;
}

TEST(Contention, EachResourceServesInTheOrderOfRequests) {
  sim::contention queues(slow_two_nodes(), 64);
  const std::vector<std::uint64_t> none{0, 0};
  // Ten local blocks at time 0 hold node 0's controller until 640.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 0, std::vector<std::uint64_t>{10, 0}, none), 640);
  // A block requested at 100 waits for them.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 100, std::vector<std::uint64_t>{1, 0}, none), 704);
  // Node 1's controller is free; its block also crosses the link 1 -> 0.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 100, std::vector<std::uint64_t>{0, 1}, none), 228);
  // A block from node 1's L3 needs only the link, which is busy until 228.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 200, none, std::vector<std::uint64_t>{0, 1}), 356);
  // The other direction of the link is another resource.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(1, 200, std::vector<std::uint64_t>{1, 0}, none), 704 + 64);
  // After idle time a resource starts at the request.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 10000, std::vector<std::uint64_t>{1, 0}, none), 10064);
}

TEST(Contention, WritebacksOccupyTheHomeControllerAndTheLinks) {
  sim::contention queues(slow_two_nodes(), 64);
  const std::vector<std::uint64_t> none{0, 0};
  // Node 0 writes five blocks back to node 1: posted at 0, they hold node
  // 1's controller until 320 and the link 0 -> 1 until 640.
  queues.reserve_writebacks(0, 0, std::vector<std::uint64_t>{0, 5});
  EXPECT_DOUBLE_EQ(queues.controller_free(1), 320);
  EXPECT_DOUBLE_EQ(queues.controller_free(0), 0);
  EXPECT_DOUBLE_EQ(queues.link_free(queues.links().route(0, 1)[0]), 640);
  EXPECT_DOUBLE_EQ(queues.link_free(queues.links().route(1, 0)[0]), 0);
  // A read of node 1's memory by node 1 waits behind them.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(1, 0, std::vector<std::uint64_t>{0, 1}, none), 384);
}

// The protocol's bytes per 64-byte line, at 0.5 GB/s and 1 GHz: 2 cycles
// a byte. On the ring of four (0-1-2-3-0) a read by node 0 of a block homed
// on node 1 sends its request over 0 -> 1; its snoops go to 1 (0 -> 1), 2
// (0 -> 1 -> 2, the lower way) and 3 (0 -> 3); 2 and 3 answer the home,
// 3 over 3 -> 0 -> 1 (the lower way), the data comes back over 1 -> 0 with
// its header, and only the data is waited for.
TEST(Contention, LinksCarryHeadersRequestsSnoopsAndResponses) {
  sim::machine_model m = sim::find_machine("numa-ws-4x8");
  m.clock_ghz = 1;
  m.memory_controller_gbps = 0;
  m.link_gbps = 0.5;
  m.links_per_hop = 1;
  m.protocol = {8, 4, 2, 1};
  sim::contention queues(m, 64);
  const auto& net = queues.links();
  const auto link = [&](int from, int to) { return queues.link_free(net.route(from, to)[0]); };
  const std::vector<std::uint64_t> none(4, 0);
  // The data: (64 + 8) bytes x 2 cycles.
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 0, std::vector<std::uint64_t>{0, 1, 0, 0}, none), 144);
  EXPECT_DOUBLE_EQ(link(1, 0), 144);
  // 0 -> 1: the request (4), the snoops to 1 and to 2 (2 + 2), then 3's
  // response to the home (1): 9 bytes.
  EXPECT_DOUBLE_EQ(link(0, 1), 18);
  EXPECT_DOUBLE_EQ(link(0, 3), 4);   // the snoop to 3
  EXPECT_DOUBLE_EQ(link(3, 0), 2);   // 3's response, first hop
  EXPECT_DOUBLE_EQ(queues.link_free(net.route(2, 1)[0]), 2);  // 2's response
  EXPECT_DOUBLE_EQ(queues.link_free(net.route(1, 2)[0]), 4);  // the snoop to 2, second hop
  // A local miss sends no request and no data over a link, but snoops
  // every other node, whose responses come back to it.
  sim::contention local(m, 64);
  EXPECT_DOUBLE_EQ(local.reserve_reads(0, 0, std::vector<std::uint64_t>{1, 0, 0, 0}, none), 0);
  EXPECT_DOUBLE_EQ(local.link_free(net.route(0, 1)[0]), 8);  // snoops to 1 and 2
  EXPECT_DOUBLE_EQ(local.link_free(net.route(1, 0)[0]), 4);  // responses of 1 and 2
  // Without snoop bytes nothing is broadcast.
  m.protocol = {8, 4, 0, 1};
  sim::contention directory(m, 64);
  directory.reserve_reads(0, 0, std::vector<std::uint64_t>{1, 0, 0, 0}, none);
  for (std::size_t l = 0; l < net.links.size(); ++l) EXPECT_DOUBLE_EQ(directory.link_free(static_cast<int>(l)), 0);
}

TEST(Contention, UnlimitedResourcesNeverDelay) {
  sim::machine_model m = slow_two_nodes();
  m.memory_controller_gbps = 0;
  m.link_gbps = 0;
  sim::contention queues(m, 64);
  EXPECT_FALSE(queues.enabled());
  EXPECT_DOUBLE_EQ(queues.reserve_reads(0, 50, std::vector<std::uint64_t>{1000, 1000}, std::vector<std::uint64_t>{0, 9}), 50);
}

// One worker, lines that are all cold (DRAM, local): a chase of separate
// one-line touches pays every latency; a gather of the same lines overlaps
// them up to the outstanding misses; a sequential touch of as many lines is
// faster still (the prefetcher).
TEST(MemoryParallelism, ChaseGatherAndStream) {
  const std::string machine = "numa-ws-4x8";
  const sim::machine_model m = sim::find_machine(machine);
  constexpr std::size_t lines = 8192;
  const std::size_t per_line = line / sizeof(double);
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  auto simulated_ns = [&](int how) {
    page_array data(lines * per_line);
    locus::runtime rt(on(machine, 1));
    locus::reset_stats();
    locus::fork_join(
        [&] {
          const double* base = data.data.get();
          if (how == 0)
            for (const std::uint32_t i : order) locus::touch(base + i * per_line, sizeof(double));
          if (how == 1) {
            std::vector<std::uint32_t> index(lines);
            for (std::size_t k = 0; k < lines; ++k) index[k] = order[k] * static_cast<std::uint32_t>(per_line);
            locus::touch_indexed(base, index.data(), lines, sizeof(double));
          }
          if (how == 2) locus::touch(base, lines * line);
        },
        [] {});
    const auto total = locus::get_stats().total();
    EXPECT_EQ(total.counter("local_dram"), lines);
    return locus::get_stats().elapsed_s * 1e9;
  };
  const double latency_ns = static_cast<double>(m.latency.local_dram) / m.clock_ghz;
  const double chase = simulated_ns(0), gather = simulated_ns(1), stream = simulated_ns(2);
  const auto near = [](double value, double target) { return std::abs(value / target - 1) <= tolerance; };
  EXPECT_TRUE(near(chase, lines * latency_ns)) << chase;
  EXPECT_TRUE(near(gather, lines * latency_ns / m.outstanding_misses)) << gather;
  EXPECT_TRUE(near(stream, lines * latency_ns / m.prefetch_outstanding)) << stream;
}

TEST(MemoryParallelism, GathersOffThePoolAreIgnored) {
  std::vector<double> v(16, 1.0);
  const std::int64_t index[] = {3, 1, 15};
  locus::touch_indexed(v.data(), index, 3, sizeof(double));  // no simulated pool: nothing happens
  locus::runtime rt(on("numa-ws-4x8", 2));
  locus::reset_stats();
  locus::touch_indexed(v.data(), index, 3, sizeof(double));  // the main thread is not a worker
  EXPECT_EQ(locus::get_stats().total().counter("local_dram"), 0u);
  EXPECT_EQ(locus::get_stats().total().counter("l1_hits"), 0u);
}

class Calibration : public ::testing::TestWithParam<const char*> {};

TEST_P(Calibration, ReproducesTheMachineWithin15Percent) {
  const std::string name = GetParam();
  const sim::machine_model m = sim::find_machine(name);
  ASSERT_GE(m.topo.num_numa_nodes, 2);
  const sim::interconnect net(m.topo);
  ASSERT_EQ(net.route(0, remote_node).size(), 1u) << "node 1 is one hop from node 0";
  const int socket = cores_of_node_0(m);

  const triads run{triad(name, 1, -1), triad(name, socket, -1), triad(name, 1, remote_node),
                   triad(name, socket, remote_node)};
  const figures want = expected(m, run);
  const figures got{run.core_local.stream_gbps,  run.socket_local.stream_gbps, run.core_remote.stream_gbps,
                    run.socket_remote.stream_gbps, chase_ns(name, -1),         chase_ns(name, remote_node)};
  std::printf("| `%s` | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.0f / %.0f | %.0f / %.0f |\n",
              name.c_str(), got.core_local, want.core_local, got.socket_local, want.socket_local, got.core_remote,
              want.core_remote, got.socket_remote, want.socket_remote, got.chase_local, want.chase_local,
              got.chase_remote, want.chase_remote);
  // The triads' traffic: 24 bytes per element read (a's lines are read
  // before they are written), and what was written back while they ran.
  const double elements = static_cast<double>(triad_elements(m));
  for (const triad_run* r : {&run.core_local, &run.socket_local, &run.core_remote, &run.socket_remote}) {
    EXPECT_NEAR(r->read_bytes / elements, 24.0, 0.5);
    EXPECT_GE(r->written_back_bytes / elements, 4.0) << "most of a's dirty lines are written back";
    EXPECT_LE(r->written_back_bytes / elements, 8.0);
  }
  const auto near = [](double value, double target) { return std::abs(value / target - 1) <= tolerance; };
  EXPECT_TRUE(near(got.core_local, want.core_local)) << got.core_local << " GB/s vs " << want.core_local;
  EXPECT_TRUE(near(got.socket_local, want.socket_local)) << got.socket_local << " GB/s vs " << want.socket_local;
  EXPECT_TRUE(near(got.core_remote, want.core_remote)) << got.core_remote << " GB/s vs " << want.core_remote;
  EXPECT_TRUE(near(got.socket_remote, want.socket_remote)) << got.socket_remote << " GB/s vs " << want.socket_remote;
  EXPECT_TRUE(near(got.chase_local, want.chase_local)) << got.chase_local << " ns vs " << want.chase_local;
  EXPECT_TRUE(near(got.chase_remote, want.chase_remote)) << got.chase_remote << " ns vs " << want.chase_remote;
}

INSTANTIATE_TEST_SUITE_P(Presets, Calibration,
                         ::testing::Values("numa-ws-4x8", "tbb-numa-westmere-4x8", "tbb-numa-nehalem-2x4",
                                           "tbb-numa-bulldozer-4x4", "cats-opteron-4x4", "adws-cascadelake-2x28",
                                           "nabbitc-8x10"),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

}  // namespace
