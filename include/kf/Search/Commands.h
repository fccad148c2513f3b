//===- Commands.h - kf-evolve's subcommands other than search -------------===//
//
// What compile, eval, worker, check-reference, check-problem, import
// --cache-all and library do, each behind a config struct that kf-evolve fills
// from its flags (the search is SearchConfig.h's). Each returns the exit status
// and reports its errors itself, as the tool does: 0 success, 1 an error, 2 a
// negative verdict (incorrect, disagree, degenerate), 3 no usable GPU.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_COMMANDS_H
#define KF_SEARCH_COMMANDS_H

#include "kf/Import/CudaLaunch.h"
#include "kf/Runtime/Evaluator.h"
#include "kf/Search/ProblemInput.h"

#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace kf {

/// A candidate named on the command line: a transform script (or a genome
/// as JSON), a kernel module, a CUDA source bound by the launch plan, or
/// kf's default schedule.
struct CandidateFile {
  enum class Kind { Default, Schedule, Kernel, Cuda };
  Kind kind = Kind::Default;
  std::string path;
  std::string label() const {
    return kind == Kind::Default ? std::string("default schedule") : path;
  }
};

/// How CUDA candidates are tuned (--param, --launch-bounds,
/// --max-registers), or why the flags do not say (reported when a CUDA
/// candidate is compiled).
struct CudaTuningFlags {
  CudaTuning tuning;
  std::string error;
};

/// Compiles `file` for `problem` (diagnostics through the context's
/// handler); a genome is rendered for the problem first.
mlir::FailureOr<CompiledCandidate>
compileCandidateFile(const ProblemInputOptions &options,
                     const LoadedProblem &problem, const CandidateFile &file,
                     const CudaTuningFlags &cuda, CompileStage &stage,
                     llvm::SmallVectorImpl<CheatFinding> *rejections = nullptr);

/// kf-evolve compile: what is written to `outputPath`.
enum class EmitKind { PTX, Lowered, Schedule, Genome, Plan, Diagnosis };

struct CompileCommandConfig {
  ProblemInputOptions input;
  /// One candidate (the default schedule when none was named).
  std::vector<CandidateFile> candidates;
  CudaTuningFlags cuda;
  EmitKind emit = EmitKind::PTX;
  std::string outputPath = "-";
};
int runCompileCommand(mlir::MLIRContext &context,
                      const CompileCommandConfig &config);

/// kf-evolve eval: each candidate checked and timed against the trusted
/// reference on the GPU; one JSON object per candidate on stdout.
struct EvalCommandConfig {
  ProblemInputOptions input;
  std::vector<CandidateFile> candidates;
  CudaTuningFlags cuda;
  EvalConfig eval;
  double timeoutSeconds = 120;
  /// The roofline ceilings (empty: the H200's defaults).
  std::string ceilingsPath;
  /// The kf-evolve executable: the measurement worker is it.
  std::string executable;
};
int runEvalCommand(mlir::MLIRContext &context, const EvalCommandConfig &config);

/// kf-evolve worker: the isolated GPU measurement process (kf::runWorker),
/// with kf's runtime kernels (fill, compare) compiled for `chip` before its
/// first evaluation.
int runMeasurementWorkerCommand(mlir::MLIRContext &context,
                                llvm::StringRef chip);

/// kf-evolve check-reference (the reference on the GPU against the CPU's)
/// and check-problem (the degenerate-problem check on the CPU; with
/// `dumpDirectory`, the first trial's tensors as .npy files).
struct ProblemCheckConfig {
  ProblemInputOptions input;
  /// The device, seed and trials.
  EvalConfig eval;
  double timeoutSeconds = 120;
  std::string executable;
  std::string dumpDirectory;
};
int runCheckReferenceCommand(mlir::MLIRContext &context,
                             const ProblemCheckConfig &config);
int runCheckProblemCommand(mlir::MLIRContext &context,
                           const ProblemCheckConfig &config);

/// kf-evolve import --cache-all: `cudaSource` imported as a candidate for
/// every combination of the launch plan's parameter choices, into the
/// import cache (for a machine without clang).
int runCacheAllVariantsCommand(mlir::MLIRContext &context,
                               const ProblemInputOptions &input,
                               llvm::StringRef cudaSource);

/// kf-evolve library: the experience library as JSON after an integrity
/// check; or its runs, or one run's records; or filled from an export.
struct LibraryCommandConfig {
  std::string libraryPath;
  bool listRuns = false;
  std::string printRun;
  std::string importPath;
};
int runLibraryCommand(const LibraryCommandConfig &config);

} // namespace kf

#endif // KF_SEARCH_COMMANDS_H
