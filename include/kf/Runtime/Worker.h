//===- Worker.h - GPU evaluation in an isolated process ---------*- C++ -*-===//
//
// A candidate that faults (illegal address, trap) poisons the CUDA context,
// and one that hangs never returns. Both must not take the search down, so
// GPU work runs in a worker process (`kf-evolve worker`) that the parent
// talks to over pipes, one JSON object per line; the parent restarts it
// after a fault and kills it after a timeout.
//
// Request:  {"op": "evaluate", "spec": ProblemSpec, "config": EvalConfig,
//            "reference": "<lowered module>", "candidate": "<lowered module>"}
// Reply:    EvalResult as JSON.
// Request:  {"op": "run-io", "spec", "config" (seed, device), "plan":
//            "<lowered module>", "max_bytes"}
// Reply:    {"status": "correct", "inputs": [base64], "outputs": [base64]}
//           or an EvalResult with the failure.
// After a reply with "context_lost": true the worker exits.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_WORKER_H
#define KF_RUNTIME_WORKER_H

#include "kf/Runtime/Evaluator.h"
#include "kf/Support/Subprocess.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kf {

/// The worker's main loop: reads requests from stdin, writes replies to
/// stdout. `compileRuntimeKernels` is called once, before the first
/// evaluation. Returns the process exit code.
int runWorker(
    mlir::MLIRContext &context,
    llvm::function_ref<llvm::Expected<PlanModule>()> compileRuntimeKernels);

/// The parent's side: starts the worker on first use and after it died.
class WorkerClient {
public:
  /// `command` starts a worker (e.g. {"/path/kf-evolve", "worker"}).
  explicit WorkerClient(std::vector<std::string> command)
      : command(std::move(command)) {}

  /// Evaluates a candidate; faults, crashes and timeouts of the worker
  /// become the result's status, never an exception or a hang here.
  EvalResult evaluate(const ProblemSpec &spec, llvm::StringRef reference,
                      llvm::StringRef candidate, const EvalConfig &config,
                      std::chrono::milliseconds timeout);

  /// Draws inputs on the GPU, runs `plan` (a lowered module) once and
  /// returns inputs and outputs (see GpuEvaluator::runForIO).
  llvm::Expected<PlanIO> runForIO(const ProblemSpec &spec, llvm::StringRef plan,
                                  const EvalConfig &config, int64_t maxBytes,
                                  std::chrono::milliseconds timeout);

  /// Times the worker was (re)started.
  unsigned starts() const { return numStarts; }

private:
  /// Sends one request line and reads the reply, restarting the worker when
  /// needed; failures become an EvalResult.
  llvm::Expected<llvm::json::Value> exchange(llvm::json::Object request,
                                             std::chrono::milliseconds timeout,
                                             EvalResult &failure);

  /// Forgets the worker after a reply it exits on.
  void retireIfExiting(const EvalResult &result);

  std::vector<std::string> command;
  std::unique_ptr<Subprocess> process;
  unsigned numStarts = 0;
};

} // namespace kf

#endif // KF_RUNTIME_WORKER_H
