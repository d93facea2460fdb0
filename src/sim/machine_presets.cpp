// The machine presets: the machines the five papers measured on, and this
// host. Every number carries its source, here beside it and in the preset's
// `source` string; docs/simulator.md ("Presets and their sources") has the
// same in tables, with the URLs. Where a paper gives no latency, the figure is a published
// measurement of the same chip or microarchitecture, or a stated stand-in.
//
// Two ratios fill the remote latencies no one measured for a machine. Both
// come from TBB-NUMA (seed 001, section 1), which gives Nehalem latencies of
// 38 / 186 cycles for local / remote LLC and 190 / 310 for local / remote
// DRAM, and says "similar slowdowns (4.9x for cache accesses, 1.6x for
// DRAM)" hold on comparable AMD systems, citing its reference [15]
// (Hackenberg, Molka, Nagel, MICRO 2009):
//   remote L3 hit   = 4.9 x local L3 hit     (186 / 38 = 4.89)
//   remote DRAM     = 1.6 x local DRAM       (310 / 190 = 1.63)
// One stand-in fills local DRAM where no figure for the machine was at hand:
// 65 ns, TBB-NUMA's Nehalem local DRAM (190 cycles) taken at 2.93 GHz, the
// clock of the Xeon X5570 measured in [15] (that clock is recalled from [15],
// not re-checked), converted at the preset's clock. Intel's Nehalem guide
// (Levinthal) gives ~60 ns for the same case, which agrees.
// Figures given in ns are converted at the preset's base clock and rounded
// to the nearest cycle (halves up).
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

// The memory system's throughput: what sim/contention.hpp and the engine's
// memory-level parallelism use. Peak figures are the vendor's: channels x
// transfers per second x 8 bytes for a memory controller, transfers per
// second x 2 bytes for each direction of a 16-bit QPI / UPI / HT link. They
// are peaks, not sustained STREAM figures (docs/simulator.md, Calibration,
// says how far the simulated triad is from them and from published runs).
struct memory_system {
  double controller_gbps;
  double link_gbps;
  int links_per_hop;
  machine_model::link_protocol protocol;
  unsigned outstanding_misses;
  unsigned prefetch_outstanding;
  std::string_view source;
};

// What the links carry besides the data (machine_model::link_protocol), in
// bytes of the quoted link rate per 64-byte line.
//
// QPI's quoted rate counts 8 bytes per 80-bit flit, and a 64-byte line
// crosses as 9 flits, one of them a header (Intel, Xeon E5-2600 v2 uncore
// performance monitoring reference, 329468-002, QPI link layer events). A
// request, a snoop and a snoop response are taken as one flit each: their
// message classes (HOM, SNP) carry no data (E5-2600 uncore guide, 327043,
// opcode table; one flit each is an assumption). A QPI machine without a
// directory snoops every other socket on every miss. Westmere-EX's
// directory-assisted snoop returns data early but still sends the snoops,
// and Intel calls 8-socket systems "limited by snoop bandwidth" (Xeon
// E7-8800/4800/2800 datasheet volume 2, section 5.2, DAS). Sandy Bridge-EP
// and Nehalem-EP keeping no directory is an assumption.
constexpr machine_model::link_protocol qpi_broadcast_snoops{8, 8, 8, 8};
// UPI (Cascade Lake) keeps a directory in memory and snoops only where it
// says; its packet overheads are taken to be QPI's (an assumption).
constexpr machine_model::link_protocol upi_directory{8, 8, 0, 0};
// HyperTransport: a read response is a 4-byte control packet before the
// data, a sized read request and a probe 8 bytes, a probe response 4
// (HyperTransport I/O link specification, packet formats; recalled, not
// re-checked). K10 Shanghai broadcasts probes to every node on a miss; from
// Istanbul on, HT Assist's probe filter directs them (AMD, recalled, not
// re-checked), which the model leaves out: Bulldozer sends none.
constexpr machine_model::link_protocol ht_broadcast_probes{4, 8, 8, 4};
constexpr machine_model::link_protocol ht_probe_filter{4, 8, 0, 0};

