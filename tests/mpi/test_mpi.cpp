// locus::mpi with two ranks (ctest: mpirun -np 2 test_mpi). Every test runs
// on both ranks, each with its side of the exchange, and takes its own tags.
// Nothing here depends on timing: where a test needs a task to be suspended,
// the message it waits for is only sent after something that can only happen
// while the task is suspended (a rank-0 task with one worker cannot be both
// waiting and running the task that asks for the message).
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "locus/locus.hpp"
#include "mpi_main.hpp"

namespace {

using locus_mpi_test::partner;

locus::runtime_options workers(int n) {
  locus::runtime_options o;
  o.workers = n;
  return o;
}

enum tags : int {
  tag_go = 10,
  tag_data = 11,
  tag_exc_go = 20,
  tag_exc_data = 21,
  tag_beside_go = 25,
  tag_beside_data = 26,
  tag_trunc_go = 30,
  tag_trunc_data = 31,
  tag_trunc_thread = 32,
  tag_many = 1000,  // 1000 .. 1000 + tasks * per_task
};

// (a) With one worker, a task waiting on a receive does not hold it: rank 1
// sends the data only after a second task of rank 0 ran, which can only run
// on the one worker while the first waits. A blocking wait would deadlock.
TEST(Mpi, WaitingTaskDoesNotHoldItsWorker) {
  ASSERT_EQ(locus::mpi::size(), 2);
  if (locus::mpi::rank() == 1) {
    int go = 0;
    locus::mpi::recv(&go, 1, MPI_INT, 0, tag_go);  // a thread outside any pool: MPI_Wait
    EXPECT_EQ(go, 1);
    const int data = 42;
    locus::mpi::send(&data, 1, MPI_INT, 0, tag_data);
    return;
  }
  const locus::mpi::counters before = locus::mpi::get_counters();
  locus::runtime rt(workers(1));
  int data = 0;
  bool other_ran = false;
  locus::task_group g;
  g.spawn([&] {
    locus::task_group h;
    // To the shared queue: the one worker takes it only once this task waits.
    h.enqueue([&] {
      other_ran = true;
      const int go = 1;
      locus::mpi::send(&go, 1, MPI_INT, 1, tag_go);
    });
    locus::mpi::recv(&data, 1, MPI_INT, 1, tag_data);
    h.sync();
  });
  g.sync();
  EXPECT_TRUE(other_ran);
  EXPECT_EQ(data, 42);
  // (e) The counters moved: the receive could not complete at its first
  // test (its message was not sent yet), so its task suspended and a poll
  // completed it.
  const locus::mpi::counters after = locus::mpi::get_counters();
  EXPECT_GE(after.requests_waited, before.requests_waited + 2);
  EXPECT_GE(after.tasks_suspended, before.tasks_suspended + 1);
  EXPECT_GE(after.polls, before.polls + 1);
  EXPECT_GE(after.poll_ns, before.poll_ns);
}

// (b) Hundreds of requests outstanding at once, waited on by many tasks on
// both ranks: wait_all on some, single waits in reverse order on others, the
// blocking helpers on the rest. Each value names its task and slot.
TEST(Mpi, ManyOutstandingRequests) {
  constexpr int tasks = 64;
  constexpr int per_task = 8;
  const int me = locus::mpi::rank();
  const int other = partner();
  locus::runtime rt(workers(2));
  std::atomic<int> bad{0};
  locus::task_group g;
  for (int t = 0; t < tasks; ++t) {
    g.spawn([&, t] {
      std::vector<int> in(per_task, -1), out(per_task);
      std::vector<MPI_Request> requests(2 * per_task, MPI_REQUEST_NULL);
      for (int k = 0; k < per_task; ++k) {
        const int tag = tag_many + t * per_task + k;
        out[k] = me * 1000000 + tag;
        MPI_Irecv(&in[k], 1, MPI_INT, other, tag, MPI_COMM_WORLD, &requests[k]);
        MPI_Isend(&out[k], 1, MPI_INT, other, tag, MPI_COMM_WORLD, &requests[per_task + k]);
      }
      if (t % 3 == 0) {
        const std::vector<MPI_Status> st = locus::mpi::wait_all(requests);
        for (int k = 0; k < per_task; ++k)
          if (st[k].MPI_SOURCE != other || st[k].MPI_TAG != tag_many + t * per_task + k) bad.fetch_add(1);
      } else if (t % 3 == 1) {
        for (int k = 2 * per_task - 1; k >= 0; --k) {
          const MPI_Status st = locus::mpi::wait(requests[k]);
          if (k < per_task && st.MPI_TAG != tag_many + t * per_task + k) bad.fetch_add(1);
        }
      } else {
        // The requests above done with; the helpers, tags shifted by half the range.
        locus::mpi::wait_all(requests);
        for (int k = 0; k < per_task; ++k) {
          const int tag = tag_many + tasks * per_task + t * per_task + k;
          int got = -1;
          const int mine = me * 1000000 + tag;
          locus::mpi::sendrecv(&mine, 1, MPI_INT, other, tag, &got, 1, MPI_INT, other, tag);
          if (got != other * 1000000 + tag) bad.fetch_add(1);
        }
      }
      for (MPI_Request r : requests)
        if (r != MPI_REQUEST_NULL) bad.fetch_add(1);
      for (int k = 0; k < per_task; ++k)
        if (in[k] != other * 1000000 + tag_many + t * per_task + k) bad.fetch_add(1);
    });
  }
  g.sync();
  EXPECT_EQ(bad.load(), 0);
}

// wait_all from a thread outside the pool (MPI_Waitall), and the requests
// left as MPI_REQUEST_NULL; statuses in order.
TEST(Mpi, WaitAllFromThread) {
  constexpr int n = 200;
  const int other = partner();
  const int base = tag_many + 100000;
  std::vector<int> in(n, -1), out(n);
  std::vector<MPI_Request> requests(2 * n, MPI_REQUEST_NULL);
  for (int k = 0; k < n; ++k) {
    out[k] = k;
    MPI_Irecv(&in[k], 1, MPI_INT, other, base + k, MPI_COMM_WORLD, &requests[k]);
    MPI_Isend(&out[k], 1, MPI_INT, other, base + k, MPI_COMM_WORLD, &requests[n + k]);
  }
  const std::vector<MPI_Status> st = locus::mpi::wait_all(requests);
  ASSERT_EQ(st.size(), requests.size());
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(in[k], k);
    EXPECT_EQ(st[k].MPI_TAG, base + k);
  }
  for (MPI_Request r : requests) EXPECT_EQ(r, MPI_REQUEST_NULL);
}

