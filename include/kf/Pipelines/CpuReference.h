//===- CpuReference.h - The reference function run on the CPU --*- C++ -*-===//
//
// An independent check of the trusted reference: the problem's reference
// function bufferized, lowered to loops and JIT-compiled for the host with
// MLIR's ExecutionEngine. Slow and simple on purpose; used on small shapes
// to cross-check the GPU reference (the default schedule), and to run the
// degenerate-problem check where there is no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef KF_PIPELINES_CPUREFERENCE_H
#define KF_PIPELINES_CPUREFERENCE_H

#include "kf/Dialect/KF/KFOps.h"
#include "kf/Runtime/ProblemSpec.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace kf {

/// The reference of a problem compiled for the host once, run as often as
/// needed. Tensors are raw little-endian bytes, one string per argument,
/// row-major.
class CpuReference {
public:
  static llvm::Expected<CpuReference> compile(ProblemOp problem);
  CpuReference(CpuReference &&);
  ~CpuReference();

  llvm::Expected<std::vector<std::string>>
  run(const std::vector<std::string> &inputs) const;
  const ProblemSpec &getSpec() const { return spec; }

private:
  CpuReference() = default;
  ProblemSpec spec;
  std::string functionName;
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// Runs the reference of `problem` once on `inputs`.
llvm::Expected<std::vector<std::string>>
runReferenceOnCPU(ProblemOp problem, const std::vector<std::string> &inputs);

/// The degenerate-problem check (docs/evaluation.md) run on the host: for
/// trials 0 .. trials-1, inputs drawn from the declared distributions with
/// the GPU evaluator's seeds (kf::drawOnHost, seed + trial), the reference
/// run on the CPU, and each of kf::trivialKernels compared with it.
struct HostProblemCheck {
  /// The first trivial kernel that passed every trial, if any.
  std::optional<TrivialKernel> degenerate;
  /// The first trial's inputs and reference outputs, for independent
  /// checks of the reference's semantics.
  std::vector<std::string> inputs, outputs;
};
llvm::Expected<HostProblemCheck>
checkProblemOnCPU(ProblemOp problem, unsigned trials, uint64_t seed);

} // namespace kf

#endif // KF_PIPELINES_CPUREFERENCE_H
