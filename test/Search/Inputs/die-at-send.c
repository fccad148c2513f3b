// Preloaded into an evaluating rank by the MPI tests: the rank dies (exit
// status 9) as it makes its KF_TEST_DIE_AFTER'th send (default 1) with the
// tag KF_TEST_DIE_AT_TAG (kf's tags: 2, a reply; 5, "stopped", the answer
// to rank 0's stop, made holding no candidate). Everything else is MPI's
// own.
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static int sends;

int MPI_Send(const void *buffer, int count, MPI_Datatype type, int dest,
             int tag, MPI_Comm comm) {
  const char *dieTag = getenv("KF_TEST_DIE_AT_TAG");
  const char *after = getenv("KF_TEST_DIE_AFTER");
  if (dieTag && tag == atoi(dieTag) && ++sends >= (after ? atoi(after) : 1))
    _exit(9);
  return PMPI_Send(buffer, count, type, dest, tag, comm);
}