machine_model with_memory_system(machine_model m, const memory_system& s) {
  m.memory_controller_gbps = s.controller_gbps;
  m.link_gbps = s.link_gbps;
  m.links_per_hop = s.links_per_hop;
  m.protocol = s.protocol;
  m.outstanding_misses = s.outstanding_misses;
  m.prefetch_outstanding = s.prefetch_outstanding;
  m.prefetch_trigger = 2;  // two misses in a page, as Intel's L2 streamer (optimization manual)
  m.source += " Bandwidth and parallelism: ";
  m.source += s.source;
  return m;
}

// NUMA-WS (seed 000, section V): four Xeon E5-4620 (Sandy Bridge-EP) at
// 2.20 GHz, 8 cores each, 32 KB L1d and 256 KB L2 per core, 16 MB L3 per
// socket. Section III-B: from socket 0, sockets 1 and 2 are one hop away and
// socket 3 two hops. The E5-4600 has two QPI links, so four sockets form a
// ring (T. Willhalm, "Memory Latencies on Intel Xeon Processor E5-4600 and
// E7-4800 product families", Intel blog, 2014-01-28); dist=10/20/30 says so.
// The paper calls socket 0's far socket 3, the grammar's ring calls it 2:
// the names differ, the distances do not.
machine_model numa_ws_4x8() {
  latency_table t;
  t.l1_hit = 4;          // TechReport, Core i7-3960X (Sandy Bridge-E) review, p. 5:
                         // L1 4 cycles (same core and ring as the E5-4600)
  t.l2_hit = 12;         // same page: L2 12 cycles
  t.l3_hit = 30;         // same page: L3 30 cycles (a 15 MB L3; the E5-4620's is 16 MB)
  t.remote_l3_hit = 147; // estimate: 4.9 x 30 = 147 (TBB-NUMA ratio)
  t.local_dram = 143;    // stand-in: 65 ns x 2.2 GHz = 143 (no E5-4600 figure at hand)
  t.remote_dram = 229;   // estimate: 1.6 x 143 = 228.8 (TBB-NUMA ratio)
  t.reference_distance = 20;
  return with_memory_system(build("numa-ws-4x8",
               // L1d and L2 8-way (Sandy Bridge; recalled, not re-checked).
               // L3 16-way is an assumption: 2 MB per slice at 128 KB per
               // way, as the 20 MB parts' 20 ways of 2.5 MB slices suggest
               // (recalled, not re-checked).
               "4x8:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=16M,L3assoc=16,dist=10/20/30",
               2.2,  // NUMA-WS section V: 2.20 GHz
               t,
               "NUMA-WS (seed 000) section V: 4 x Xeon E5-4620, 8 cores, 2.20 GHz, 32 KB L1d, "
               "256 KB L2, 16 MB L3; section III-B: two sockets one hop away, one two hops "
               "(a ring: two QPI links per E5-4600, Willhalm, Intel blog 2014). L1/L2/L3 "
               "4/12/30 cycles: TechReport Core i7-3960X review. Remote L3 = 4.9 x L3, remote "
               "DRAM = 1.6 x local: TBB-NUMA (seed 001) ratios. Local DRAM: stand-in 65 ns "
               "(Nehalem, from TBB-NUMA's 190 cycles) at 2.2 GHz. L3 associativity assumed."),
                            {42.7, 14.4, 1, qpi_broadcast_snoops, 10, 16,
                             "E5-4620: 4 channels of DDR3-1333 = 42.7 GB/s per socket, QPI 7.2 GT/s = "
                             "14.4 GB/s per link and direction (Intel ARK, recalled, not re-checked); "
                             "10 L1 fill buffers and a 16-entry L2 queue for the streamer (Intel "
                             "optimization manual, Sandy Bridge)."});
}

