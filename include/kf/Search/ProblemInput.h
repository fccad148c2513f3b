//===- ProblemInput.h - A problem and its candidates, read and compiled ---===//
//
// What every kf-evolve command does first: read the problem (a problem file,
// or a launch plan's "problem" section when a CUDA kernel is its own
// reference), then compile candidate text for it. One place, so that
// compile, eval, the compile workers and the search's winner compile
// candidates the same way.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_PROBLEMINPUT_H
#define KF_SEARCH_PROBLEMINPUT_H

#include "kf/Dialect/KF/KFOps.h"
#include "kf/Import/CudaImport.h"
#include "kf/Import/CudaLaunch.h"
#include "kf/Pipelines/Compiler.h"
#include "kf/Runtime/ProblemSpec.h"
#include "kf/Search/CudaExpert.h"
#include "kf/Search/Search.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>
#include <vector>

namespace kf {

/// Where a problem and its CUDA candidates come from, and what candidates
/// are compiled for.
struct ProblemInputOptions {
  /// The problem file; empty: the launch plan's "problem" section describes
  /// the problem and the first CUDA source as written is its reference.
  std::string problemPath;
  /// Which kf.problem of the file (empty: the only one).
  std::string problemName;
  /// The launch plan binding CUDA sources to the problem (--launch).
  std::string launchPlanPath;
  /// CUDA sources given as candidates (--cuda), in command-line order.
  std::vector<std::string> cudaPaths;
  std::string chip = "sm_90";
  /// isa (PTX) or bin (cubin).
  std::string format = "isa";
  /// The CUDA import cache (--cuda-cache); empty: $KF_CUDA_CACHE, if set.
  std::string cudaCacheDir;
  /// Seeds the CUDA experts' choices.
  unsigned seed = 1;
};

/// A problem as read: its module, reference function and tensor spec.
struct LoadedProblem {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Null when the problem comes from the launch plan's "problem" section
  /// (a CUDA kernel with no problem file): the kernel as written is then the
  /// reference, and `reference` an external function with the problem's
  /// signature (kf::buildProblemSignature).
  ProblemOp problem;
  mlir::func::FuncOp reference;
  ProblemSpec spec;

  bool selfReferenced() const { return !problem; }
};

/// Reports a command's error as kf-evolve does ("kf-evolve: error: ...",
/// configured secrets redacted) and returns 1, the exit status.
int reportError(const llvm::Twine &message);

/// Parses and verifies the problem file (diagnostics printed with their
/// locations through `sourceMgr`'s handler), or builds the problem from the
/// launch plan when there is no problem file. Reports what is wrong itself.
std::optional<LoadedProblem> loadProblem(mlir::MLIRContext &context,
                                         llvm::SourceMgr &sourceMgr,
                                         const ProblemInputOptions &options);

/// A command's problem: loaded by loadProblem, with the source manager and
/// diagnostic handler that print the command's later errors at their
/// locations in the problem file for as long as it is in use (they must
/// outlive the problem, so they live and die with it).
struct OpenedProblem {
  OpenedProblem(mlir::MLIRContext &context, const ProblemInputOptions &options)
      : handler(sourceMgr, &context),
        loaded(loadProblem(context, sourceMgr, options)) {}
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler;
  /// Empty when the problem could not be loaded (already reported).
  std::optional<LoadedProblem> loaded;
};

/// The launch plan of --launch; `user` says who needs it.
llvm::Expected<CudaLaunchSpec>
loadLaunchPlan(const ProblemInputOptions &options, llvm::StringRef user);

CompileOptions compileOptions(const ProblemInputOptions &options);

/// How a CUDA candidate's source is imported: untrusted, for the chip,
/// through the import cache (the one `import --cache-all` fills).
CudaImportOptions candidateImportOptions(const ProblemInputOptions &options);

/// What a CUDA candidate is built from: its source, bound to the problem
/// `spec` by `plan`.
CudaExpertSetup cudaSetup(mlir::MLIRContext &context,
                          const ProblemInputOptions &options,
                          const ProblemSpec &spec, llvm::StringRef cudaPath,
                          const CudaLaunchSpec &plan);

/// A CUDA candidate as kernel-candidate text: the device code imported as
/// untrusted with the tuning's parameters as macros, bound to `problem` by
/// the launch plan.
llvm::Expected<std::string>
cudaCandidateText(const ProblemInputOptions &options,
                  const LoadedProblem &problem, llvm::StringRef cudaPath,
                  const CudaTuning &tuning);

/// Compiles a candidate given as text: a schedule for the problem, or a
/// rewritten kernel module (parsed first: a parse error fails at the
/// host-code stage). `bufferName` names the text in diagnostics.
mlir::FailureOr<CompiledCandidate>
compileText(const ProblemInputOptions &options, const LoadedProblem &problem,
            CandidateKind kind, llvm::StringRef text,
            llvm::StringRef bufferName, CompileStage &stage,
            llvm::SmallVectorImpl<CheatFinding> *rejections = nullptr);

/// The trusted reference: the reference function, its reductions
/// accumulating in f64, under the default schedule; or, with no problem
/// file, the first CUDA source as written. Reports a failure itself.
mlir::FailureOr<CompiledCandidate>
compileReference(const ProblemInputOptions &options,
                 const LoadedProblem &problem);

std::string printModule(mlir::ModuleOp module);

/// The command of a measurement worker (the isolated GPU process of eval,
/// the reference checks and the search): `executable` (kf-evolve) worker.
std::vector<std::string> measurementWorkerCommand(llvm::StringRef executable,
                                                  llvm::StringRef chip);

} // namespace kf

#endif // KF_SEARCH_PROBLEMINPUT_H
