//===- Report.h - The report of a search: Markdown and an SVG plot -*- C++ -*-//
//
// What a kf-evolve run hands back besides the best kernel: report.md (the
// result, the winner's lineage, its diagnosis next to the default
// schedule's, the experts' record) and progress.svg (best time so far per
// island over evaluations), both plain text a reviewer can diff.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_REPORT_H
#define KF_SEARCH_REPORT_H

#include "kf/Search/Search.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace kf {

/// A candidate's diagnosis, as the report shows it.
struct DiagnosisSummary {
  std::string bottleneck;
  /// The findings of its kernels: objects with "kind" and "message".
  llvm::json::Array findings;
  unsigned kernels = 0;
};

struct ReportInput {
  std::string problem, evaluator;
  /// What candidate 0 is: kf's default schedule, or, for a CUDA kernel
  /// with no problem file, the kernel as written.
  std::string baseline = "default schedule";
  uint64_t seed = 0;
  unsigned islands = 0;
  const SearchResult *result = nullptr;
  DiagnosisSummary defaultDiagnosis, bestDiagnosis;
  /// Where the seeds came from (e.g. "library: relu (similarity 0.83)").
  std::vector<std::string> seedNotes;
  /// LLM experts, when they took part: the endpoint in words, what was
  /// spent (LLMUsage JSON), and every failed proposal with its reason.
  std::string llmDescription;
  llvm::json::Value llmUsage = nullptr;
  std::vector<std::string> llmFailures;
  /// The problem's compulsory bytes (ProblemAnalysis::minBytes), beside
  /// which the candidates' global memory is shown; 0 when unknown.
  double compulsoryBytes = 0;
};

/// Best time so far of every island over evaluations, as an SVG line plot
/// (log-scaled time axis; incorrect candidates do not count).
std::string renderProgressSVG(const SearchResult &result, unsigned islands);

/// The Markdown report; it shows progress.svg from the same directory.
std::string renderReport(const ReportInput &input);

} // namespace kf

#endif // KF_SEARCH_REPORT_H