// TBB-NUMA (seed 001, table 1): Intel E7-4830 (Westmere-EX), 4 processors,
// 32 cores, 4 x 24 MB LLC, QPI. Clock 2.13 GHz (the processor's brand string,
// "E7- 4830 @ 2.13GHz"). Each E7-4800 has three QPI links to the other
// processors and one to the I/O hub (Willhalm 2014), so every remote socket
// is one hop: dist=10/20.
machine_model tbb_numa_westmere_4x8() {
  latency_table t;
  t.l1_hit = 4;          // 7-cpu.com, "Intel Westmere": L1 data 4 cycles
  t.l2_hit = 10;         // same page: L2 10 cycles
  t.l3_hit = 45;         // stand-in: Intel's 21 ns load-to-use for the L3 of Nehalem-EX
                         // (Westmere-EX's 45 nm predecessor, 24 MB on a ring), as quoted
                         // in AnandTech's Xeon 7500 review, p. 3; 21 ns x 2.13 GHz = 44.7
  t.remote_l3_hit = 221; // estimate: 4.9 x 45 = 220.5 (TBB-NUMA ratio)
  t.local_dram = 288;    // 135 ns (Willhalm 2014, Intel MLC on a 4-socket E7-4800:
                         // diagonal 135-136 ns) x 2.13 GHz = 287.6
  t.remote_dram = 420;   // 197 ns (mean of that matrix's 12 remote entries, 194-202 ns,
                         // 197.4) x 2.13 GHz = 419.6
  t.reference_distance = 20;
  return with_memory_system(build("tbb-numa-westmere-4x8",
               // L1d 8-way, L2 8-way, L3 24-way: what hwloc's test data reports
               // for a Xeon E7-4870 (Westmere-EX, 30 MB L3); the 24 MB parts
               // are assumed to keep 24 ways.
               "4x8:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=24M,L3assoc=24,dist=10/20",
               2.13,  // brand string "Intel(R) Xeon(R) CPU E7- 4830 @ 2.13GHz"
               t,
               "TBB-NUMA (seed 001) table 1: E7-4830 Westmere-EX, 4 x 8 cores, 24 MB LLC per "
               "socket, QPI; 2.13 GHz (brand string). L1/L2 4/10 cycles: 7-cpu.com Westmere. "
               "L3 45 cycles: stand-in, Intel's 21 ns for Nehalem-EX's L3 (AnandTech Xeon 7500 "
               "review) at 2.13 GHz. Remote L3 = 4.9 x L3 (TBB-NUMA ratio). DRAM 135 / 197 ns "
               "local / remote: Intel MLC on a 4-socket E7-4800 (Willhalm, Intel blog 2014), at "
               "2.13 GHz. Three QPI links to the other sockets: every remote node one hop."),
                            {34.1, 12.8, 1, qpi_broadcast_snoops, 10, 16,
                             "E7-4830: 4 memory channels of DDR3-1066 = 34.1 GB/s per socket, QPI "
                             "6.4 GT/s = 12.8 GB/s per link and direction (Intel ARK, recalled, not "
                             "re-checked); 10 fill buffers, 16-entry L2 queue (Nehalem core)."});
}

