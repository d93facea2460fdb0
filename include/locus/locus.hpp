// locus: a task-parallel runtime that runs computation where its data lives.
// The umbrella header: programs include this and nothing else.
#pragma once

#include "locus/annotate.hpp"
#include "locus/arena.hpp"
#include "locus/combinable.hpp"
#include "locus/enqueue.hpp"
#include "locus/errors.hpp"
#include "locus/for_each.hpp"
#include "locus/fork_join.hpp"
#include "locus/hints.hpp"
#include "locus/invoke.hpp"
#include "locus/label.hpp"
#include "locus/memory.hpp"
#include "locus/mutex.hpp"
#include "locus/semaphore.hpp"
#include "locus/parallel.hpp"
#include "locus/pipeline.hpp"
#include "locus/place.hpp"
#include "locus/runtime.hpp"
#include "locus/stats.hpp"
#include "locus/task_graph.hpp"
#include "locus/task_group.hpp"
