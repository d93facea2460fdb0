// locus::mpi::init when the program initialized MPI itself with a thread
// level below MPI_THREAD_MULTIPLE: one line naming the level provided and
// the one needed (ctest: mpirun -np 2 test_mpi_thread_level).
#include <string>

#include "mpi_main.hpp"

namespace {

std::string g_init_error;  // what init threw, if anything
int g_provided = -1;

TEST(MpiThreadLevel, InitNamesTheLevels) {
  ASSERT_EQ(g_provided, MPI_THREAD_FUNNELED) << "this MPI gave another level than the one asked for";
  ASSERT_FALSE(g_init_error.empty()) << "locus::mpi::init accepted MPI_THREAD_FUNNELED";
  EXPECT_NE(g_init_error.find("provided MPI_THREAD_FUNNELED"), std::string::npos) << g_init_error;
  EXPECT_NE(g_init_error.find("locus::mpi needs MPI_THREAD_MULTIPLE"), std::string::npos) << g_init_error;
  EXPECT_EQ(g_init_error.find('\n'), std::string::npos) << "not one line: " << g_init_error;
}

TEST(MpiThreadLevel, CallsAfterRefusedInitThrow) {
  MPI_Request r = MPI_REQUEST_NULL;
  try {
    locus::mpi::wait(r);
    ADD_FAILURE() << "wait did not throw";
  } catch (const locus::mpi::error& e) {
    EXPECT_NE(std::string(e.what()).find("locus::mpi::init was not called"), std::string::npos) << e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &g_provided);
  try {
    locus::mpi::init(argc, argv);
  } catch (const locus::mpi::error& e) {
    g_init_error = e.what();
  }
  const int failed = locus_mpi_test::run_all(argc, argv);
  MPI_Finalize();
  return failed;
}
