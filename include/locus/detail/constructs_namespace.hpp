// The parallel constructs (task_group, fork_join, parallel_for,
// parallel_reduce) live in an inline namespace that names how they are
// compiled: `par` normally, `serial_elision` when LOCUS_SERIAL_ELISION is
// defined before including locus. In the serial elision every construct is
// replaced by plain calls, which measures T_S with the same program text
// (NUMA-WS section I). The two namespaces let one program link a parallel and
// a serial translation unit of the same kernel without an ODR clash.
#pragma once

#ifdef LOCUS_SERIAL_ELISION
#define LOCUS_CONSTRUCTS_NS serial_elision
#else
#define LOCUS_CONSTRUCTS_NS par
#endif
