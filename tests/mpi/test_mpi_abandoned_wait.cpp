// A task still waits on a request when MPI is finalized ("finalize") or
// when its pool stops ("pool-stop"): it could never resume (and the pool's
// stop would wait for it for ever), so the program ends with one line
// naming how many tasks wait (ctest matches it; the program aborts, and
// mpirun with it). Rank 0's task waits for a message rank 1 never sends.
#include <cstring>
#include <thread>

#include "locus/locus.hpp"
#include "locus/mpi.hpp"

int main(int argc, char** argv) {
  locus::mpi::init(argc, argv);
  const bool at_finalize = argc > 1 && std::strcmp(argv[1], "finalize") == 0;
  if (locus::mpi::rank() == 0) {
    {
      locus::runtime_options o;
      o.workers = 2;
      locus::runtime rt(o);
      static int never = 0;
      locus::enqueue([] { locus::mpi::recv(&never, 1, MPI_INT, 1, 99); });
      // Until the task has suspended on its receive (a condition, not a time).
      while (locus::mpi::get_counters().tasks_suspended == 0) std::this_thread::yield();
      if (at_finalize) locus::mpi::finalize();  // ends the program here
    }  // else the pool stops here, and the program ends
    return 0;  // not reached
  }
  locus::mpi::finalize();
  return 0;
}
