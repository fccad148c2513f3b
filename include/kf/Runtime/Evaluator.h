//===- Evaluator.h - Correctness and timing on the GPU ----------*- C++ -*-===//
//
// Evaluates a candidate against the trusted reference on one GPU: inputs
// drawn on the GPU from each input's distribution with fresh seeds per
// trial, outputs poisoned before every run, every output element compared
// under the problem's tolerance, inputs checked unchanged, timing with CUDA
// events, an L2 flush between runs and rotated input sets, and a final check
// of the last timed output. A candidate that faults leaves the CUDA context
// unusable: the evaluator reports it, and the worker process that owns the
// evaluator must then exit (see Worker.h).
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_EVALUATOR_H
#define KF_RUNTIME_EVALUATOR_H

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/LaunchPlan.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Support/CandidateStatus.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>

namespace kf {

struct EvalConfig {
  int device = 0;
  /// Correctness trials, each on freshly drawn inputs (seed + trial).
  unsigned trials = 4;
  uint64_t seed = 1;
  /// Input sets the timed runs rotate over (set 0 is the last trial's).
  unsigned inputSets = 2;
  unsigned warmupRuns = 2;
  unsigned minTimedRuns = 5;
  unsigned maxTimedRuns = 50;
  /// Timed runs stop once this much GPU time was spent (after minTimedRuns).
  double timeBudgetMs = 1000;
  bool flushL2 = true;
  /// Also time the reference (the default schedule: the speedup baseline).
  bool timeReference = true;
  /// Draw trial 1's inputs from the negated distributions (uniform(a, b)
  /// becomes uniform(-b, -a), normal(m, s) normal(-m, s)), so a kernel that
  /// is right only for the declared range (ReLU as a copy on non-negative
  /// inputs) fails.
  bool negatedTrial = true;
  /// Give trial 2's float inputs heavy tails: one element in 64 (chosen by
  /// hash) multiplied by 8, so a kernel that is right only for small
  /// magnitudes (a range-limited approximation) fails.
  bool heavyTailedTrial = true;
  /// Check the problem itself: if a trivial kernel (zeros, a constant, a copy
  /// of an input) passes its tolerance on every trial with the declared
  /// distributions, the problem is degenerate and no candidate is judged.
  bool checkProblem = true;
  /// Time a candidate even when it gave wrong results (it stays
  /// `incorrect`): for measuring what limits a kernel that is not yet right.
  bool timeIncorrect = false;
};

llvm::json::Value toJSON(const EvalConfig &config);
bool fromJSON(const llvm::json::Value &value, EvalConfig &config,
              llvm::json::Path path);

struct TimingStats {
  unsigned runs = 0;
  double medianMs = 0, minMs = 0, maxMs = 0, p10Ms = 0, p90Ms = 0;
};

/// Summarizes per-run times (milliseconds).
TimingStats summarizeTimes(llvm::ArrayRef<double> times);

/// Comparison of one output against the reference over one trial.
struct OutputErrors {
  unsigned output = 0;
  int64_t elements = 0;
  int64_t mismatches = 0;
  /// -1 when every element matched.
  int64_t firstMismatch = -1;
  /// Largest finite |out - ref|, and |out - ref| / |ref| over elements whose
  /// reference is not zero.
  double maxAbsError = 0, maxRelError = 0;
};

/// Resources of one kernel as the driver reports them.
struct KernelResources {
  std::string name;
  int registers = 0, staticSharedBytes = 0, localBytes = 0,
      maxThreadsPerBlock = 0;
  int64_t threadsPerBlock = 0, dynamicSharedBytes = 0;
};

struct EvalResult {
  /// One of the evaluator's statuses (kf::isEvaluatorStatus).
  CandidateStatus status = CandidateStatus::InternalError;
  std::string message;
  /// The degenerate-problem check: "passed", "degenerate", or "" when the
  /// candidate failed before every trial ran (or the check was off).
  std::string problemCheck;
  /// Worst trial per output (most mismatches, then largest error).
  llvm::SmallVector<OutputErrors> errors;
  std::optional<TimingStats> candidateTime, referenceTime;
  llvm::SmallVector<KernelResources> kernels;
  std::string deviceName;
  int driverVersion = 0;
  /// Set when the CUDA context can no longer be trusted (a fault): the
  /// process must not evaluate anything else.
  bool contextLost = false;
};

llvm::json::Value toJSON(const EvalResult &result);
bool fromJSON(const llvm::json::Value &value, EvalResult &result,
              llvm::json::Path path);

/// Compares `out` with `ref` (raw bytes of `tensor`'s type) on the host,
/// with the same rule as the GPU comparison: |out - ref| <= atol + rtol *
/// |ref|, NaN matching only NaN.
OutputErrors compareOnHost(const TensorSpec &tensor, llvm::StringRef out,
                           llvm::StringRef ref, double atol, double rtol);

/// Inputs drawn on the GPU and the outputs a plan computed from them, as raw
/// bytes (for cross-checks on small shapes).
struct PlanIO {
  std::vector<std::string> inputs, outputs;
};

/// Owns a CUDA context on one device and kf's runtime kernels.
class GpuEvaluator {
public:
  /// Fails when no driver or device is available, or the runtime kernels do
  /// not load.
  static llvm::Expected<std::unique_ptr<GpuEvaluator>>
  create(int device, const PlanModule &runtimeKernels);
  ~GpuEvaluator();

  /// Evaluates `candidate` against `reference` (both plans for the problem
  /// `spec`). Never throws away a fault: it becomes the result's status.
  EvalResult evaluate(const ProblemSpec &spec, const LaunchPlan &reference,
                      const LaunchPlan &candidate, const EvalConfig &config);

  /// Draws inputs with `seed` (as evaluate() does for that seed), runs
  /// `plan` once and downloads inputs and outputs. Refuses problems whose
  /// inputs and outputs exceed `maxBytes`. On failure returns std::nullopt
  /// with the status in `failure` (contextLost set after a fault).
  std::optional<PlanIO> runForIO(const ProblemSpec &spec,
                                 const LaunchPlan &plan, uint64_t seed,
                                 int64_t maxBytes, EvalResult &failure);

  const DeviceInfo &device() const;

  class Impl;

private:
  explicit GpuEvaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace kf

#endif // KF_RUNTIME_EVALUATOR_H
