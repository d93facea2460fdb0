// The engine factory: the one place that names the concrete engines.
#include "engine/engine.hpp"
#include "engine/sim_engine.hpp"

namespace locus::detail {

std::unique_ptr<engine> make_engine(const engine_config& config) {
  if (!config.simulated_machine) return make_threaded_engine(config.seed);
  sim::memory_options memory;
  memory.block_bytes = config.sim_block_bytes;
  // Seed 1 by default, so that simulated runs repeat.
  auto sim = std::make_unique<sim_engine>(*config.simulated_machine,
                                          config.seed >= 0 ? static_cast<std::uint64_t>(config.seed) : 1, memory,
                                          config.identity);
  sim->set_idle_attempts(config.sim_idle_attempts);
  return sim;
}

}  // namespace locus::detail
