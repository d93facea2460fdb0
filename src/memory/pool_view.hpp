// What memory/ sees of the pool: its machine and its places, nothing else
// (not the runtime state). The core provides it (core/runtime.cpp), so that
// memory/ includes nothing of the core.
#pragma once

#include "topology/topology.hpp"

namespace locus::detail {

struct pool_view {
  const topology& topo;     // the machine the pool runs on (or simulates)
  const placement& places;  // its workers' places
};

// The running pool's view; starts the pool with the default options if
// none runs, as every call of locus/memory.hpp that needs places does.
pool_view view_of_pool();

}  // namespace locus::detail
