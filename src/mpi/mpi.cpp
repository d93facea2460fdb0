// locus::mpi (include/locus/mpi.hpp): init and finalize, the task-aware
// waits, and the blocking calls built on them. The poller is poller.cpp;
// the design, src/mpi/README.md.
#include "locus/mpi.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "locus/detail/worker_view.hpp"
#include "locus/runtime.hpp"
#include "poller.hpp"

namespace locus::mpi {
namespace {

std::atomic<bool> g_ready{false};  // init done, finalize not yet
bool g_we_initialized = false;     // init called MPI_Init_thread (main thread only)

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

// An MPI call failed: `where` is the locus::mpi function, `call` the MPI one.
[[noreturn]] void fail(const char* where, const char* call, int code) {
  throw error(std::string(where) + ": " + call + " failed: " + error_string(code), code);
}

void check(int rc, const char* where, const char* call) {
  if (rc != MPI_SUCCESS) fail(where, call, rc);
}

// Before every call: MPI is usable and locus::mpi was initialized. Errors of
// use, not of MPI; an MPI call after MPI_Finalize would be erroneous (MPI
// standard 4.0, section 11.2.2), often an abort inside the library.
void check_usable(const char* where) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    throw error(std::string(where) + ": MPI is finalized (MPI_Finalize was called); no MPI call may follow it",
                MPI_ERR_OTHER);
  if (g_ready.load(std::memory_order_acquire)) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  throw error(std::string(where) +
                  (initialized ? ": locus::mpi::init was not called; call it after MPI_Init_thread (it checks the "
                                 "thread level and starts the request polling)"
                               : ": MPI is not initialized; call locus::mpi::init(argc, argv) first"),
              MPI_ERR_OTHER);
}

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

bool in_task() noexcept { return detail::current_worker() != nullptr; }

// The waits behind every call. For the error messages, `where` names the
// locus::mpi function and `what` the requests ("the MPI_Irecv request").
void wait_requests(std::span<MPI_Request> requests, std::span<MPI_Status> statuses, const char* where,
                   const char* what) {
  impl::poller& p = impl::the_poller();
  p.requests_waited.fetch_add(requests.size(), std::memory_order_relaxed);
  const int n = static_cast<int>(requests.size());
  if (!in_task()) {
    // A thread outside the pool holds no worker: wait as MPI does.
    if (n == 1) {
      check(MPI_Wait(&requests[0], &statuses[0]), where, what);
      return;
    }
    const int rc = MPI_Waitall(n, requests.data(), statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& s : statuses)
        if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING) fail(where, what, s.MPI_ERROR);
    }
    check(rc, where, what);
    return;
  }

  // The simulated engine runs its workers on a virtual clock, one thread for
  // all: a worker polling real MPI requests there keeps that thread from
  // ever taking work from outside, and virtual time means nothing to MPI.
  if (locus::engine_name() == "sim")
    throw error(std::string(where) +
                    ": a task cannot wait on MPI under the simulated engine (LOCUS_ENGINE=sim); "
                    "locus::mpi needs the threaded engine",
                MPI_ERR_OTHER);

  // A task: test each request once (a completed one costs no suspension),
  // then register the rest and suspend until the poller has completed them
  // all. Every request is tested even after one fails, so that none is left
  // registered when the error is thrown.
  int first_error = MPI_SUCCESS;
  impl::waiter_group group;
  std::vector<impl::waited_request> rest;
  for (int i = 0; i < n; ++i) {
    int done = 0;
    const int rc = MPI_Test(&requests[static_cast<std::size_t>(i)], &done, &statuses[static_cast<std::size_t>(i)]);
    if (rc != MPI_SUCCESS) {
      if (first_error == MPI_SUCCESS) first_error = rc;
      continue;  // MPI_Test's failure completes the request (it is freed)
    }
    if (!done)
      rest.push_back({&requests[static_cast<std::size_t>(i)], &statuses[static_cast<std::size_t>(i)], i, &group});
  }
  if (!rest.empty()) {
    group.remaining.store(static_cast<int>(rest.size()), std::memory_order_relaxed);
    p.add(rest);
    p.tasks_suspended.fetch_add(1, std::memory_order_relaxed);
    group.done.wait();  // the worker runs other tasks meanwhile
    if (group.error_code != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = group.error_code;
  }
  if (first_error != MPI_SUCCESS) fail(where, what, first_error);
}

}  // namespace