// TBB-NUMA (seed 001, table 1): Intel E5520 (Nehalem-EP), 2 processors,
// 8 cores, 2 x 8 MB LLC, QPI; the latencies are the ones the paper cites.
machine_model tbb_numa_nehalem_2x4() {
  latency_table t;
  t.l1_hit = 4;          // Intel, D. Levinthal, "Performance Analysis Guide for Intel
                         // Core i7 Processor and Intel Xeon 5500 processors": ~4 cycles
  t.l2_hit = 10;         // same guide: ~10 cycles
  t.l3_hit = 38;         // TBB-NUMA section 1: local LLC 38 cycles
  t.remote_l3_hit = 186; // TBB-NUMA section 1: remote LLC 186 cycles
  t.local_dram = 190;    // TBB-NUMA section 1: local DRAM 190 cycles
  t.remote_dram = 310;   // TBB-NUMA section 1: remote DRAM 310 cycles
  t.reference_distance = 20;
  return with_memory_system(build("tbb-numa-nehalem-2x4",
               // L1d/L2 8-way (as 7-cpu.com reports for Westmere, the same core);
               // L3 16-way (as 7-cpu.com reports for Westmere-EP's 12 MB L3;
               // taken to hold for Nehalem-EP's 8 MB, not re-checked).
               "2x4:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=8M,L3assoc=16,dist=10/20",
               2.26,  // E5520: 2.26 GHz (HP technology brief "The Intel processor
                      // roadmap for industry-standard servers", table 5)
               t,
               "TBB-NUMA (seed 001) table 1: E5520 Nehalem-EP, 2 x 4 cores, 8 MB LLC per "
               "socket, QPI; 2.26 GHz (HP's Xeon 5500 table). LLC 38 / 186 and DRAM 190 / 310 "
               "cycles local / remote: TBB-NUMA section 1, citing its [15] (Hackenberg, Molka, "
               "Nagel, MICRO 2009); used as cycles, as the paper gives them, though [15]'s chip "
               "may be clocked above the E5520. L1/L2 4/10 cycles: Levinthal, Intel Core "
               "i7/Xeon 5500 performance guide."),
                            {25.6, 11.7, 1, qpi_broadcast_snoops, 10, 16,
                             "E5520: 3 channels of DDR3-1066 = 25.6 GB/s per socket, QPI 5.86 GT/s = "
                             "11.7 GB/s per direction (Intel ARK, recalled, not re-checked); 10 fill "
                             "buffers, 16-entry L2 queue (Levinthal's guide)."});
}

// TBB-NUMA (seed 001, table 1): AMD Opteron 6212 (Bulldozer), "4/16"
// processors/cores, 4 x 8 MB LLC, HyperTransport. A 6212 package holds two
// 4-core dies, each with its own 8 MB L3 and memory controller, so these are
// two packages, i.e. four dies (NUMA nodes) of 4 cores. The grammar calls
// each die a socket. Every die is assumed one HyperTransport hop from every
// other: dist=10/20 (20 is ACPI's default remote distance). Opteron firmware
// reports 16 for one hop and 22 for two (hwloc's test data for a four-socket
// Opteron 6276 machine); with a single remote level the costs are the same
// either way, since the remote figures hold at reference_distance.
machine_model tbb_numa_bulldozer_4x4() {
  latency_table t;
  t.l1_hit = 4;          // LostCircuits, "AMD's FX-8150 Zambezi - Bulldozer in Action"
                         // (2011), caches page: L1d 4 cycles
  t.l2_hit = 21;         // same page: L2 20-22 cycles for in-page strided access
                         // (25-29 fully random, SANDRA)
  t.l3_hit = 55;         // stand-in: K10's L3, Everest's 55 cycles for Phenom II
                         // (AnandTech Phenom II review, p. 5); no Bulldozer L3 figure
                         // was found, and Bulldozer's L3 is reported to be slower
  t.remote_l3_hit = 270; // estimate: 4.9 x 55 = 269.5 (TBB-NUMA ratio for AMD systems)
  t.local_dram = 169;    // stand-in: 65 ns x 2.6 GHz = 169
  t.remote_dram = 270;   // estimate: 1.6 x 169 = 270.4 (TBB-NUMA ratio for AMD systems)
  t.reference_distance = 20;
  return with_memory_system(build("tbb-numa-bulldozer-4x4",
               // L1d 16 KB 4-way, L2 16-way, L3 64-way: what hwloc's test data
               // reports for an Opteron 6276 (same Bulldozer die). A module's
               // 2 MB L2 is shared by its two cores; the topology grammar has
               // private L2s only, so each core gets half of it (1 MB): the
               // same capacity per core.
               "4x4:L1=16K,L1assoc=4,L2=1M,L2assoc=16,L3=8M,L3assoc=64,dist=10/20",
               2.6,  // AMD: Opteron 6212 base clock 2.6 GHz (not re-checked here)
               t,
               "TBB-NUMA (seed 001) table 1: Opteron 6212 Bulldozer, 4 dies x 4 cores, 8 MB "
               "LLC per die, HT; 2.6 GHz (AMD). L1d 4 cycles, L2 21 cycles: LostCircuits FX-8150 "
               "review; associativity: hwloc test data (Opteron 6276); module L2 (2 MB per 2 "
               "cores) modeled as 1 MB per core. L3 55 cycles: K10 stand-in (AnandTech Phenom II "
               "review, Everest). Remote L3 = 4.9 x L3, remote DRAM = 1.6 x local: TBB-NUMA's "
               "AMD ratios. Local DRAM: stand-in 65 ns at 2.6 GHz. All dies one hop, assumed."),
                            {25.6, 12.8, 1, ht_probe_filter, 8, 16,
                             "Opteron 6212: 2 channels of DDR3-1600 per die = 25.6 GB/s, "
                             "HyperTransport 3 at 6.4 GT/s = 12.8 GB/s per direction (AMD, recalled, "
                             "not re-checked); 8 outstanding L1 misses and 16 prefetched lines: "
                             "assumptions."});
}

