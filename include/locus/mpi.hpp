// locus::mpi: task-aware MPI for hybrid programs (one MPI rank per NUMA node
// or socket, a locus pool inside each rank). Optional: the library
// locus::mpi (CMake LOCUS_WITH_MPI), not part of locus.hpp. docs/mpi.md.
//
//   int main(int argc, char** argv) {
//     locus::mpi::init(argc, argv);       // MPI_THREAD_MULTIPLE, checked
//     ... tasks call locus::mpi::recv, send, wait, allreduce ...
//     locus::mpi::finalize();
//   }
//
// A *task* that waits on a request (wait, wait_all, and the blocking helpers
// send, recv, sendrecv, allreduce, which are a non-blocking call and a wait)
// does not hold its worker: it suspends, the worker runs other tasks, and
// the pool's workers complete the request by polling it (MPI_Testsome) when
// they look for work. This is TAMPI's non-blocking mode (Sala et al.,
// "Integrating blocking and non-blocking MPI primitives with task-based
// programming models", Parallel Computing 2019), built on locus's poll
// services. A thread outside the pool waits as MPI does (MPI_Wait).
//
// Every MPI call that fails throws locus::mpi::error in the caller (for a
// wait: in the waiting task, which its parent's sync passes on). init sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD; communicators derived from it inherit
// it, others need it set by the program (MPI_Comm_set_errhandler) or MPI
// aborts on an error instead.
//
// Collectives on one communicator must be called in the same order on every
// rank (MPI standard 4.0, section 6.12): from concurrent tasks, give each
// its own communicator (MPI_Comm_dup).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace locus::mpi {

// An MPI call failed (what() names the call and MPI_Error_string of the
// code), or locus::mpi was misused (a wait before init or after
// MPI_Finalize, a thread level below MPI_THREAD_MULTIPLE; code() is then
// MPI_ERR_OTHER).
class error : public std::runtime_error {
 public:
  error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }  // an MPI error code (MPI_Error_class gives its class)

 private:
  int code_;
};

// Initializes MPI asking for MPI_THREAD_MULTIPLE (workers poll requests
// while other tasks make MPI calls), or, if the program initialized MPI
// itself, checks the level it got (MPI_Query_thread). Throws error if the
// level is below MPI_THREAD_MULTIPLE. Sets MPI_ERRORS_RETURN on
// MPI_COMM_WORLD. Call it once, from the main thread, before any other call
// of locus::mpi.
void init(int& argc, char**& argv);
// MPI_Finalize, if init initialized MPI. Call it from the thread that called
// init, once no task waits on a request any more: a task still waiting then
// could never resume, so the program ends there (one line on stderr, abort).
void finalize();

int rank(MPI_Comm comm = MPI_COMM_WORLD);
int size(MPI_Comm comm = MPI_COMM_WORLD);

// Waits until the request completes and returns its status; the request is
// then MPI_REQUEST_NULL (or inactive, if persistent), as after MPI_Wait.
// From a task: tests once, then suspends until a worker's poll completes
// it. From a thread outside the pool: MPI_Wait.
MPI_Status wait(MPI_Request& request);
// Waits for all; statuses in the order of the requests. A task suspends at
// most once, until the last one completes. If some failed, throws error for
// the first of them (after all have completed: no request is left behind).
std::vector<MPI_Status> wait_all(std::span<MPI_Request> requests);

// Blocking point-to-point and collective calls: the non-blocking call
// (MPI_Isend, MPI_Irecv, MPI_Iallreduce) and a wait, so a task suspends.
void send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm = MPI_COMM_WORLD);
MPI_Status recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm = MPI_COMM_WORLD);
MPI_Status sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm = MPI_COMM_WORLD);
void allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm = MPI_COMM_WORLD);

// The MPI datatype of T, for the types allreduce<T> accepts.
template <class T>
inline constexpr bool has_datatype =
    std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, int> || std::is_same_v<T, long> ||
    std::is_same_v<T, long long> || std::is_same_v<T, unsigned long>;

template <class T>
MPI_Datatype datatype_of() {
  static_assert(has_datatype<T>,
                "locus::mpi::datatype_of<T>: accepted types are double, float, int, long, long long, unsigned long");
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<T, long long>) return MPI_LONG_LONG;
  else return MPI_UNSIGNED_LONG;
}

// One value reduced over the ranks, e.g. allreduce(local_sum, MPI_SUM).
template <class T>
T allreduce(T value, MPI_Op op, MPI_Comm comm = MPI_COMM_WORLD) {
  T result{};
  allreduce(&value, &result, 1, datatype_of<T>(), op, comm);
  return result;
}

// Totals since the start of the program, over all threads.
struct counters {
  std::uint64_t requests_waited = 0;  // requests passed to wait/wait_all (and the helpers)
  std::uint64_t tasks_suspended = 0;  // waits of a task that suspended (the first test did not complete it)
  std::uint64_t polls = 0;            // polls that had requests to test (one MPI_Testsome each)
  std::uint64_t poll_ns = 0;          // time spent in those polls (steady_clock)
};
counters get_counters();

}  // namespace locus::mpi