void init(int& argc, char**& argv) {
  if (g_ready.load(std::memory_order_acquire)) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    throw error("locus::mpi::init: MPI was finalized already; it cannot be initialized again", MPI_ERR_OTHER);
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "locus::mpi::init", "MPI_Init_thread");
    g_we_initialized = true;  // so that finalize() still finalizes it if the level is refused below
  } else {
    check(MPI_Query_thread(&provided), "locus::mpi::init", "MPI_Query_thread");
  }
  // Workers call MPI_Testsome while tasks on other workers (and the main
  // thread) make MPI calls: only MPI_THREAD_MULTIPLE allows that (MPI
  // standard 4.0, section 11.2.3).
  if (provided < MPI_THREAD_MULTIPLE)
    throw error(std::string("locus::mpi::init: MPI provided ") + level_name(provided) +
                    "; locus::mpi needs MPI_THREAD_MULTIPLE (the workers test requests while tasks make MPI "
                    "calls): " +
                    (initialized ? "initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or let "
                                   "locus::mpi::init do it"
                                 : "use an MPI library built with thread support"),
                MPI_ERR_OTHER);
  // Errors come back as codes, and locus::mpi throws them (the default,
  // MPI_ERRORS_ARE_FATAL, would abort every rank).
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "locus::mpi::init", "MPI_Comm_set_errhandler");
  impl::the_poller();  // registers the poll service
  g_ready.store(true, std::memory_order_release);
}

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  impl::poller& p = impl::the_poller();
  // No poll may be inside MPI_Testsome while MPI finalizes, and a task still
  // waiting could never resume.
  const std::lock_guard lock(p.poll_mutex());
  if (p.tasks_waiting() > 0) p.abort_waiting("locus::mpi::finalize was called");
  g_ready.store(false, std::memory_order_release);
  if (g_we_initialized) {
    g_we_initialized = false;
    check(MPI_Finalize(), "locus::mpi::finalize", "MPI_Finalize");
  }
}

int rank(MPI_Comm comm) {
  check_usable("locus::mpi::rank");
  int r = 0;
  check(MPI_Comm_rank(comm, &r), "locus::mpi::rank", "MPI_Comm_rank");
  return r;
}

int size(MPI_Comm comm) {
  check_usable("locus::mpi::size");
  int s = 0;
  check(MPI_Comm_size(comm, &s), "locus::mpi::size", "MPI_Comm_size");
  return s;
}

MPI_Status wait(MPI_Request& request) {
  check_usable("locus::mpi::wait");
  MPI_Status status{};
  wait_requests({&request, 1}, {&status, 1}, "locus::mpi::wait", "the request");
  return status;
}

std::vector<MPI_Status> wait_all(std::span<MPI_Request> requests) {
  check_usable("locus::mpi::wait_all");
  std::vector<MPI_Status> statuses(requests.size());
  if (!requests.empty()) wait_requests(requests, statuses, "locus::mpi::wait_all", "a request");
  return statuses;
}

void send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  check_usable("locus::mpi::send");
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(buf, count, type, dest, tag, comm, &request), "locus::mpi::send", "MPI_Isend");
  MPI_Status status{};
  wait_requests({&request, 1}, {&status, 1}, "locus::mpi::send", "the MPI_Isend request");
}

MPI_Status recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm) {
  check_usable("locus::mpi::recv");
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Irecv(buf, count, type, source, tag, comm, &request), "locus::mpi::recv", "MPI_Irecv");
  MPI_Status status{};
  wait_requests({&request, 1}, {&status, 1}, "locus::mpi::recv", "the MPI_Irecv request");
  return status;
}

MPI_Status sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm) {
  check_usable("locus::mpi::sendrecv");
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  check(MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &requests[0]), "locus::mpi::sendrecv",
        "MPI_Irecv");
  const int rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &requests[1]);
  if (rc != MPI_SUCCESS) {
    // Leave no receive behind that would write into recvbuf later.
    MPI_Cancel(&requests[0]);
    MPI_Request_free(&requests[0]);
    fail("locus::mpi::sendrecv", "MPI_Isend", rc);
  }
  MPI_Status statuses[2] = {};
  wait_requests(requests, statuses, "locus::mpi::sendrecv", "the MPI_Irecv or MPI_Isend request");
  return statuses[0];
}

void allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  check_usable("locus::mpi::allreduce");
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, &request), "locus::mpi::allreduce",
        "MPI_Iallreduce");
  MPI_Status status{};
  wait_requests({&request, 1}, {&status, 1}, "locus::mpi::allreduce", "the MPI_Iallreduce request");
}

counters get_counters() {
  const impl::poller& p = impl::the_poller();
  return {p.requests_waited.load(std::memory_order_relaxed), p.tasks_suspended.load(std::memory_order_relaxed),
          p.polls.load(std::memory_order_relaxed), p.poll_ns.load(std::memory_order_relaxed)};
}

}  // namespace locus::mpi
