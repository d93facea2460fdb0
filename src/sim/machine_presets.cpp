// The machine presets: the machines the five papers measured on, and this
// host. Every number carries its source, here beside it and in the preset's
// `source` string. Where a paper gives no latency, the figure is a published
// measurement of the same microarchitecture, or a stated stand-in.
//
// Two ratios fill the remote latencies no one measured for a machine. Both
// come from TBB-NUMA (seed 001, section 1), which cites Nehalem latencies
// of 38 / 186 cycles for local / remote LLC and 190 / 310 for local / remote
// DRAM, and reports "similar slowdowns (4.9x for cache accesses, 1.6x for
// DRAM)" on comparable AMD systems:
//   remote L3 hit   = 4.9 x local L3 hit     (186 / 38 = 4.89)
//   remote DRAM     = 1.6 x local DRAM       (310 / 190 = 1.63)
// One stand-in fills local DRAM where no figure for the machine was at hand:
// 65 ns, Nehalem-EP's local DRAM latency (TBB-NUMA's 190 cycles, measured by
// Molka et al., PACT 2009, on a 2.93 GHz Xeon X5570), converted at the
// preset's clock.
#include <array>
#include <utility>

#include "sim/machine_model.hpp"

namespace locus::detail::sim {

namespace {

machine_model build(std::string_view name, std::string_view topology_text, double clock_ghz,
                    const latency_table& latency, std::string_view source) {
  machine_model m;
  m.name = std::string(name);
  m.source = std::string(source);
  m.topo = parse_topology(topology_text, "LOCUS_MACHINE");
  m.clock_ghz = clock_ghz;
  m.latency = latency;
  m.costs = derive_scheduling_costs(latency);
  return m;
}

// NUMA-WS (seed 000, section V): four Xeon E5-4620 (Sandy Bridge-EP) at
// 2.20 GHz, 8 cores each, 32 KB L1d and 256 KB L2 per core, 16 MB L3 per
// socket. The E5-4600 has two QPI links, so the four sockets form a ring:
// two sockets one hop away, one two hops (the paper's section III and
// Intel's "Memory Latencies on Intel Xeon Processor E5-4600 and E7-4800
// product families", T. Willhalm, 2014); dist=10/20/30 says so. The paper
// calls socket 0's far socket 3, the grammar's ring calls it 2: the names
// differ, the distances do not.
machine_model numa_ws_4x8() {
  latency_table t;
  t.l1_hit = 4;          // TechReport, Core i7-3960X review: Sandy Bridge-E, L1 4 cycles
  t.l2_hit = 12;         // same review: L2 12 cycles
  t.l3_hit = 30;         // same review: L3 30 cycles (same die family as the E5-4600)
  t.remote_l3_hit = 147; // 4.9 x 30 (TBB-NUMA ratio)
  t.local_dram = 143;    // stand-in 65 ns x 2.2 GHz
  t.remote_dram = 229;   // 1.6 x 143 (TBB-NUMA ratio)
  t.reference_distance = 20;
  return build("numa-ws-4x8",
               // L1/L2 8-way (Sandy Bridge); L3 16-way: 8 slices of 2 MB
               // (the 2.5 MB slices of 20 MB parts are 20-way).
               "4x8:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=16M,L3assoc=16,dist=10/20/30",
               2.2,  // NUMA-WS section V: 2.20 GHz
               t,
               "NUMA-WS (seed 000) section V: 4 x Xeon E5-4620, 8 cores, 2.20 GHz, 32 KB L1d, "
               "256 KB L2, 16 MB L3; ring of 4 sockets (two QPI links per E5-4600, Intel, "
               "Willhalm 2014). L1/L2/L3 4/12/30 cycles: TechReport Sandy Bridge-E review. "
               "Remote L3 4.9 x L3, remote DRAM 1.6 x local: TBB-NUMA (seed 001) ratios. "
               "Local DRAM: stand-in 65 ns (Nehalem-EP, Molka et al. 2009) at 2.2 GHz.");
}

// TBB-NUMA (seed 001, table 1): Intel E7-4830 (Westmere-EX), 4 processors,
// 32 cores, 4 x 24 MB LLC. Clock 2.13 GHz (Intel ARK, E7-4830). The E7-4800
// links every socket to the three others (Willhalm 2014), so every remote
// node is one hop: dist=10/20.
machine_model tbb_numa_westmere_4x8() {
  latency_table t;
  t.l1_hit = 4;          // Nehalem/Westmere core: ~4 cycles (Intel, D. Levinthal,
                         // "Performance Analysis Guide for Intel Core i7 and Xeon 5500")
  t.l2_hit = 10;         // same guide: ~10 cycles
  t.l3_hit = 38;         // stand-in: Nehalem-EP's LLC (TBB-NUMA); Westmere-EX's
                         // longer ring is likely slower
  t.remote_l3_hit = 186; // 4.9 x 38 (TBB-NUMA ratio; Nehalem's measured 186)
  t.local_dram = 288;    // 135 ns (Willhalm 2014, Intel MLC on an E7-4800) x 2.13 GHz
  t.remote_dram = 420;   // 197 ns (mean of the same matrix's remote entries, 194-202) x 2.13
  t.reference_distance = 20;
  return build("tbb-numa-westmere-4x8",
               // L1/L2 8-way (Nehalem family); L3 24-way (Westmere-EX).
               "4x8:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=24M,L3assoc=24,dist=10/20",
               2.13,  // Intel ARK: E7-4830 2.13 GHz
               t,
               "TBB-NUMA (seed 001) table 1: E7-4830 Westmere-EX, 4 x 8 cores, 24 MB LLC per "
               "socket; 2.13 GHz (Intel ARK). L1/L2 4/10 cycles: Intel Core i7/Xeon 5500 "
               "performance analysis guide. L3 38 cycles: Nehalem stand-in (TBB-NUMA). Remote "
               "L3 4.9 x L3 (TBB-NUMA ratio). DRAM 135 / 197 ns local / remote: Intel MLC on an "
               "E7-4800 (Willhalm 2014), at 2.13 GHz. Fully connected: every remote node one hop.");
}

// TBB-NUMA (seed 001, table 1): Intel E5520 (Nehalem-EP), 2 processors,
// 8 cores, 2 x 8 MB LLC; the latencies are the ones the paper cites.
machine_model tbb_numa_nehalem_2x4() {
  latency_table t;
  t.l1_hit = 4;          // Levinthal's Core i7 / Xeon 5500 guide: ~4 cycles
  t.l2_hit = 10;         // same guide: ~10 cycles
  t.l3_hit = 38;         // TBB-NUMA section 1: local LLC 38 cycles
  t.remote_l3_hit = 186; // TBB-NUMA section 1: remote LLC 186 cycles
  t.local_dram = 190;    // TBB-NUMA section 1: local DRAM 190 cycles
  t.remote_dram = 310;   // TBB-NUMA section 1: remote DRAM 310 cycles
  t.reference_distance = 20;
  return build("tbb-numa-nehalem-2x4",
               // L1/L2 8-way, L3 16-way (Nehalem).
               "2x4:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=8M,L3assoc=16,dist=10/20",
               2.26,  // Intel ARK: E5520 2.26 GHz
               t,
               "TBB-NUMA (seed 001) table 1: E5520 Nehalem-EP, 2 x 4 cores, 8 MB LLC per "
               "socket; 2.26 GHz (Intel ARK). LLC 38 / 186 and DRAM 190 / 310 cycles local / "
               "remote: TBB-NUMA section 1 (measured by Molka et al. 2009 at 2.93 GHz, used "
               "as cycles). L1/L2 4/10 cycles: Intel Core i7/Xeon 5500 performance guide.");
}

// TBB-NUMA (seed 001, table 1): AMD Opteron 6212 (Bulldozer), "4/16"
// processors/cores, 4 x 8 MB LLC. A 6212 package holds two 4-core dies, so
// these are four dies (NUMA nodes) of 4 cores, each with its own 8 MB L3.
// Clock 2.6 GHz (AMD, Opteron 6212). Every die is assumed one
// HyperTransport hop from every other: dist=10/20 (20 is ACPI's default
// remote distance).
machine_model tbb_numa_bulldozer_4x4() {
  latency_table t;
  t.l1_hit = 4;          // LostCircuits, FX-8150 review (2011): L1d 4 cycles
  t.l2_hit = 21;         // same review: L2 20-22 cycles with in-page strides
  t.l3_hit = 55;         // stand-in: K10's L3 (AnandTech Phenom II review, Everest:
                         // 55 cycles); Bulldozer's L3 is reported slower
  t.remote_l3_hit = 270; // 4.9 x 55 (TBB-NUMA ratio for AMD systems)
  t.local_dram = 169;    // stand-in 65 ns x 2.6 GHz
  t.remote_dram = 270;   // 1.6 x 169 (TBB-NUMA ratio for AMD systems)
  t.reference_distance = 20;
  return build("tbb-numa-bulldozer-4x4",
               // L1d 16 KB 4-way, L2 16-way, L3 64-way (LostCircuits; AMD
               // family 15h). A module's 2 MB L2 is shared by its two cores;
               // the topology grammar has private L2s only, so each core gets
               // half of it (1 MB): the same capacity per core.
               "4x4:L1=16K,L1assoc=4,L2=1M,L2assoc=16,L3=8M,L3assoc=64,dist=10/20",
               2.6,  // AMD: Opteron 6212 2.6 GHz
               t,
               "TBB-NUMA (seed 001) table 1: Opteron 6212 Bulldozer, 4 dies x 4 cores, 8 MB "
               "LLC per die; 2.6 GHz (AMD). L1d 16 KB 4-way 4 cycles, L2 16-way 21 cycles: "
               "LostCircuits FX-8150 review; module L2 (2 MB per 2 cores) modeled as 1 MB per "
               "core. L3 55 cycles: K10 stand-in (AnandTech, Phenom II). Remote L3 4.9 x, "
               "remote DRAM 1.6 x local: TBB-NUMA's AMD ratios. Local DRAM: stand-in 65 ns at "
               "2.6 GHz. dist 10/20 assumed.");
}

// CATS (seed 002, section 4): four AMD Opteron 8380 (Shanghai, K10) at
// 2.5 GHz, 4 cores each, 512 KB L2 per core, 6 MB L3 per socket. The
// socket links are not described; every remote socket is assumed one hop.
machine_model cats_opteron_4x4() {
  latency_table t;
  t.l1_hit = 3;          // AnandTech, Phenom II review (same 45 nm K10 core): L1 3 cycles
  t.l2_hit = 15;         // same review: L2 15 cycles
  t.l3_hit = 55;         // same review, Everest's measurement (AMD gave none): 55 cycles
  t.remote_l3_hit = 270; // 4.9 x 55 (TBB-NUMA ratio for AMD systems)
  t.local_dram = 163;    // stand-in 65 ns x 2.5 GHz (162.5, rounded up)
  t.remote_dram = 261;   // 1.6 x 163 (TBB-NUMA ratio for AMD systems)
  t.reference_distance = 20;
  return build("cats-opteron-4x4",
               // K10: L1d 64 KB 2-way, L2 16-way, L3 48-way (AMD family 10h).
               "4x4:L1=64K,L1assoc=2,L2=512K,L2assoc=16,L3=6M,L3assoc=48,dist=10/20",
               2.5,  // CATS section 4: 2.5 GHz
               t,
               "CATS (seed 002) section 4: 4 x Opteron 8380 Shanghai, 4 cores, 2.5 GHz, 512 KB "
               "L2 per core, 6 MB L3 per socket. L1/L2/L3 3/15/55 cycles: AnandTech Phenom II "
               "review (L3 by Everest). Remote L3 4.9 x, remote DRAM 1.6 x local: TBB-NUMA's "
               "AMD ratios. Local DRAM: stand-in 65 ns at 2.5 GHz. dist 10/20 assumed.");
}

// ADWS (seed 003, table 1): two Xeon Platinum 8280 (Cascade Lake), 28 cores
// each, 2.7 GHz, 32 KB L1d and 1 MB L2 per core, 38.5 MB L3 per socket.
machine_model adws_cascadelake_2x28() {
  latency_table t;
  t.l1_hit = 4;          // AnandTech, EPYC Rome review: Xeon 8280 L1 4 cycles
  t.l2_hit = 14;         // same review: Xeon 8280 L2 14 cycles
  t.l3_hit = 77;         // AnandTech, Skylake-X review, Skylake-SP cache table: L3 77
                         // cycles (Cascade Lake keeps Skylake-SP's mesh and L3)
  t.remote_l3_hit = 377; // 4.9 x 77 (TBB-NUMA ratio)
  t.local_dram = 243;    // AnandTech, Skylake-SP vs EPYC review: 89-91 ns; 90 ns x 2.7 GHz
  t.remote_dram = 389;   // 1.6 x 243 (TBB-NUMA ratio)
  t.reference_distance = 21;
  return build("adws-cascadelake-2x28",
               // L1d/L2/L3 8/16/11-way (Skylake-SP); 38.5 MB = 39424 KB.
               // dist 10/21: the SLIT Linux reports on two-socket Xeon
               // Scalable machines.
               "2x28:L1=32K,L1assoc=8,L2=1M,L2assoc=16,L3=39424K,L3assoc=11,dist=10/21",
               2.7,  // ADWS table 1: 2.7 GHz
               t,
               "ADWS (seed 003) table 1: 2 x Xeon Platinum 8280 Cascade Lake, 28 cores, "
               "2.7 GHz, 32 KB L1d, 1 MB L2, 38.5 MB L3. L1/L2 4/14 cycles: AnandTech EPYC Rome "
               "review (Xeon 8280). L3 77 cycles: AnandTech Skylake-SP cache table. Local DRAM "
               "90 ns: AnandTech Skylake-SP review. Remote L3 4.9 x, remote DRAM 1.6 x local: "
               "TBB-NUMA ratios. dist 10/21: usual two-socket Xeon Scalable SLIT.");
}

// NabbitC (seed 004, section V): eight Xeon E7-8860 (Westmere-EX) at
// 2.27 GHz, 10 cores each, "eight NUMA domains, each with 10 cores". Per
// core 32 KB L1d and 256 KB L2, 24 MB L3 per socket (Intel ARK, E7-8860).
// A glueless eight-socket Westmere-EX reaches every socket within two QPI
// hops; the grammar's ring model gives each socket two one-hop neighbours
// and, capped by dist=10/20/30, puts all others at two hops (the real wiring
// gives three one-hop neighbours).
machine_model nabbitc_8x10() {
  latency_table t;
  t.l1_hit = 4;          // Levinthal's Core i7 / Xeon 5500 guide: ~4 cycles
  t.l2_hit = 10;         // same guide: ~10 cycles
  t.l3_hit = 38;         // stand-in: Nehalem-EP's LLC (TBB-NUMA)
  t.remote_l3_hit = 186; // 4.9 x 38 (TBB-NUMA ratio)
  t.local_dram = 306;    // 135 ns (Willhalm 2014, Intel MLC on an E7-4800) x 2.27 GHz
  t.remote_dram = 447;   // 197 ns (same, one hop) x 2.27 GHz
  t.reference_distance = 20;
  return build("nabbitc-8x10",
               "8x10:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=24M,L3assoc=24,dist=10/20/30",
               2.27,  // NabbitC section V: 2.27 GHz
               t,
               "NabbitC (seed 004) section V: 8 x Xeon E7-8860 Westmere-EX, 10 cores, 2.27 GHz; "
               "32 KB L1d, 256 KB L2, 24 MB L3 (Intel ARK). L1/L2 4/10 cycles: Intel Core "
               "i7/Xeon 5500 performance guide. L3 38 cycles: Nehalem stand-in (TBB-NUMA). "
               "Remote L3 4.9 x L3 (TBB-NUMA ratio). DRAM 135 / 197 ns local / one hop: Intel "
               "MLC on an E7-4800 (Willhalm 2014), at 2.27 GHz. Ring of 8 capped at 2 hops.");
}

// This machine as hwloc sees it. locus does not measure the host's
// latencies: it borrows the Cascade Lake table (the development host is a
// Cascade Lake) and its clock.
machine_model host() {
  machine_model m = adws_cascadelake_2x28();
  m.name = "host";
  m.topo = discover_host();
  m.source =
      "topology: this machine, read with hwloc; latencies, clock and costs: the "
      "adws-cascadelake-2x28 stand-in (not measured on this host)";
  return m;
}

struct preset_entry {
  machine_preset info;
  machine_model (*make)();
};

constexpr std::array<preset_entry, 8> presets = {{
    {{"numa-ws-4x8", "NUMA-WS: 4 x 8-core Xeon E5-4620 (Sandy Bridge-EP), 2.2 GHz, ring"},
     numa_ws_4x8},
    {{"tbb-numa-westmere-4x8", "TBB-NUMA: 4 x 8-core Xeon E7-4830 (Westmere-EX), 2.13 GHz"},
     tbb_numa_westmere_4x8},
    {{"tbb-numa-nehalem-2x4", "TBB-NUMA: 2 x 4-core Xeon E5520 (Nehalem-EP), 2.26 GHz"},
     tbb_numa_nehalem_2x4},
    {{"tbb-numa-bulldozer-4x4", "TBB-NUMA: 4 x 4-core Opteron 6212 dies (Bulldozer), 2.6 GHz"},
     tbb_numa_bulldozer_4x4},
    {{"cats-opteron-4x4", "CATS: 4 x 4-core Opteron 8380 (Shanghai), 2.5 GHz"},
     cats_opteron_4x4},
    {{"adws-cascadelake-2x28", "ADWS: 2 x 28-core Xeon Platinum 8280 (Cascade Lake), 2.7 GHz"},
     adws_cascadelake_2x28},
    {{"nabbitc-8x10", "NabbitC: 8 x 10-core Xeon E7-8860 (Westmere-EX), 2.27 GHz"},
     nabbitc_8x10},
    {{"host", "this machine (hwloc); latencies of the Cascade Lake stand-in"}, host},
}};

}  // namespace

std::span<const machine_preset> machine_presets() {
  static const auto infos = [] {
    std::array<machine_preset, presets.size()> out{};
    for (std::size_t i = 0; i < presets.size(); ++i) out[i] = presets[i].info;
    return out;
  }();
  return infos;
}

std::string preset_name_list() {
  std::string names;
  for (const auto& preset : presets)
    names.append(names.empty() ? "" : ", ").append(preset.info.name);
  return names;
}

std::optional<machine_model> find_preset(std::string_view name) {
  for (const auto& preset : presets)
    if (preset.info.name == name) return preset.make();
  return std::nullopt;
}

}  // namespace locus::detail::sim
