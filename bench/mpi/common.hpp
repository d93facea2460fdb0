// What both hybrid programs share: the variants, the rank's block of a range
// of lines, the pool of a locus variant, and the MPI calls the tasks variant
// makes through the MPI module (task-aware waits).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <locus/locus.hpp>
#include <locus/mpi.hpp>

namespace mpi_bench {

// mpi: one rank per core, serial inside. mpi+omp: an OpenMP static loop per
// step. mpi+locus-bsp: a locus parallel loop per step, blocking exchange
// between steps. mpi+locus-tasks: the exchange in flight while locus tasks
// compute the lines that do not need it; the lines that do are tasks that
// wait for their message with locus::mpi::wait (the worker runs other tasks
// meanwhile). mpi+locus-bsp-aware: mpi+locus-bsp with locus::mpi's blocking
// calls (sendrecv, allreduce: a non-blocking call and a task-aware wait)
// instead of MPI's, so nothing overlaps but the waits are locus::mpi's: it
// tells the overlap's gain from the way of waiting.
enum class variant { mpi, omp, locus_bsp, locus_tasks, locus_bsp_aware };

inline const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names{"mpi", "mpi+omp", "mpi+locus-bsp", "mpi+locus-tasks",
                                              "mpi+locus-bsp-aware"};
  return names;
}

inline variant parse_variant(const std::string& name) {
  const auto& names = variant_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<variant>(i);
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("--variant " + name + ": unknown variant; known: " + known + ", all");
}

inline const std::string& name_of(variant v) { return variant_names()[static_cast<std::size_t>(v)]; }

inline bool uses_locus(variant v) { return v != variant::mpi && v != variant::omp; }

// Lines [first, last) of `count` lines starting at `begin`, this rank's
// contiguous block (the first count % size ranks one line more).
struct block {
  std::int64_t first, last;
  std::int64_t size() const { return last - first; }
};

inline block block_of(std::int64_t begin, std::int64_t count, int rank, int ranks) {
  const std::int64_t base = count / ranks, extra = count % ranks;
  const std::int64_t first = begin + rank * base + std::min<std::int64_t>(rank, extra);
  return {first, first + base + (rank < extra ? 1 : 0)};
}

// locus::mpi::init sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so the plain
// MPI calls of the other variants are checked here: a failure throws
// locus::mpi::error naming the call.
inline void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw locus::mpi::error(std::string(call) + ": " + std::string(text, static_cast<std::size_t>(length)), code);
}

// The neighbours that own the lines above and below (MPI_PROC_NULL at the
// ends: messages to and from it complete at once and move nothing).
inline int rank_above(int rank) { return rank == 0 ? MPI_PROC_NULL : rank - 1; }
inline int rank_below(int rank, int ranks) { return rank == ranks - 1 ? MPI_PROC_NULL : rank + 1; }

// Tags of the two halo messages: a line travelling up, a line travelling down.
inline constexpr int tag_up = 11, tag_down = 12;

// Blocking halo exchange of one line each way (mpi, mpi+omp, mpi+locus-bsp):
// `first_own` and `last_own` are sent, `halo_above` and `halo_below` received.
inline void exchange_blocking(const double* first_own, const double* last_own, double* halo_above,
                              double* halo_below, int count, int rank, int ranks) {
  const int up = rank_above(rank), down = rank_below(rank, ranks);
  check(MPI_Sendrecv(first_own, count, MPI_DOUBLE, up, tag_up, halo_below, count, MPI_DOUBLE, down, tag_up,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
  check(MPI_Sendrecv(last_own, count, MPI_DOUBLE, down, tag_down, halo_above, count, MPI_DOUBLE, up, tag_down,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

// The same exchange with locus::mpi::sendrecv (mpi+locus-bsp-aware): from a
// task, each wait suspends the task instead of blocking its worker.
inline void exchange_aware(const double* first_own, const double* last_own, double* halo_above, double* halo_below,
                           int count, int rank, int ranks) {
  const int up = rank_above(rank), down = rank_below(rank, ranks);
  locus::mpi::sendrecv(first_own, count, MPI_DOUBLE, up, tag_up, halo_below, count, MPI_DOUBLE, down, tag_up);
  locus::mpi::sendrecv(last_own, count, MPI_DOUBLE, down, tag_down, halo_above, count, MPI_DOUBLE, up, tag_down);
}

// The same exchange posted (mpi+locus-tasks): requests[0] receives the halo
// above, requests[1] the halo below, requests[2..3] are the sends.
inline void exchange_post(const double* first_own, const double* last_own, double* halo_above, double* halo_below,
                          int count, int rank, int ranks, MPI_Request (&requests)[4]) {
  const int up = rank_above(rank), down = rank_below(rank, ranks);
  check(MPI_Irecv(halo_above, count, MPI_DOUBLE, up, tag_down, MPI_COMM_WORLD, &requests[0]), "MPI_Irecv");
  check(MPI_Irecv(halo_below, count, MPI_DOUBLE, down, tag_up, MPI_COMM_WORLD, &requests[1]), "MPI_Irecv");
  check(MPI_Isend(first_own, count, MPI_DOUBLE, up, tag_up, MPI_COMM_WORLD, &requests[2]), "MPI_Isend");
  check(MPI_Isend(last_own, count, MPI_DOUBLE, down, tag_down, MPI_COMM_WORLD, &requests[3]), "MPI_Isend");
}

// The task-aware waits of mpi+locus-tasks (locus::mpi, docs/mpi.md): from
// a task, a wait that does not complete at once suspends the task and its
// worker runs other tasks; the workers complete the request by polling.
inline void task_wait(MPI_Request& request) { locus::mpi::wait(request); }

inline void task_wait_all(std::span<MPI_Request> requests) { locus::mpi::wait_all(requests); }

inline double task_allreduce_sum(double value) { return locus::mpi::allreduce(value, MPI_SUM); }

// Runs `body` as one root task on the pool and waits for it: the tasks
// variant's whole time loop is a task, so every wait in it is a task's.
template <class Body>
void as_root_task(Body&& body) {
  locus::task_group root;
  root.spawn(std::forward<Body>(body));
  root.sync();
}

}  // namespace mpi_bench
