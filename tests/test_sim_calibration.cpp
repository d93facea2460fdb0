// Calibration of the simulator against each preset's machine (issue 11,
// item 5): a STREAM-like triad (one core and one socket, data local and on
// the next node) and a pointer chase (local and remote) run under the
// simulator, at a small size, and must reproduce the machine's figures
// within 15%:
// - chase: the preset's DRAM latencies (published measurements, see
//   docs/simulator.md);
// - one socket: the controller's bandwidth (local) or the links' (remote),
//   the vendor peaks the preset gives;
// - one core: Little's law, the lines the prefetcher keeps in flight x the
//   line size / the DRAM latency (a derived figure: the presets have no
//   published single-core STREAM result).
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

#include "locus/locus.hpp"
#include "sim/contention.hpp"
#include "sim/machine_model.hpp"

namespace sim = locus::detail::sim;

namespace {

constexpr double tolerance = 0.15;
constexpr std::size_t triad_elements = std::size_t{1} << 20;  // 8 MiB per array
constexpr std::size_t triad_grain = 4096;                     // 32 KiB of each array per piece
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

// Simulated GB/s of a[i] = b[i] + s c[i], counted as STREAM counts it (24
// bytes per element). The pages are new to the simulator, so every line
// comes from DRAM: first touch homes them on node 0, or they are bound to
// `home`.
double triad_gbps(const std::string& machine, int workers, int home) {
  page_array a(triad_elements), b(triad_elements), c(triad_elements);
  locus::runtime rt(on(machine, workers));
  const std::size_t bytes = triad_elements * sizeof(double);
  if (home >= 0)
    for (double* p : {a.data.get(), b.data.get(), c.data.get()}) locus::detail::simulate_place_pages(p, bytes, home);
  locus::reset_stats();
  locus::parallel_for(std::int64_t{0}, static_cast<std::int64_t>(triad_elements / triad_grain), std::int64_t{1},
                      [&](std::int64_t piece) {
                        const std::size_t lo = static_cast<std::size_t>(piece) * triad_grain;
                        locus::touch(b.data.get() + lo, triad_grain * sizeof(double));
                        locus::touch(c.data.get() + lo, triad_grain * sizeof(double));
                        locus::touch(a.data.get() + lo, triad_grain * sizeof(double), locus::access::write);
                        for (std::size_t i = lo; i < lo + triad_grain; ++i)
                          a.data[i] = b.data[i] + 3.0 * c.data[i];
                      });
  const double seconds = locus::get_stats().elapsed_s;
  EXPECT_EQ(a.data[triad_elements - 1], 4.0);
  return 24.0 * static_cast<double>(triad_elements) / seconds / 1e9;
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
  double core_local, socket_local, core_remote, socket_remote;  // GB/s
  double chase_local, chase_remote;                               // ns
};

// What the machine's figures say: see the comment at the top.
figures expected(const sim::machine_model& m) {
  const auto& topo = m.topo;
  const int d = topo.numa_distance[0][remote_node];
  const double local_ns = static_cast<double>(m.dram_cycles(sim::local_distance)) / m.clock_ghz;
  const double remote_ns = static_cast<double>(m.dram_cycles(d)) / m.clock_ghz;
  int cores = 0;
  for (const auto& core : topo.cores) cores += core.numa_node == 0 ? 1 : 0;
  const double in_flight = m.prefetch_outstanding > 0 ? m.prefetch_outstanding : m.outstanding_misses;
  const auto little = [&](double ns) { return in_flight * static_cast<double>(line) / ns; };
  const double controller = m.memory_controller_gbps > 0 ? m.memory_controller_gbps : 1e9;
  const double link = m.link_gbps > 0 ? m.link_gbps * m.links_per_hop : 1e9;
  return {std::min(controller, little(local_ns)),
          std::min(controller, cores * little(local_ns)),
          std::min({controller, link, little(remote_ns)}),
          std::min({controller, link, cores * little(remote_ns)}),
          local_ns,
          remote_ns};
}

class Calibration : public ::testing::TestWithParam<const char*> {};

TEST_P(Calibration, ReproducesTheMachineWithin15Percent) {
  const std::string name = GetParam();
  const sim::machine_model m = sim::find_machine(name);
  ASSERT_GE(m.topo.num_numa_nodes, 2);
  const sim::interconnect net(m.topo);
  ASSERT_EQ(net.route(0, remote_node).size(), 1u) << "node 1 is one hop from node 0";
  int socket = 0;
  for (const auto& core : m.topo.cores) socket += core.numa_node == 0 ? 1 : 0;

  const figures want = expected(m);
  const figures got{triad_gbps(name, 1, -1),          triad_gbps(name, socket, -1),
                    triad_gbps(name, 1, remote_node), triad_gbps(name, socket, remote_node),
                    chase_ns(name, -1),               chase_ns(name, remote_node)};
  std::printf("| `%s` | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.0f / %.0f | %.0f / %.0f |\n",
              name.c_str(), got.core_local, want.core_local, got.socket_local, want.socket_local, got.core_remote,
              want.core_remote, got.socket_remote, want.socket_remote, got.chase_local, want.chase_local,
              got.chase_remote, want.chase_remote);
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
