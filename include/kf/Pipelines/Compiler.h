//===- Compiler.h - Problem + schedule -> lowered module --------*- C++ -*-===//
//
// The compile half of evaluating a candidate: extract the problem's
// reference, apply the candidate's schedule (or the default one), lower to
// PTX, and read the host side as a launch plan. Runs on any machine.
//
//===----------------------------------------------------------------------===//

#ifndef KF_PIPELINES_COMPILER_H
#define KF_PIPELINES_COMPILER_H

#include "kf/Analysis/CheatDetection.h"
#include "kf/Pipelines/Pipelines.h"
#include "kf/Runtime/LaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace kf {

/// Where a compilation failed, for reports and the search's bookkeeping.
/// Where a candidate failed. Cuda: a CUDA candidate's source did not
/// compile, was refused (untrusted device code), or its launch plan does
/// not bind it to the problem.
enum class CompileStage {
  Schedule,
  Transform,
  Lowering,
  CheatCheck,
  HostCode,
  Cuda
};
llvm::StringRef stringifyCompileStage(CompileStage stage);

struct CompileOptions {
  std::string chip = "sm_90";
  unsigned ptxVersion = 0;
  unsigned optLevel = 3;
  /// "isa" (PTX) or "bin" (cubin through ptxas).
  std::string format = "isa";
  /// Give the reference's f32 reductions f64 accumulators
  /// (kf-widen-accumulators) and map every op naively (no GEMM kernels):
  /// how the trusted reference is built.
  bool widenAccumulators = false;
};

struct CompiledCandidate {
  /// The schedule that was applied (the default one rendered when none was
  /// given).
  std::string schedule;
  mlir::OwningOpRef<mlir::ModuleOp> lowered;
  LaunchPlan plan;
  /// The kernel diagnosis (docs/diagnosis.md), taken on the llvm + nvvm
  /// kernels just before they were serialized.
  llvm::json::Array diagnosis;
  /// The static cost model's prediction of the candidate's time in seconds
  /// (kf::predictCost, default H200 ceilings): a prediction, not a
  /// measurement.
  double predictedSeconds = 0;
  /// The predicted bottleneck class (kf::predictBottleneck).
  std::string predictedBottleneck;
  /// Bytes its kernels' global accesses move, by the cost model's count
  /// (the sectors each warp touches): an estimate, which the report puts
  /// beside the problem's compulsory bytes.
  double globalBytes = 0;
};

/// The candidate's diagnosis in brief: its predicted bottleneck class and
/// the kinds of its kernels' findings, sorted and unique (what the
/// experience library keys its statistics by).
std::vector<std::string> diagnosisTriggers(const CompiledCandidate &candidate);

/// Compiles `problem` (a module with a kf.problem) with `schedule` (a
/// transform script; std::nullopt for the default schedule). The problem
/// module is not modified. Errors are emitted as diagnostics (attach a
/// handler to collect them); on failure `failedStage` says where.
mlir::FailureOr<CompiledCandidate>
compileCandidate(mlir::ModuleOp problem, llvm::StringRef problemName,
                 std::optional<llvm::StringRef> schedule,
                 const CompileOptions &options,
                 CompileStage *failedStage = nullptr,
                 llvm::SmallVectorImpl<CheatFinding> *rejections = nullptr);

/// Compiles a candidate given as kernel IR rather than a schedule (a
/// rewritten kernel): a module with one public host function whose
/// arguments are the problem's inputs then outputs as memrefs of the same
/// shapes and element types, launching kernels with gpu.launch or
/// gpu.launch_func. It goes through kf-lower-to-ptx like a scheduled
/// problem. Errors are emitted as diagnostics.
mlir::FailureOr<CompiledCandidate> compileKernelCandidate(
    mlir::ModuleOp problem, llvm::StringRef problemName, mlir::ModuleOp kernel,
    const CompileOptions &options, CompileStage *failedStage = nullptr,
    llvm::SmallVectorImpl<CheatFinding> *rejections = nullptr);

/// The same against `reference` alone: the problem's reference function,
/// or, for a problem with none (a CUDA kernel whose own output is the
/// reference), an external function with its signature
/// (kf::buildProblemSignature). Only its signature and its analysis (the
/// roofline floor: from its bytes alone when it has no body) are used.
mlir::FailureOr<CompiledCandidate> compileKernelCandidate(
    mlir::func::FuncOp reference, mlir::ModuleOp kernel,
    const CompileOptions &options, CompileStage *failedStage = nullptr,
    llvm::SmallVectorImpl<CheatFinding> *rejections = nullptr);

/// Compiles kf's runtime kernels (see RuntimeKernels.h) for the target.
mlir::FailureOr<PlanModule>
compileRuntimeKernels(mlir::MLIRContext *context,
                      const CompileOptions &options);

/// PTX (or cubin bytes) of every kernel binary in a lowered module,
/// concatenated in module order, for `kf-evolve compile -o`.
std::string collectKernelImages(mlir::ModuleOp lowered);

} // namespace kf

#endif // KF_PIPELINES_COMPILER_H
