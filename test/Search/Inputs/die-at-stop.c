// Preloaded into an evaluating rank by mpi-rank-lost-idle.test: the rank
// dies when it would answer rank 0's stop (kf's tag 5, "stopped"), that is
// holding no candidate. Everything else is MPI's own.
#include <mpi.h>
#include <unistd.h>

int MPI_Send(const void *buffer, int count, MPI_Datatype type, int dest,
             int tag, MPI_Comm comm) {
  if (tag == 5)
    _exit(9);
  return PMPI_Send(buffer, count, type, dest, tag, comm);
}
