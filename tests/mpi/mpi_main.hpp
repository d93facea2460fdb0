// The main of the MPI test programs: GoogleTest's own main cannot be used,
// MPI must be initialized first and finalized last. Every rank runs the
// same tests in the same order, each with its own rank's side; both ranks
// print (a failure on rank 1 is shown too), each line of GoogleTest's
// output prefixed by nothing but the order mpirun gives it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "locus/locus.hpp"

#include "locus/mpi.hpp"

namespace locus_mpi_test {

// The rank the other side of a two-rank test.
inline int partner() { return locus::mpi::rank() ^ 1; }

// What a task's wait on a null request throws on a pool of `o` ("" if
// nothing): the misuse tests' probe of a wait from a task.
inline std::string wait_error_in_task(const locus::runtime_options& o) {
  locus::runtime rt(o);
  locus::task_group g;
  g.spawn([] {
    MPI_Request r = MPI_REQUEST_NULL;
    locus::mpi::wait(r);
  });
  try {
    g.sync();
  } catch (const locus::mpi::error& e) {
    return e.what();
  }
  return "";
}

// Tells rank 1, from a task of its own, that it may send: the message a
// task of rank 0 waits on is sent only once that task ran, so a wait that
// held the worker would never end.
inline void let_partner_send(locus::task_group& g, int tag) {
  g.enqueue([tag] {
    const int go = 1;
    locus::mpi::send(&go, 1, MPI_INT, 1, tag);
  });
}

inline int run_all(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

}  // namespace locus_mpi_test
