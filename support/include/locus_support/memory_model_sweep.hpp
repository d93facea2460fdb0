// The simulator's memory model alone, without the scheduler or the engine,
// for locus-sim-speed: how fast the per-line access path runs by itself.
// Each core takes a fixed block of the pages of an input and an output
// array, the cores' accesses interleaved page by page, one read and one
// write access per page, as the engine issues a touch. Part of
// locus::support.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace locus_support {

class memory_model_sweep {
 public:
  // The model of machine (a preset name or a machine file), `workers`
  // cores of it (at most its cores), arrays of `bytes` in all.
  memory_model_sweep(const std::string& machine, int workers, std::size_t bytes);
  ~memory_model_sweep();
  memory_model_sweep(const memory_model_sweep&) = delete;
  memory_model_sweep& operator=(const memory_model_sweep&) = delete;

  // Sweeps the arrays `passes` times; returns the line accesses made.
  double run(int passes);
  // Virtual seconds of the busiest core so far.
  double simulated_seconds() const;
  std::size_t block_bytes() const;

 private:
  struct model;
  std::unique_ptr<model> model_;
};

}  // namespace locus_support