// CATS (seed 002, section 4): four AMD Opteron 8380 (Shanghai, K10) at
// 2.5 GHz, 4 cores each, 512 KB L2 per core, 6 MB L3 per socket; section 3
// gives the 64-byte line. The socket links are not described. Four-socket
// Opteron boards wire the chips' three HyperTransport links differently
// (McCalpin's TACC Ranger node has two chips one hop from all others and two
// with a two-hop peer); every remote socket is assumed one hop: dist=10/20.
machine_model cats_opteron_4x4() {
  latency_table t;
  t.l1_hit = 3;          // AnandTech, Phenom II review (same 45 nm K10 core), p. 5: L1 3 cycles
  t.l2_hit = 15;         // same page: L2 15 cycles
  t.l3_hit = 55;         // same page, Everest's measurement (AMD gave none): 55 cycles;
                         // AnandTech's Sandra figure for the Opteron 2435 (Istanbul, same
                         // 6 MB L3), in its Opteron 6174 review: 56
  t.remote_l3_hit = 270; // estimate: 4.9 x 55 = 269.5 (TBB-NUMA ratio for AMD systems)
  t.local_dram = 250;    // 100 ns x 2.5 GHz: J. McCalpin, "AMD Opteron Local Memory Latency
                         // Chart" (2010), 4-socket Family 10h (rev B3) systems, chips one
                         // hop from all others; the chart has no 4-socket Shanghai (rev C2)
  t.remote_dram = 400;   // estimate: 1.6 x 250 (TBB-NUMA ratio for AMD systems)
  t.reference_distance = 20;
  return with_memory_system(build("cats-opteron-4x4",
               // K10 45 nm: L1d 64 KB 2-way, L2 16-way, L3 48-way: what hwloc's
               // test data reports for a Magny-Cours (45 nm K10) system.
               "4x4:L1=64K,L1assoc=2,L2=512K,L2assoc=16,L3=6M,L3assoc=48,dist=10/20",
               2.5,  // CATS section 4: 2.5 GHz
               t,
               "CATS (seed 002) section 4: 4 x Opteron 8380 Shanghai, 4 cores, 2.5 GHz, 512 KB "
               "L2 per core, 6 MB L3 per socket. L1/L2/L3 3/15/55 cycles: AnandTech Phenom II "
               "review (L3 by Everest). Associativity: hwloc test data (45 nm K10). Local DRAM "
               "100 ns: McCalpin's Opteron latency chart, 4-socket Family 10h, at 2.5 GHz. Remote "
               "L3 = 4.9 x L3, remote DRAM = 1.6 x local: TBB-NUMA's AMD ratios. dist 10/20 "
               "assumed."),
                            {12.8, 8.8, 1, ht_broadcast_probes, 8, 8,
                             "Opteron 8380: 2 channels of DDR2-800 = 12.8 GB/s per socket, "
                             "HyperTransport 3 at 4.4 GT/s = 8.8 GB/s per direction (AMD, recalled, "
                             "not re-checked); 8 miss buffers (K10) and 8 prefetched lines: "
                             "assumptions."});
}

