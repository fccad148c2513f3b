// Preloaded into rank 0 by mpi-stall.test: after KF_TEST_IPROBE_CALLS calls,
// MPI_Iprobe never returns, as Open MPI's TCP transport was seen to spin
// after a send to a rank that had just died. Everything else is MPI's own.
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static int calls;

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
               MPI_Status *status) {
  const char *limit = getenv("KF_TEST_IPROBE_CALLS");
  if (limit && ++calls > atoi(limit))
    for (;;)
      pause();
  return PMPI_Iprobe(source, tag, comm, flag, status);
}