// Collectives: one task per rank calls them (collectives on a communicator
// go in the same order on every rank), and the main thread too.
TEST(Mpi, Allreduce) {
  const int me = locus::mpi::rank();
  EXPECT_EQ(locus::mpi::allreduce(me + 1, MPI_SUM), 3);
  locus::runtime rt(workers(2));
  double d = 0;
  long long ll = 0;
  unsigned long ul = 0;
  locus::task_group g;
  g.spawn([&] {
    d = locus::mpi::allreduce(0.5 * (me + 1), MPI_SUM);
    ll = locus::mpi::allreduce(static_cast<long long>(me) << 40, MPI_MAX);
    ul = locus::mpi::allreduce(static_cast<unsigned long>(me + 7), MPI_MIN);
    std::vector<float> v(100, 1.0f), sum(100, 0.0f);
    locus::mpi::allreduce(v.data(), sum.data(), 100, MPI_FLOAT, MPI_SUM);
    for (float s : sum)
      if (s != 2.0f) throw std::runtime_error("allreduce of a float array: wrong sum");
  });
  g.sync();
  EXPECT_EQ(d, 1.5);
  EXPECT_EQ(ll, 1LL << 40);
  EXPECT_EQ(ul, 7UL);
}

// (c) An exception thrown by a task after its wait reaches the parent.
TEST(Mpi, ExceptionAfterWaitReachesParent) {
  if (locus::mpi::rank() == 1) {
    int go = 0;
    locus::mpi::recv(&go, 1, MPI_INT, 0, tag_exc_go);
    locus::mpi::send(&go, 1, MPI_INT, 0, tag_exc_data);
    return;
  }
  locus::runtime rt(workers(1));
  locus::task_group g;
  g.spawn([&] {
    locus::task_group h;
    locus_mpi_test::let_partner_send(h, tag_exc_go);
    int data = 0;
    locus::mpi::recv(&data, 1, MPI_INT, 1, tag_exc_data);  // suspends: sent only once the task above ran
    h.sync();
    throw std::runtime_error("thrown after the wait");
  });
  try {
    g.sync();
    ADD_FAILURE() << "sync did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "thrown after the wait");
  }
}