// ADWS (seed 003, table 1): two Xeon Platinum 8280 (Cascade Lake), 28 cores
// each, 2.7 GHz, 32 KB L1d and 1 MB L2 per core, 38.5 MB L3 per socket.
// The DRAM and remote figures are one Intel MLC run on a two-socket Cascade
// Lake (Xeon Gold 6240, 18 cores), published in github.com/gjbex/
// Code-optimization, info/cascadelake_mlc.txt.
machine_model adws_cascadelake_2x28() {
  latency_table t;
  t.l1_hit = 4;          // AnandTech, EPYC Rome review, latency page: Xeon 8280 L1 4 cycles
  t.l2_hit = 14;         // same table: Xeon 8280 L2 14 cycles
  t.l3_hit = 77;         // AnandTech, Skylake-X review, "I Keep My Cache Private": Skylake-SP
                         // L3 77 cycles (Cascade Lake keeps Skylake-SP's mesh and L3)
  t.remote_l3_hit = 307; // MLC remote-socket L2->L2 HITM: 113.2-114.1 ns, mean 113.7,
                         // x 2.7 GHz = 307.0 (a cross-socket cache-to-cache transfer)
  t.local_dram = 219;    // MLC idle latency, local: 80.8 / 81.5 ns, mean 81.15, x 2.7 = 219.1
                         // (AnandTech's LMBench figure for Skylake-SP: 89-91 ns)
  t.remote_dram = 381;   // MLC idle latency, remote: 140.4 / 141.6 ns, mean 141.0, x 2.7 = 380.7
  t.reference_distance = 21;
  return with_memory_system(build("adws-cascadelake-2x28",
               // L1d/L2/L3 8/16/11-way (AnandTech Skylake-X review, Skylake-SP
               // column); 38.5 MB = 39424 KB. dist 10/21: the SLIT two-socket
               // Xeon Scalable firmware reports (e.g. the DRAM nodes of the
               // 2-socket DRAM+PMEM system in F. Du's linux-mm RFC, 2019-04-25).
               "2x28:L1=32K,L1assoc=8,L2=1M,L2assoc=16,L3=39424K,L3assoc=11,dist=10/21",
               2.7,  // ADWS table 1: 2.7 GHz
               t,
               "ADWS (seed 003) table 1: 2 x Xeon Platinum 8280 Cascade Lake, 28 cores, "
               "2.7 GHz, 32 KB L1d, 1 MB L2, 38.5 MB L3. L1/L2 4/14 cycles: AnandTech EPYC Rome "
               "review (Xeon 8280). L3 77 cycles and associativity: AnandTech Skylake-X review "
               "(Skylake-SP). DRAM 81 / 141 ns local / remote and remote cache 114 ns: Intel MLC "
               "on a 2-socket Xeon Gold 6240 (github.com/gjbex/Code-optimization), at 2.7 GHz. "
               "dist 10/21: usual two-socket Xeon Scalable SLIT."),
                            {140.8, 20.8, 3, upi_directory, 12, 16,
                             "Xeon 8280: 6 channels of DDR4-2933 = 140.8 GB/s per socket, 3 UPI links "
                             "at 10.4 GT/s = 20.8 GB/s per link and direction, all three assumed "
                             "between the two sockets (Intel ARK, recalled, not re-checked); 12 fill "
                             "buffers (Skylake), 16 prefetched lines (assumption)."});
}

