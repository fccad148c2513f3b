//===- SearchConfig.h - What a kf-evolve search is asked to do ------------===//
//
// The search's settings as values (kf-evolve's options fill them; a program
// embedding kf fills them itself), checked once by checkSearchConfig before
// anything runs. Like CIRCT's FirtoolOptions: the tool parses, the library
// works.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_SEARCHCONFIG_H
#define KF_SEARCH_SEARCHCONFIG_H

#include "kf/Runtime/Evaluator.h"
#include "kf/Search/ProblemInput.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kf {

/// How candidates are evaluated.
enum class EvaluatorKind {
  /// The GPU when a CUDA device answers, else the cost model.
  Auto,
  /// The GPU only.
  Gpu,
  /// The static cost model (predictions).
  CostModel
};

/// The LLM experts' settings given on the command line; each one given
/// overrides the config file's (docs/llm.md).
struct LLMSettings {
  std::string configPath;
  std::optional<std::string> provider, baseUrl, model;
  std::optional<double> temperature, timeoutSeconds, budgetUsd;
  std::optional<unsigned> maxTokens, concurrency;
  std::optional<int64_t> budgetTokens;
  /// Cached answers (empty: llm-cache in the output directory).
  std::string cacheDir;
  bool replay = false;
  /// Times a candidate that fails to compile goes back with its error.
  unsigned repairRounds = 1;
};

struct SearchConfig {
  /// The (first) problem and its CUDA candidates. A problem path ending in
  /// .cu is a CUDA kernel to evolve, solving `cudaProblemPath`.
  ProblemInputOptions input;
  /// More problems, searched one after another, each into
  /// outputDir/<name>/.
  std::vector<std::string> moreProblemPaths;
  /// With a .cu file in place of the problem: the problem it solves.
  std::string cudaProblemPath;
  std::string outputDir = "kf-out";
  /// Continue the records in outputDir; start over in a directory holding
  /// another run's records; continue run `resumeRunId` from the library.
  bool resume = false, replace = false;
  std::string resumeRunId;

  /// How each candidate is checked and timed (trials, timed runs, device).
  EvalConfig eval;
  /// Seconds before an evaluation counts as hung.
  double timeoutSeconds = 120;
  EvaluatorKind evaluator = EvaluatorKind::Auto;
  /// GPUs to measure on at once ("all", "0,2"); empty: eval.device.
  std::string gpuSelection;
  /// Candidates compiled at once (0: the hardware threads), and the seconds
  /// one may take.
  unsigned compileJobs = 0;
  double compileTimeout = 30;

  /// The search.
  unsigned budgetEvals = 40;
  unsigned islands = 4;
  /// Seconds (0: no limit); stop at this speedup over the default (0: use
  /// the whole budget).
  double budgetTime = 0, targetSpeedup = 0;
  /// Proposals per round (default: one per island per GPU or rank).
  std::optional<unsigned> roundSize;
  bool overlapRounds = true;
  std::optional<unsigned> roundsInFlight;
  /// Expert kinds (rules, llm, cuda); empty: rules, or cuda for a kernel.
  std::vector<std::string> experts;
  LLMSettings llm;

  /// The experience library (empty: its default place), or none.
  std::string libraryPath;
  bool noLibrary = false;

  /// --mpi: rank 0 drives, the other ranks evaluate.
  bool useMpi = false;
  double mpiSilence = 30;
  unsigned mpiDepth = 2, mpiGroups = 1;

  /// The kf-evolve executable: compile and measurement workers are it.
  std::string executable;
};

/// What is wrong with `config` before anything runs: numbers that mean
/// nothing (NaN, infinite or negative times, zero islands), options that do
/// not go together. The message names the option as kf-evolve spells it.
llvm::Error checkSearchConfig(const SearchConfig &config);

/// Searches every problem of `config` (each into outputDir/<name>/ when
/// there are several), on the job's ranks with --mpi; writes the best
/// kernel, result.json, the report and throughput.json. Returns the exit
/// status (the worst of the job's with MPI).
int runSearches(mlir::MLIRContext &context, SearchConfig config);

} // namespace kf

#endif // KF_SEARCH_SEARCHCONFIG_H
