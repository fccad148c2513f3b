//===- CandidateEvaluator.h - How the search gets its candidates judged ---===//
//
// The search hands batches of candidates to one evaluator and gets an outcome
// for each. Two kinds: LocalEvaluator compiles in worker processes on this
// host and measures on its GPUs (or predicts with the cost model when no GPU
// answers); RankEvaluator (--mpi, rank 0) sends them to the job's evaluating
// ranks, each of which serves them with its own LocalEvaluator
// (serveCandidates).
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_CANDIDATEEVALUATOR_H
#define KF_SEARCH_CANDIDATEEVALUATOR_H

#include "kf/Runtime/Worker.h"
#include "kf/Search/CompilePool.h"
#include "kf/Search/SearchConfig.h"

#include "llvm/Support/JSON.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kf {

class MpiCluster;

/// What ranked a run's candidates ("gpu (<model>)", "cost-model
/// (predictions)"): set as evaluations come back, on their threads, and
/// read by the search's thread. Empty until the first evaluation (a resumed
/// run starts from what its records say).
class EvaluatorName {
public:
  void set(std::string name) {
    std::lock_guard<std::mutex> lock(mutex);
    value = std::move(name);
  }
  std::string get() const {
    std::lock_guard<std::mutex> lock(mutex);
    return value;
  }

private:
  mutable std::mutex mutex;
  std::string value;
};

class CandidateEvaluator {
public:
  virtual ~CandidateEvaluator();
  /// Compiles, checks and measures (or predicts) `candidates`; one outcome
  /// each, in their order. Called from several threads at once when rounds
  /// overlap.
  virtual std::vector<Outcome>
  evaluate(llvm::ArrayRef<CandidateSource> candidates) = 0;
  /// Candidates that can be in evaluation at once (GPUs, evaluating
  /// ranks): a round's default size is this many per island. 0: unknown.
  virtual unsigned width() const = 0;
  /// Adds what the evaluator did over the run's `wallSeconds` since
  /// `started` to throughput.json's object and to its one-line summary.
  virtual void describeThroughput(llvm::json::Object &throughput,
                                  std::string &line,
                                  std::chrono::steady_clock::time_point started,
                                  double wallSeconds) const = 0;
};

/// Compiles candidates in worker processes (kf-evolve compile-worker),
/// several at once, and measures each on the next free GPU as soon as it is
/// compiled. Without a GPU (--evaluator cost-model, or no device under
/// --evaluator auto) the cost model's prediction is the outcome.
class LocalEvaluator : public CandidateEvaluator {
public:
  /// Compiles the reference and starts the GPU workers when `useGpu`.
  /// `hostIndex` is this evaluating rank's index among its host's (--mpi):
  /// it takes that GPU of the host when no --gpus is given. Reports a
  /// failure itself.
  static std::unique_ptr<LocalEvaluator>
  create(const SearchConfig &config, const LoadedProblem &problem,
         EvaluatorName &name, bool useGpu,
         std::optional<unsigned> hostIndex = std::nullopt);
  ~LocalEvaluator() override;

  std::vector<Outcome>
  evaluate(llvm::ArrayRef<CandidateSource> candidates) override;
  unsigned width() const override;
  void describeThroughput(llvm::json::Object &throughput, std::string &line,
                          std::chrono::steady_clock::time_point started,
                          double wallSeconds) const override;

  /// What this evaluator measures with, as an evaluating rank tells rank 0:
  /// "gpu (<model>)", or the cost model's chip.
  const std::string &measuredOn() const { return measuredOnName; }
  /// The GPUs' busy seconds so far, while they measure (not after a
  /// fallback to the cost model).
  std::optional<std::pair<std::vector<int>, double>> gpuUse() const;

private:
  LocalEvaluator(const SearchConfig &config, const LoadedProblem &problem,
                 EvaluatorName &name);
  Outcome outcomeOf(const EvalResult &result, const CompileReply &reply);

  const SearchConfig &config;
  const ProblemSpec &spec;
  EvaluatorName &name;
  /// Cleared when no GPU answers under --evaluator auto: the rest of the
  /// run is ranked by the cost model.
  std::atomic<bool> useGpu{false};
  std::string measuredOnName;
  std::shared_ptr<const LaunchPlan> referencePlan;
  EvalConfig evalConfig;
  std::unique_ptr<WorkerPool> gpus;
  std::unique_ptr<CompilePool> pool;
  unsigned compileJobs = 1;
  /// Measurements finish on the GPU workers' threads, several at once.
  std::mutex measured;
};

#ifdef KF_ENABLE_MPI
/// Rank 0 of an MPI job: each candidate goes to an evaluating rank with room
/// (--mpi-depth); a rank silent for --mpi-silence is dead and its candidates
/// go to others. Deaths and ranks excluded for another GPU model are said
/// once each.
class RankEvaluator : public CandidateEvaluator {
public:
  RankEvaluator(MpiCluster &cluster, EvaluatorName &name);
  ~RankEvaluator() override;

  std::vector<Outcome>
  evaluate(llvm::ArrayRef<CandidateSource> candidates) override;
  unsigned width() const override;
  void describeThroughput(llvm::json::Object &throughput, std::string &line,
                          std::chrono::steady_clock::time_point started,
                          double wallSeconds) const override;

private:
  /// Where an evaluating rank runs, how many candidates it answered, and
  /// what its GPUs measured, as its replies last said.
  struct RankUse {
    std::string host;
    int64_t evaluations = 0;
    llvm::json::Array gpus;
    std::optional<double> busySeconds;
  };
  MpiCluster &cluster;
  EvaluatorName &name;
  /// What the replies say of the ranks, shared by the dispatching threads.
  mutable std::mutex ranksMutex;
  unsigned deathsSaid = 0;
  bool exclusionsSaid = false;
  std::map<int64_t, RankUse> rankUses;
};

/// An evaluating rank: serves rank 0's candidates with `evaluator` until
/// rank 0 releases it for the next problem (success) or is taken for dead
/// (failure, said).
mlir::LogicalResult serveCandidates(MpiCluster &cluster,
                                    LocalEvaluator &evaluator,
                                    const EvaluatorName &name,
                                    double mpiSilence);

/// An evaluating rank that could not set the problem up: answers every
/// request of this problem with that, so the job goes on in step.
void serveSetupFailure(MpiCluster &cluster);

/// Rank 0, after each problem: releases the evaluating ranks and says how
/// many died holding no candidate.
void releaseEvaluatingRanks(MpiCluster &cluster);
#endif

} // namespace kf

#endif // KF_SEARCH_CANDIDATEEVALUATOR_H
