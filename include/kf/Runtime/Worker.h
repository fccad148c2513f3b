//===- Worker.h - GPU evaluation in an isolated process ---------*- C++ -*-===//
//
// A candidate that faults (illegal address, trap) poisons the CUDA context,
// and one that hangs never returns. Both must not take the search down, so
// GPU work runs in a worker process (`kf-evolve worker`) that the parent
// talks to over pipes, one JSON object per line; the parent restarts it
// after a fault and kills it after a timeout.
//
// Request:  {"op": "evaluate", "spec": ProblemSpec, "config": EvalConfig,
//            "reference": LaunchPlan, "candidate": LaunchPlan}
//           The plans are JSON with their kernel images (kf::toJSON with
//           PlanImages::Include), so the worker parses no MLIR. The worker
//           keeps the reference: the client sends it with the first request
//           to each worker process, and again when it changes or the
//           worker could not read it (a load-error reply).
// Reply:    EvalResult as JSON.
// Request:  {"op": "run-io", "spec", "config" (seed, device), "plan":
//            LaunchPlan, "max_bytes"}
// Reply:    {"status": "correct", "inputs": [base64], "outputs": [base64]}
//           or an EvalResult with the failure.
// After a reply with "context_lost": true the worker exits.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_WORKER_H
#define KF_RUNTIME_WORKER_H

#include "kf/Runtime/Evaluator.h"
#include "kf/Support/Subprocess.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/ThreadPool.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kf {

/// The worker's main loop: reads requests from stdin, writes replies to
/// stdout. `compileRuntimeKernels` is called once, before the first
/// evaluation. Returns the process exit code.
int runWorker(
    llvm::function_ref<llvm::Expected<PlanModule>()> compileRuntimeKernels);

/// The parent's side: starts the worker on first use and after it died.
class WorkerClient {
public:
  /// `command` starts a worker (e.g. {"/path/kf-evolve", "worker"}).
  explicit WorkerClient(std::vector<std::string> command)
      : command(std::move(command)) {}

  /// Evaluates a candidate; faults, crashes and timeouts of the worker
  /// become the result's status, never an exception or a hang here.
  EvalResult evaluate(const ProblemSpec &spec, const LaunchPlan &reference,
                      const LaunchPlan &candidate, const EvalConfig &config,
                      std::chrono::milliseconds timeout);

  /// Draws inputs on the GPU, runs `plan` once and returns inputs and
  /// outputs (see GpuEvaluator::runForIO).
  llvm::Expected<PlanIO> runForIO(const ProblemSpec &spec,
                                  const LaunchPlan &plan,
                                  const EvalConfig &config, int64_t maxBytes,
                                  std::chrono::milliseconds timeout);

  /// Times the worker was (re)started.
  unsigned starts() const { return numStarts; }

private:
  /// Sends one request line and reads the reply, restarting the worker when
  /// needed; failures become an EvalResult. `reference` is added to the
  /// request when the worker process does not hold it yet.
  llvm::Expected<llvm::json::Value>
  exchange(llvm::json::Object request, std::chrono::milliseconds timeout,
           EvalResult &failure, const LaunchPlan *reference = nullptr);

  /// Forgets the worker after a reply it exits on.
  void retireIfExiting(const EvalResult &result);

  std::vector<std::string> command;
  std::unique_ptr<Subprocess> process;
  unsigned numStarts = 0;
  /// Hash of the reference plan the running worker holds (its JSON text).
  std::optional<uint64_t> referenceHeld;
};

/// The GPUs of this host as the driver lists them.
struct GpuInfo {
  int ordinal = 0;
  std::string name;
};
/// Fails when there is no driver or no device (the message says which).
llvm::Expected<std::vector<GpuInfo>> listGpus();

/// What `--gpus` says, checked without a GPU: "all" (std::nullopt), or
/// distinct ordinals separated by commas ("0,2"), in their order.
llvm::Expected<std::optional<std::vector<int>>>
parseGpuSelection(llvm::StringRef selection);

/// The GPUs `--gpus` selects among `available`: "all", or ordinals separated
/// by commas ("0,2"). Unknown or repeated ordinals are errors; so are GPUs of
/// different models (a run measures on one model, so that its speedups
/// compare like with like).
llvm::Expected<std::vector<GpuInfo>>
selectGpus(llvm::StringRef selection, llvm::ArrayRef<GpuInfo> available);

/// Measurement workers, one per GPU, each its own process with its own
/// context and fault isolation: candidates are measured on all of them at
/// once. Each measurement runs on a pool thread; `done` is called there.
class WorkerPool {
public:
  /// `command` starts a worker; `devices` are the CUDA ordinals, one worker
  /// each.
  WorkerPool(std::vector<std::string> command, std::vector<int> devices);
  ~WorkerPool();

  /// Measures `candidate` on the next free GPU (config.device is set to
  /// it); `done(result, seconds)` gets the result and the seconds the GPU
  /// was busy with it. The future is ready once `done` has returned, so a
  /// caller can wait for its own candidates while others measure theirs.
  std::shared_future<void>
  evaluate(ProblemSpec spec, std::shared_ptr<const LaunchPlan> reference,
           LaunchPlan candidate, EvalConfig config,
           std::chrono::milliseconds timeout,
           std::function<void(EvalResult, double)> done);
  /// Waits until every measurement submitted so far, by any caller, has
  /// finished.
  void wait();

  unsigned size() const { return workers.size(); }
  /// Seconds each GPU spent measuring, in device order.
  std::vector<double> busySeconds() const;
  /// When the first measurement started and the last one ended (nothing
  /// before the first): what lies outside is the run's start and end, when
  /// no GPU can be busy.
  std::optional<std::pair<std::chrono::steady_clock::time_point,
                          std::chrono::steady_clock::time_point>>
  measuringSpan() const;
  const std::vector<int> &getDevices() const { return devices; }
  /// Worker processes started so far, all GPUs together.
  unsigned starts() const;

private:
  std::vector<int> devices;
  std::vector<std::unique_ptr<WorkerClient>> workers;
  std::vector<double> busy;
  std::optional<std::chrono::steady_clock::time_point> firstStart, lastEnd;
  std::vector<bool> taken;
  mutable std::mutex mutex;
  std::condition_variable freed;
  std::unique_ptr<llvm::StdThreadPool> threads;
};

} // namespace kf

#endif // KF_RUNTIME_WORKER_H
