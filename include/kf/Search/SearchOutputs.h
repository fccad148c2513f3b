//===- SearchOutputs.h - What a search leaves in its output directory -----===//
//
// After the loop: the best candidate recompiled (best.*.mlir, best.ptx),
// result.json (identical across reruns and resumes of one seed), the
// report and its plot, llm.json with LLM experts, and throughput.json (what
// varies from run to run: wall time, GPU use).
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_SEARCHOUTPUTS_H
#define KF_SEARCH_SEARCHOUTPUTS_H

#include "kf/Search/CandidateEvaluator.h"
#include "kf/Search/ProblemInput.h"
#include "kf/Search/Search.h"
#include "kf/Search/SearchConfig.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <string>
#include <vector>

namespace kf {

/// What the search loop ended with, and what the outputs say about how.
struct SearchOutputs {
  const LoadedProblem *problem = nullptr;
  const SearchResult *result = nullptr;
  /// What ranked the candidates.
  std::string evaluatorName;
  /// Why the baseline did not render, when the search has no candidate.
  std::string renderError;
  bool cudaExperts = false, llmExperts = false;
  /// Where the seeds came from.
  std::vector<std::string> seedNotes;
  std::string llmDescription;
  llvm::json::Value llmUsage = nullptr;
  std::vector<std::string> llmFailures;
  const CandidateEvaluator *evaluator = nullptr;
  std::chrono::steady_clock::time_point started;
};

/// Writes the outputs of a finished search into config.outputDir and says
/// the best on stdout. Returns the exit status: 1, said, when no candidate
/// evaluated as correct or a file cannot be written.
int writeSearchOutputs(const SearchConfig &config,
                       const SearchOutputs &outputs);

/// The line the search prints after each evaluation (one per candidate in a
/// log; one redrawn line with each island's best on a terminal).
std::string describeProgress(const SearchCandidate &candidate,
                             const SearchResult &result,
                             const SearchConfig &config, bool selfReferenced,
                             double elapsedSeconds,
                             const llvm::json::Value &llmUsage, bool live);

} // namespace kf

#endif // KF_SEARCH_SEARCHOUTPUTS_H
