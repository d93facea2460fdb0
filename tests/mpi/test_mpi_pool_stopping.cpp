// The pool stops (its locus::runtime is destroyed) while a task still waits
// on a request: the stop would wait for that task for ever, so the poll
// service, told before the stop waits for its tasks, ends the program with
// one line naming how many tasks wait (ctest matches it). Rank 0's task
// waits for a message rank 1 never sends.
#include <thread>

#include "locus/locus.hpp"
#include "locus/mpi.hpp"

int main(int argc, char** argv) {
  locus::mpi::init(argc, argv);
  if (locus::mpi::rank() == 0) {
    {
      locus::runtime_options o;
      o.workers = 2;
      locus::runtime rt(o);
      static int never = 0;
      locus::enqueue([] { locus::mpi::recv(&never, 1, MPI_INT, 1, 99); });
      // Until the task has suspended on its receive (a condition, not a time).
      while (locus::mpi::get_counters().tasks_suspended == 0) std::this_thread::yield();
    }  // the pool stops here, and the program ends
    return 0;  // not reached
  }
  locus::mpi::finalize();
  return 0;
}
