// locus::mpi used before init and after finalize: a locus::mpi::error that
// says so, from a thread and from a task (through its parent's sync), never
// a crash inside MPI (ctest: mpirun -np 2 test_mpi_misuse).
#include <string>

#include "locus/locus.hpp"
#include "mpi_main.hpp"

namespace {

std::string g_before_init;  // what a wait before init threw

bool says(const std::string& what, const char* part) { return what.find(part) != std::string::npos; }

TEST(MpiMisuse, WaitBeforeInit) {
  EXPECT_TRUE(says(g_before_init, "locus::mpi::wait: MPI is not initialized; call locus::mpi::init")) << g_before_init;
}

TEST(MpiMisuse, CallsAfterFinalizeFromThread) {
  MPI_Request r = MPI_REQUEST_NULL;
  const char* expected = "MPI is finalized (MPI_Finalize was called)";
  try {
    locus::mpi::wait(r);
    ADD_FAILURE();
  } catch (const locus::mpi::error& e) {
    EXPECT_TRUE(says(e.what(), "locus::mpi::wait: ")) << e.what();
    EXPECT_TRUE(says(e.what(), expected)) << e.what();
  }
  int x = 0;
  EXPECT_THROW(locus::mpi::send(&x, 1, MPI_INT, 0, 0), locus::mpi::error);
  EXPECT_THROW(locus::mpi::recv(&x, 1, MPI_INT, 0, 0), locus::mpi::error);
  EXPECT_THROW(locus::mpi::allreduce(x, MPI_SUM), locus::mpi::error);
  EXPECT_THROW(locus::mpi::rank(), locus::mpi::error);
  std::vector<MPI_Request> rs(2, MPI_REQUEST_NULL);
  EXPECT_THROW(locus::mpi::wait_all(rs), locus::mpi::error);
}

TEST(MpiMisuse, WaitAfterFinalizeFromTask) {
  locus::runtime_options o;
  o.workers = 1;
  const std::string error = locus_mpi_test::wait_error_in_task(o);
  EXPECT_TRUE(says(error, "locus::mpi::wait: MPI is finalized")) << error;
}

TEST(MpiMisuse, InitAfterFinalize) {
  int argc = 0;
  char** argv = nullptr;
  try {
    locus::mpi::init(argc, argv);
    ADD_FAILURE();
  } catch (const locus::mpi::error& e) {
    EXPECT_TRUE(says(e.what(), "MPI was finalized already")) << e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Request r = MPI_REQUEST_NULL;
  try {
    locus::mpi::wait(r);
  } catch (const locus::mpi::error& e) {
    g_before_init = e.what();
  }
  locus::mpi::init(argc, argv);
  locus::mpi::finalize();
  locus::mpi::finalize();  // a second time: nothing
  return locus_mpi_test::run_all(argc, argv);
}
