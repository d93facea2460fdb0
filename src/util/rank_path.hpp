// Per-rank output files: a path's "%r" becomes the MPI rank of this process,
// so the ranks of one job do not overwrite each other's traces, statistics
// or results (LOCUS_TRACE, LOCUS_STATS=json:FILE, locus-bench --out).
#pragma once

#include <string>
#include <string_view>

namespace locus::detail {

// The rank the launcher gave this process, read from its environment
// (OMPI_COMM_WORLD_RANK: Open MPI; PMIX_RANK, PMI_RANK: MPICH, Intel MPI,
// PMIx launchers; SLURM_PROCID: srun), so it is known before MPI_Init and
// without linking MPI. 0 outside a launcher.
int launcher_rank() noexcept;

// `path` with every "%r" replaced by launcher_rank().
std::string with_rank(std::string_view path);

}  // namespace locus::detail
