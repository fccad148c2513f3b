//===- MpiCluster.h - Evaluating ranks of an MPI job ------------*- C++ -*-===//
//
// `mpirun -n N kf-evolve --mpi ...` (or srun): rank 0 drives the search and
// the other ranks evaluate (compile, check and measure) the candidates it
// sends them, one at a time each. A rank that evaluates sends heartbeats;
// one silent for too long is dead: its candidate goes to another rank and
// it gets no more work, so a dead rank costs only its in-flight candidate.
// Messages are strings (JSON) on MPI_COMM_WORLD; every MPI call is made on
// the thread that created the cluster (MPI_THREAD_FUNNELED).
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_MPICLUSTER_H
#define KF_RUNTIME_MPICLUSTER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kf {

class MpiCluster {
public:
  /// Initializes MPI (once per process); errors are returned with the
  /// reason, e.g. when the process was not started by mpirun or srun with
  /// more than one rank.
  static llvm::Expected<std::unique_ptr<MpiCluster>> create();
  /// Rank 0: releases the evaluating ranks (see releaseServers) unless
  /// nothing was dispatched since the last release. Then finalizes MPI, or,
  /// when a rank died, ends the job with MPI_Abort and exit status 0: Open MPI
  /// can wait forever in MPI_Finalize for a dead rank.
  ~MpiCluster();

  /// Rank 0: tells every evaluating rank to stop serving (serve returns
  /// true) and waits for each to answer; a rank silent for the last
  /// dispatch's silence limit is dead. Every rank gets exactly one stop per
  /// release, so the ranks can go on to serve the next problem of the job
  /// in step with rank 0: call it once per problem. Does nothing on other
  /// ranks.
  void releaseServers();
  MpiCluster(const MpiCluster &) = delete;
  MpiCluster &operator=(const MpiCluster &) = delete;

  int rank() const { return myRank; }
  int size() const { return numRanks; }
  /// The process's rank among those of its host (for choosing a GPU).
  int localRank() const;

  /// Rank 0: sends each request to a free evaluating rank and returns the
  /// replies in request order. A rank that stays silent (no reply, no
  /// heartbeat) for `silence` is dead: its request is sent again to
  /// another rank. Requests left when every evaluating rank is dead get
  /// std::nullopt.
  std::vector<std::optional<std::string>>
  dispatch(llvm::ArrayRef<std::string> requests,
           std::chrono::milliseconds silence);

  /// Evaluating ranks: answers each request with `handle` (run on a
  /// thread of its own while this thread sends heartbeats) until rank 0
  /// says stop (true), or until rank 0 has sent nothing for `idleLimit`
  /// while this rank was idle (false: rank 0 is taken for dead, and the
  /// cluster's destructor ends the job with MPI_Abort).
  bool serve(const std::function<std::string(llvm::StringRef)> &handle,
             std::chrono::milliseconds idleLimit);

  /// Evaluating ranks still alive, and those found dead.
  unsigned liveServers() const;
  unsigned deadServers() const { return numDead; }

private:
  MpiCluster(int rank, int size);

  int myRank = 0, numRanks = 1;
  /// Rank 0's view of each rank (index: rank): found dead.
  std::vector<bool> dead;
  unsigned numDead = 0;
  std::chrono::milliseconds silence{30000};
  bool stopped = false;
  /// This evaluating rank gave up waiting for rank 0.
  bool abandoned = false;
};

} // namespace kf

#endif // KF_RUNTIME_MPICLUSTER_H
