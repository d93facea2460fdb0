// The annotation entry points of locus/annotate.hpp: forwarded to the
// simulated engine running the calling worker (sim_engine.cpp).
#include "locus/annotate.hpp"

#include "engine/sim_engine.hpp"

namespace locus::detail {

std::atomic<bool> g_simulating{false};

void simulate_touch(const void* address, std::size_t bytes, access how) noexcept {
  if (sim_engine* sim = sim_engine::on_this_thread()) sim->touch(address, bytes, how);
}

void simulate_touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                            std::size_t count, std::size_t elem_size, access how) noexcept {
  if (sim_engine* sim = sim_engine::on_this_thread())
    sim->touch_indexed(base, indices, index_bytes, is_signed, count, elem_size, how);
}

void simulate_compute(std::uint64_t cycles) noexcept {
  if (sim_engine* sim = sim_engine::on_this_thread()) sim->compute(cycles);
}

void simulate_place_pages(const void* address, std::size_t bytes, int node) noexcept {
  if (sim_engine* sim = sim_engine::running()) sim->place_pages(address, bytes, node);
}

void simulate_forget_pages(const void* address, std::size_t bytes) noexcept {
  if (sim_engine* sim = sim_engine::running()) sim->forget_pages(address, bytes);
}

int simulated_page_home(const void* address) noexcept {
  if (sim_engine* sim = sim_engine::running()) return sim->page_home(address);
  return -1;
}

}  // namespace locus::detail
