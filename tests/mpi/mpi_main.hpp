// The main of the MPI test programs: GoogleTest's own main cannot be used,
// MPI must be initialized first and finalized last. Every rank runs the
// same tests in the same order, each with its own rank's side; both ranks
// print (a failure on rank 1 is shown too), each line of GoogleTest's
// output prefixed by nothing but the order mpirun gives it.
#pragma once

#include <gtest/gtest.h>

#include "locus/mpi.hpp"

namespace locus_mpi_test {

// The rank the other side of a two-rank test.
inline int partner() { return locus::mpi::rank() ^ 1; }

inline int run_all(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

}  // namespace locus_mpi_test
