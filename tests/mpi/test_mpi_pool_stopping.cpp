// The poll service's pool_stopping() with a task registered as waiting: one
// line naming how many tasks wait on MPI requests, then abort (ctest
// matches the line). White-box: the core's pool stop waits for every task
// before it calls pool_stopping(), so no program reaches it with a task
// waiting today (src/mpi/README.md, "Shutdown"); the registration a
// waiting task makes is made here by hand, with a receive that never
// matches, and the hook called as the core calls it.
#include "locus/mpi.hpp"
#include "mpi/poller.hpp"

int main(int argc, char** argv) {
  locus::mpi::init(argc, argv);
  static int never = 0;
  static MPI_Request request = MPI_REQUEST_NULL;
  static MPI_Status status;
  MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &request);
  static locus::mpi::impl::waiter_group group;
  group.remaining.store(1);
  const locus::mpi::impl::waited_request waited{&request, &status, 0, &group};
  locus::mpi::impl::the_poller().add({&waited, 1});
  locus::mpi::impl::the_poller().pool_stopping();  // ends the program here
  return 0;                                        // not reached
}
