// What a policy may measure through the engine, beyond the policy context:
// the engine's named counters (engine.hpp: the simulator's memory accesses
// by level, read through policy_context::eng()) and the bytes tasks
// declare with locus::touch (declared_bytes.hpp). CATS profiles task
// footprints from them where the machine has no hardware counters.
#pragma once

#include "engine/declared_bytes.hpp"
#include "engine/engine.hpp"
