// locus_support/memory_model_sweep.hpp over the simulator's memory model.
#include "locus_support/memory_model_sweep.hpp"

#include <algorithm>
#include <cstdint>

#include "sim/machine_model.hpp"
#include "sim/memory_model.hpp"

namespace locus_support {

namespace sim = locus::detail::sim;

struct memory_model_sweep::model {
  model(const std::string& machine) : machine(sim::find_machine(machine)), memory(this->machine) {}
  sim::machine_model machine;
  sim::memory_model memory;
  int cores = 1;
  std::uint64_t pages = 0;     // of the input; the output follows it
  std::uint64_t out_base = 0;
  std::uint64_t share = 0;     // pages per core
};

memory_model_sweep::memory_model_sweep(const std::string& machine, int workers, std::size_t bytes)
    : model_(std::make_unique<model>(machine)) {
  model& m = *model_;
  m.cores = std::min(workers, m.machine.topo.num_cores());
  const std::uint64_t page = m.memory.page_bytes();
  m.pages = bytes / 2 / page;
  m.out_base = m.pages * page;
  m.share = (m.pages + static_cast<std::uint64_t>(m.cores) - 1) / static_cast<std::uint64_t>(m.cores);
}

memory_model_sweep::~memory_model_sweep() = default;

double memory_model_sweep::run(int passes) {
  model& m = *model_;
  const std::uint64_t page = m.memory.page_bytes();
  double accesses = 0;
  for (int pass = 0; pass < passes; ++pass)
    for (std::uint64_t step = 0; step < m.share; ++step)
      for (int core = 0; core < m.cores; ++core) {
        const std::uint64_t p = static_cast<std::uint64_t>(core) * m.share + step;
        if (p >= m.pages) continue;
        accesses += static_cast<double>(m.memory.access(core, p * page, page, sim::access_kind::read).accesses());
        accesses += static_cast<double>(
            m.memory.access(core, m.out_base + p * page, page, sim::access_kind::write).accesses());
      }
  return accesses;
}

double memory_model_sweep::simulated_seconds() const {
  const model& m = *model_;
  double busiest = 0;
  for (int core = 0; core < m.cores; ++core)
    busiest = std::max(busiest, static_cast<double>(m.memory.counters(core).total_cycles));
  return busiest / (m.machine.clock_ghz * 1e9);
}

std::size_t memory_model_sweep::block_bytes() const { return model_->memory.block_bytes(); }

}  // namespace locus_support