// NabbitC (seed 004, section V): eight Xeon E7-8860 (Westmere-EX) at
// 2.27 GHz, 10 cores each; section V-B: "eight NUMA domains, each with 10
// cores". Per core 32 KB L1d and 256 KB L2, 24 MB L3 per socket (Intel ARK,
// E7-8860; not re-checked here). Each Xeon E7 has three QPI links to other
// processors and one to the I/O hub (Willhalm 2014), so in eight sockets
// three are one hop away and four are farther; the wiring's diameter is
// taken as two hops (assumed, not documented in the sources checked). The
// grammar's ring model gives each socket two one-hop neighbours and, capped
// by dist=10/20/30, puts the other five at two hops.
machine_model nabbitc_8x10() {
  latency_table t;
  t.l1_hit = 4;          // 7-cpu.com, "Intel Westmere": L1 data 4 cycles
  t.l2_hit = 10;         // same page: L2 10 cycles
  t.l3_hit = 48;         // stand-in: Intel's 21 ns for Nehalem-EX's L3 (AnandTech Xeon 7500
                         // review, p. 3) x 2.27 GHz = 47.7
  t.remote_l3_hit = 235; // estimate: 4.9 x 48 = 235.2 (TBB-NUMA ratio)
  t.local_dram = 306;    // stand-in: 135 ns (Willhalm 2014, MLC on a 4-socket E7-4800)
                         // x 2.27 GHz = 306.45; an 8-socket machine is likely slower
  t.remote_dram = 447;   // stand-in: 197 ns (same matrix, one hop) x 2.27 GHz = 447.2
  t.reference_distance = 20;
  return with_memory_system(build("nabbitc-8x10",
               // Associativity as for tbb-numa-westmere-4x8 (hwloc test data,
               // Xeon E7-4870).
               "8x10:L1=32K,L1assoc=8,L2=256K,L2assoc=8,L3=24M,L3assoc=24,dist=10/20/30",
               2.27,  // NabbitC section V: 2.27 GHz
               t,
               "NabbitC (seed 004) section V: 8 x Xeon E7-8860 Westmere-EX, 10 cores, 2.27 GHz; "
               "32 KB L1d, 256 KB L2, 24 MB L3 (Intel ARK). L1/L2 4/10 cycles: 7-cpu.com "
               "Westmere. L3 48 cycles: stand-in, Intel's 21 ns for Nehalem-EX's L3 (AnandTech "
               "Xeon 7500 review) at 2.27 GHz. Remote L3 = 4.9 x L3 (TBB-NUMA ratio). DRAM "
               "135 / 197 ns local / one hop: stand-in, Intel MLC on a 4-socket E7-4800 "
               "(Willhalm, Intel blog 2014), at 2.27 GHz. Ring of 8 capped at 2 hops, assumed."),
                            {34.1, 12.8, 1, qpi_broadcast_snoops, 10, 16,
                             "E7-8860: as the E7-4830, 4 memory channels of DDR3-1066 = 34.1 GB/s per "
                             "socket, QPI 6.4 GT/s = 12.8 GB/s per link and direction (Intel ARK, "
                             "recalled, not re-checked); 10 fill buffers, 16-entry L2 queue."});
}

// This machine as hwloc sees it, all of it. locus does not measure the host's
// latencies: it borrows the Cascade Lake table (the development host is a
// Cascade Lake) and its clock.
machine_model host() {
  machine_model m = adws_cascadelake_2x28();
  m.name = "host";
  m.topo = discover_host(/*whole_machine=*/true);  // the machine, whatever this process is bound to
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
