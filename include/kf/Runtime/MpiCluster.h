//===- MpiCluster.h - Evaluating ranks of an MPI job ------------*- C++ -*-===//
//
// `mpirun -n N kf-evolve --mpi ...` (or srun): rank 0 drives the search and
// the other ranks evaluate (compile, check and measure) the candidates it
// sends them, up to `depth` at once each, so that a rank compiles its next
// candidates while its GPU measures one. The job's ranks may be split into
// groups (--mpi-groups), each with its own rank 0 searching its own
// problems; rank() and size() are a process's within its group.
//
// MPI starts the ranks and, while every rank is alive, tells each where
// its rank 0 listens; from then on every message travels on a TCP
// connection between the two (WorkChannel.h), never through MPI: Open MPI
// 4.1 defines nothing after a send to a dead process, and its transport was
// seen to spin forever in a healthy rank's next call. A rank that dies
// closes its connection (a defined event: its candidates go to other ranks
// at once); one that goes silent without closing (a host lost) is dead
// after `silence`. Evaluating ranks send heartbeats. On rank 0 several
// threads may dispatch at once (rounds that overlap), one at a time under a
// lock.
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
#include <utility>
#include <vector>

namespace kf {

class MpiCluster {
public:
  /// How rank 0 shares work out: a rank silent (no reply, no heartbeat)
  /// for `silence` while it holds work or work waits is dead; each rank holds
  /// at most `depth` requests at once. The job's ranks form `groups` groups of
  /// consecutive ranks, their sizes differing by at most one.
  struct Limits {
    std::chrono::milliseconds silence{30000};
    unsigned depth = 1;
    unsigned groups = 1;
  };

  /// Initializes MPI (once per process) and connects every evaluating rank
  /// to its rank 0 (and every group's rank 0 to the job's first rank);
  /// errors are returned with the reason, e.g. when the process was not
  /// started by mpirun or srun with more than one rank, when an MPI
  /// initialized before gives too little thread support, or when a rank
  /// cannot reach its rank 0 over TCP.
  static llvm::Expected<std::unique_ptr<MpiCluster>> create(Limits limits);
  /// finish(0), unless finish was called.
  ~MpiCluster();

  /// Ends this process's part of the job; `status` is what it would exit
  /// with. Rank 0 first releases the evaluating ranks (see releaseServers)
  /// unless nothing was dispatched since the last release. With several
  /// groups, each group's rank 0 reports to the job's first rank (on the
  /// work channel), which waits for all. Then MPI is finalized and the status
  /// to exit with returned (on the job's first rank, the worst of every
  /// group's), or, when a rank died anywhere, the job ends with MPI_Abort and
  /// that status: Open MPI can wait forever in MPI_Finalize for a dead rank.
  int finish(int status);

  /// Rank 0: tells every evaluating rank to stop serving (serve returns
  /// true) once it hears from it, and waits for each to answer; a rank silent
  /// for the silence limit is dead. Every rank gets exactly one stop per
  /// release, so the ranks can go on to serve the next problem of the job in
  /// step with rank 0: call it once per problem, with no dispatch in progress.
  /// Does nothing on other ranks.
  void releaseServers();
  MpiCluster(const MpiCluster &) = delete;
  MpiCluster &operator=(const MpiCluster &) = delete;

  int rank() const { return myRank; }
  int size() const { return numRanks; }
  /// This process's group, and how many the job has.
  int group() const { return myGroup; }
  int groups() const { return groupFirstRanks.size(); }
  /// This rank's place among the evaluating ranks of its host (rank 0
  /// does not count): the host's GPU it takes. Found when the cluster is
  /// created (a collective call of every rank).
  int hostEvaluatorIndex() const { return myHostEvaluatorIndex; }
  /// The name of this process's host, as MPI says it
  /// (MPI_Get_processor_name).
  std::string hostName() const;

  /// Rank 0: sends each request to an evaluating rank with room (fewer than
  /// `depth` in flight) and returns the replies in request order. Several
  /// threads may dispatch at once: their requests are sent in the order
  /// they were given, each call's in its order. The requests of a rank
  /// found dead go to other ranks before any others. Requests left when
  /// every evaluating rank is dead get std::nullopt.
  std::vector<std::optional<std::string>>
  dispatch(llvm::ArrayRef<std::string> requests);

  /// Evaluating ranks: first says what this rank evaluates with
  /// (`evaluator`, e.g. its GPU model; empty when it could not set its
  /// problem up), then answers each request with `handle`, each on a thread
  /// of its own (as many at once as rank 0 sends), while this thread sends
  /// heartbeats, until rank 0 says stop (true, once every request has been
  /// answered), or until rank 0 is gone: its connection closed, or it sent
  /// nothing for `idleLimit` while this rank had nothing to do (false, once
  /// the requests in progress are done; abandonReason() says which; the
  /// cluster's destructor ends the job with MPI_Abort).
  bool serve(const std::function<std::string(llvm::StringRef)> &handle,
             std::chrono::milliseconds idleLimit, llvm::StringRef evaluator);

  /// When this rank's calls on the work channel (dispatch, releaseServers,
  /// serve) have not returned for `limit`, calls `onStall` on a thread of
  /// its own, then ends the job (MPI_Abort; the process exits 1 anyway 10 s
  /// later). The channel's calls never wait on a peer, so this is a last
  /// resort (a bug, or a system call that hangs), turned into an error that
  /// says so instead of a job that hangs. `onStall` says what was kept and
  /// how to go on. Does nothing when already watching.
  void watchForStalls(std::chrono::milliseconds limit,
                      std::function<void()> onStall);

  /// Evaluating ranks: why serve() gave up on rank 0.
  std::string abandonReason() const { return abandonedBecause; }

  /// Evaluating ranks still alive, and those found dead.
  unsigned liveServers() const;
  unsigned deadServers() const;
  /// Rank 0: the evaluator every candidate of the job goes to, once every
  /// live rank has said its own: the one most ranks have (the lowest
  /// rank's among equals; one that could set its problem up before one
  /// that could not), so that results are never compared across GPU models.
  /// No work is sent before it is settled.
  std::optional<std::string> jobEvaluator() const;
  /// Rank 0: the live ranks that get no work because their evaluator is
  /// another, with what they said.
  std::vector<std::pair<int, std::string>> excludedServers() const;

private:
  MpiCluster(int rank, int size, Limits limits);
  /// Connects the work channel (create; every rank calls it).
  llvm::Error connectChannel();

  int myRank = 0, numRanks = 1, myHostEvaluatorIndex = 0;
  int worldRank = 0, myGroup = 0;
  /// Each group's first rank in MPI_COMM_WORLD.
  std::vector<int> groupFirstRanks = {0};
  /// Rank 0's requests, ranks and connections; an evaluating rank's
  /// connection (MpiCluster.cpp).
  struct Dispatcher;
  std::unique_ptr<Dispatcher> dispatcher;
  bool stopped = false, finished = false;
  /// This evaluating rank gave up waiting for rank 0.
  bool abandoned = false;
  std::string abandonedBecause;
};

} // namespace kf

#endif // KF_RUNTIME_MPICLUSTER_H