// (c) A sibling's exception, thrown while another task waits, reaches the
// parent once the waiting task is done too.
TEST(Mpi, ExceptionBesideWaitReachesParent) {
  if (locus::mpi::rank() == 1) {
    int go = 0;
    locus::mpi::recv(&go, 1, MPI_INT, 0, tag_beside_go);
    locus::mpi::send(&go, 1, MPI_INT, 0, tag_beside_data);
    return;
  }
  locus::runtime rt(workers(1));
  int data = 0;
  locus::task_group g;
  g.spawn([&] { locus::mpi::recv(&data, 1, MPI_INT, 1, tag_beside_data); });
  g.spawn([] {
    const int go = 5;
    locus::mpi::send(&go, 1, MPI_INT, 1, tag_beside_go);
    throw std::logic_error("thrown beside the wait");
  });
  try {
    g.sync();
    ADD_FAILURE() << "sync did not throw";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "thrown beside the wait");
  }
  EXPECT_EQ(data, 5);
}

// (c, d) An MPI error in a request a task waits on (a receive into a buffer
// too small: MPI_ERR_TRUNCATE) is a locus::mpi::error in that task, and its
// parent's sync throws it; from a thread outside the pool, the call throws.
TEST(Mpi, RequestErrorReachesParent) {
  if (locus::mpi::rank() == 1) {
    int go = 0;
    locus::mpi::recv(&go, 1, MPI_INT, 0, tag_trunc_go);
    const int four[4] = {1, 2, 3, 4};
    locus::mpi::send(four, 4, MPI_INT, 0, tag_trunc_data);
    locus::mpi::send(four, 4, MPI_INT, 0, tag_trunc_thread);
    return;
  }
  {
    const locus::mpi::counters before = locus::mpi::get_counters();
    locus::runtime rt(workers(1));
    locus::task_group g;
    g.spawn([&] {
      locus::task_group h;
      locus_mpi_test::let_partner_send(h, tag_trunc_go);
      int one = 0;
      try {
        locus::mpi::recv(&one, 1, MPI_INT, 1, tag_trunc_data);  // suspends, then the poll finds the error
      } catch (...) {
        h.sync();
        throw;
      }
      h.sync();
    });
    try {
      g.sync();
      ADD_FAILURE() << "sync did not throw";
    } catch (const locus::mpi::error& e) {
      int cls = 0;
      MPI_Error_class(e.code(), &cls);
      EXPECT_EQ(cls, MPI_ERR_TRUNCATE) << e.what();
      EXPECT_NE(std::string(e.what()).find("locus::mpi::recv: the MPI_Irecv request failed: "), std::string::npos)
          << e.what();
    }
    EXPECT_GE(locus::mpi::get_counters().tasks_suspended, before.tasks_suspended + 1);
  }
  int one = 0;
  try {
    locus::mpi::recv(&one, 1, MPI_INT, 1, tag_trunc_thread);
    ADD_FAILURE() << "recv did not throw";
  } catch (const locus::mpi::error& e) {
    int cls = 0;
    MPI_Error_class(e.code(), &cls);
    EXPECT_EQ(cls, MPI_ERR_TRUNCATE) << e.what();
  }
}

// A request that is done at the first test costs no suspension, and
// MPI_REQUEST_NULL is done at once.
TEST(Mpi, CompletedRequestDoesNotSuspend) {
  locus::runtime rt(workers(1));
  const locus::mpi::counters before = locus::mpi::get_counters();
  locus::task_group g;
  g.spawn([] {
    MPI_Request r = MPI_REQUEST_NULL;
    locus::mpi::wait(r);
    std::vector<MPI_Request> none(3, MPI_REQUEST_NULL);
    locus::mpi::wait_all(none);
  });
  g.sync();
  const locus::mpi::counters after = locus::mpi::get_counters();
  EXPECT_EQ(after.tasks_suspended, before.tasks_suspended);
  EXPECT_EQ(after.requests_waited, before.requests_waited + 4);
}

// Under the simulated engine a task's wait is refused, clearly (its one
// thread of virtual workers would poll for ever and starve the pool).
TEST(Mpi, SimulatedEngineRefused) {
  locus::runtime_options o = workers(1);
  o.engine = "sim";
  EXPECT_NE(locus_mpi_test::wait_error_in_task(o).find(
                "locus::mpi::wait: a task cannot wait on MPI under the simulated engine"),
            std::string::npos);
}

}  // namespace

int main(int argc, char** argv) {
  locus::mpi::init(argc, argv);
  const int failed = locus_mpi_test::run_all(argc, argv);
  locus::mpi::finalize();
  return failed;
}
