// The annotation entry points of locus/annotate.hpp: forwarded to the
// simulated engine running the calling worker (sim_engine.cpp), or, on
// threads, counted as declared bytes (engine/declared_bytes.hpp).
#include "locus/annotate.hpp"

#include "engine/declared_bytes.hpp"
#include "engine/sim_engine.hpp"

namespace locus::detail {

std::atomic<bool> g_simulating{false};
std::atomic<bool> g_annotating{false};

namespace {
std::atomic<int> g_counting_declared{0};
thread_local std::uint64_t t_declared_bytes = 0;

void refresh_annotating() {
  g_annotating.store(g_simulating.load(std::memory_order_relaxed) ||
                         g_counting_declared.load(std::memory_order_relaxed) > 0,
                     std::memory_order_relaxed);
}
}  // namespace

void set_simulating(bool on) noexcept {
  g_simulating.store(on, std::memory_order_relaxed);
  refresh_annotating();
}

void count_declared_bytes(bool on) noexcept {
  g_counting_declared.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
  refresh_annotating();
}

std::uint64_t declared_bytes_on_this_thread() noexcept { return t_declared_bytes; }

void simulate_touch(const void* address, std::size_t bytes, access how) noexcept {
  if (sim_engine* sim = sim_engine::on_this_thread()) sim->touch(address, bytes, how);
  else t_declared_bytes += bytes;
}

void simulate_touch_indexed(const void* base, const void* indices, unsigned index_bytes, bool is_signed,
                            std::size_t count, std::size_t elem_size, access how) noexcept {
  if (sim_engine* sim = sim_engine::on_this_thread())
    sim->touch_indexed(base, indices, index_bytes, is_signed, count, elem_size, how);
  else t_declared_bytes += count * elem_size;
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
