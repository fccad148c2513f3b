//===- SearchOutputs.cpp - What a search leaves in its output directory ---===//

#include "kf/Search/SearchOutputs.h"

#include "kf/Analysis/ProblemAnalysis.h"
#include "kf/Schedule/Schedule.h"
#include "kf/Search/OutputDirectory.h"
#include "kf/Search/Report.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace kf {

/// A candidate's diagnosis as the report shows it.
static DiagnosisSummary summarizeDiagnosis(const CompiledCandidate &compiled) {
  DiagnosisSummary summary;
  summary.bottleneck = compiled.predictedBottleneck;
  summary.kernels = compiled.diagnosis.size();
  for (const json::Value &kernel : compiled.diagnosis)
    if (const json::Object *object = kernel.getAsObject())
      if (const json::Array *findings = object->getArray("findings"))
        for (const json::Value &finding : *findings)
          summary.findings.push_back(finding);
  return summary;
}

static std::string describeBest(const SearchCandidate &candidate) {
  if (candidate.hasGenome)
    return describeGenome(candidate.genome);
  return candidate.expert + " " + stringifyCandidateKind(candidate.kind).str() +
         ": " + candidate.change;
}

/// result.json: the run's best and every candidate, nothing that varies
/// between reruns of one seed.
static std::string resultJSON(const SearchConfig &config,
                              const SearchOutputs &outputs, StringRef bestFile,
                              int64_t compulsoryBytes) {
  const SearchResult &result = *outputs.result;
  const SearchCandidate &best = result.candidates[*result.bestIndex];
  const SearchCandidate &first = result.candidates[result.defaultIndex];
  json::Array candidates;
  for (const SearchCandidate &candidate : result.candidates)
    candidates.push_back(toJSON(candidate));
  json::Value bestSchedule = nullptr;
  if (best.hasGenome)
    bestSchedule = toJSON(best.genome);
  json::Object summary{
      {"problem", outputs.problem->spec.name},
      {"reference",
       outputs.problem->selfReferenced() ? "cuda-as-written" : "problem"},
      {"evaluator", outputs.evaluatorName},
      {"seed", (int64_t)config.input.seed},
      {"evaluations", (int64_t)result.candidates.size()},
      {"stop_reason", result.stopReason},
      {"duplicates_skipped", result.duplicatesSkipped},
      {"stagnation_migrations", result.stagnationMigrations},
      {"best", json::Object{{"id", best.id},
                            {"expert", best.expert},
                            {"kind", stringifyCandidateKind(best.kind)},
                            {"genome", describeBest(best)},
                            {"schedule", bestSchedule},
                            {"seconds", best.outcome.seconds},
                            {"kernels", (int64_t)best.outcome.kernels},
                            {"global_bytes", best.outcome.globalBytes},
                            {"schedule_file", bestFile}}},
      {"compulsory_bytes", compulsoryBytes},
      {"default_status", first.outcome.statusText()},
      {"default_seconds", first.outcome.seconds},
      {"speedup_over_default",
       first.outcome.isCorrect() ? first.outcome.seconds / best.outcome.seconds
                                 : 0.0},
      {"candidates", std::move(candidates)}};
  if (outputs.cudaExperts) {
    // The CUDA kernel as the user wrote it is the baseline that matters.
    json::Object cuda{{"source", config.input.cudaPaths.front()},
                      {"launch_plan", config.input.launchPlanPath}};
    for (const SearchCandidate &candidate : result.candidates)
      if (StringRef(candidate.change).starts_with("as written")) {
        cuda["as_written_id"] = candidate.id;
        cuda["as_written_status"] = candidate.outcome.statusText();
        if (candidate.outcome.isCorrect()) {
          cuda["as_written_seconds"] = candidate.outcome.seconds;
          cuda["speedup_over_as_written"] =
              candidate.outcome.seconds / best.outcome.seconds;
        }
        break;
      }
    summary["cuda"] = std::move(cuda);
  }
  return formatv("{0:2}\n", json::Value(std::move(summary))).str();
}

int writeSearchOutputs(const SearchConfig &config,
                       const SearchOutputs &outputs) {
  const SearchResult &result = *outputs.result;
  const LoadedProblem &problem = *outputs.problem;
  auto write = [&](StringRef name, StringRef text) {
    SmallString<256> path(config.outputDir);
    sys::path::append(path, name);
    if (Error error = writeFileReplacing(path, text)) {
      reportError(toString(std::move(error)));
      return false;
    }
    return true;
  };
  bool selfReferenced = problem.selfReferenced();
  std::string baseline =
      selfReferenced ? "CUDA kernel as written" : "default schedule";
  if (result.candidates.empty())
    return reportError("the " + baseline +
                       " does not render: " + outputs.renderError);
  const Outcome &baselineOutcome =
      result.candidates[result.defaultIndex].outcome;
  // The kernel as written is judged against its own earlier output: if it
  // fails, the kernel depends on what its outputs held or is not
  // deterministic within the tolerance, and no tuning can be judged.
  std::string selfCheck =
      selfReferenced && !baselineOutcome.isCorrect()
          ? "; the kernel as written must give its own results again on "
            "fresh runs: kf poisons the outputs before every run, so it must "
            "write every output element, and its results may vary only "
            "within the plan's tolerance (docs/cuda-input.md)"
          : "";
  if (!result.bestIndex)
    return reportError("no candidate evaluated as correct (the " + baseline +
                       ": " + baselineOutcome.statusText() + ")" + selfCheck);
  if (!selfCheck.empty())
    WithColor::warning(errs(), "kf-evolve")
        << "the " << baseline << " was " << baselineOutcome.statusText()
        << selfCheck << "\n";

  const SearchCandidate &best = result.candidates[*result.bestIndex];
  const SearchCandidate &first = result.candidates[result.defaultIndex];
  std::string bestFile = best.kind == CandidateKind::Schedule
                             ? "best.schedule.mlir"
                             : "best.kernel.mlir";
  CompileStage bestStage;
  FailureOr<CompiledCandidate> bestCompiled =
      compileText(config.input, problem, best.kind, best.script,
                  "best-candidate.mlir", bestStage);
  if (failed(bestCompiled))
    return reportError("the best candidate no longer compiles");

  // The report: the default schedule's diagnosis next to the winner's.
  ReportInput report;
  report.problem = problem.spec.name;
  report.baseline = baseline;
  report.evaluator = outputs.evaluatorName;
  report.seed = config.input.seed;
  report.islands = config.islands;
  report.result = &result;
  report.bestDiagnosis = summarizeDiagnosis(*bestCompiled);
  {
    // The default's own diagnostics were the search's to report.
    ScopedDiagnosticHandler swallow(problem.module.get()->getContext(),
                                    [](Diagnostic &) { return success(); });
    CompileStage stage;
    FailureOr<CompiledCandidate> defaultCompiled =
        compileText(config.input, problem, first.kind, first.script,
                    "default-candidate.mlir", stage);
    if (succeeded(defaultCompiled))
      report.defaultDiagnosis = summarizeDiagnosis(*defaultCompiled);
  }
  report.seedNotes = outputs.seedNotes;
  report.llmDescription = outputs.llmDescription;
  report.llmUsage = outputs.llmUsage;
  report.llmFailures = outputs.llmFailures;
  int64_t compulsoryBytes = analyzeProblem(problem.reference).minBytes;
  report.compulsoryBytes = (double)compulsoryBytes;
  if (!write(bestFile, best.script) ||
      !write("best.ptx", collectKernelImages(*bestCompiled->lowered)) ||
      !write("result.json",
             resultJSON(config, outputs, bestFile, compulsoryBytes)) ||
      !write("progress.svg", renderProgressSVG(result, config.islands)) ||
      !write("report.md", renderReport(report)))
    return 1;
  if (outputs.llmExperts) {
    // What the LLM experts cost and why proposals failed; not in
    // result.json, so that a replayed run's result stays identical.
    std::string text =
        formatv("{0:2}\n", json::Value(json::Object{
                               {"endpoint", outputs.llmDescription},
                               {"usage", outputs.llmUsage},
                               {"failures", json::Array(outputs.llmFailures)}}))
            .str();
    if (!write("llm.json", text))
      return 1;
  }
  // Throughput: evaluations per second and how busy each GPU (or rank)
  // was. A file of its own, so that result.json stays identical across
  // reruns.
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              outputs.started)
                    .count();
  json::Object throughput{
      {"wall_seconds", wall},
      {"evaluations", (int64_t)result.candidates.size()},
      {"evaluations_per_second", result.candidates.size() / wall}};
  std::string line =
      formatv("{0:F2} evaluations/s", result.candidates.size() / wall).str();
  if (outputs.evaluator)
    outputs.evaluator->describeThroughput(throughput, line, outputs.started,
                                          wall);
  if (!write("throughput.json",
             formatv("{0:2}\n", json::Value(std::move(throughput))).str()))
    return 1;
  errs() << "kf-evolve: throughput: " << line << "\n";
  // One write: with --mpi-groups, other processes of the job write to the
  // same stdout.
  outs() << formatv("best: candidate {0} ({1}), {2:F3} ms{3}; {4} "
                    "evaluations; written to {5}\n",
                    best.id, describeBest(best), best.outcome.seconds * 1e3,
                    StringRef(outputs.evaluatorName).starts_with("cost-model")
                        ? " predicted"
                        : "",
                    result.candidates.size(), config.outputDir)
                .str();
  outs().flush();
  return 0;
}

std::string describeProgress(const SearchCandidate &candidate,
                             const SearchResult &result,
                             const SearchConfig &config, bool selfReferenced,
                             double elapsedSeconds, const json::Value &llmUsage,
                             bool live) {
  const SearchCandidate &first = result.candidates[result.defaultIndex];
  std::string best = "none yet";
  if (result.bestIndex) {
    const Outcome &b = result.candidates[*result.bestIndex].outcome;
    best = formatv("{0:F3} ms", b.seconds * 1e3).str();
    if (first.outcome.isCorrect() && b.seconds > 0)
      best +=
          formatv(", {0:F2}x over the {1}", first.outcome.seconds / b.seconds,
                  selfReferenced ? "kernel as written" : "default")
              .str();
  }
  std::string rate =
      formatv("[{0}/{1}] {2:F1} evals/s", result.candidates.size(),
              config.budgetEvals,
              result.candidates.size() / std::max(elapsedSeconds, 1e-3))
          .str();
  // What the LLM experts have cost so far.
  if (const json::Object *u = llmUsage.getAsObject())
    rate += formatv("  llm {0} req, {1} tok, ${2:F3}",
                    u->getInteger("requests").value_or(0) +
                        u->getInteger("cached_answers").value_or(0),
                    u->getInteger("input_tokens").value_or(0) +
                        u->getInteger("output_tokens").value_or(0),
                    u->getNumber("dollars").value_or(0))
                .str();
  if (live) {
    // Each island's best, on one redrawn line.
    std::vector<double> islandBest(std::max(1u, config.islands), 0);
    for (const SearchCandidate &c : result.candidates)
      if (c.outcome.isCorrect()) {
        double &b = islandBest[c.island % islandBest.size()];
        b = b == 0 ? c.outcome.seconds : std::min(b, c.outcome.seconds);
      }
    std::string islands;
    for (auto [index, b] : llvm::enumerate(islandBest))
      islands += b > 0 ? formatv(" {0}:{1:F3}", index, b * 1e3).str()
                       : formatv(" {0}:-", index).str();
    return "\r\033[K" + rate + "  best " + best + "  islands (ms)" + islands;
  }
  return formatv("{0}  island {1} {2}: {3} -> {4}", rate, candidate.island,
                 candidate.expert,
                 !candidate.change.empty()       ? candidate.change
                 : candidate.expert == "default" ? "default schedule"
                                                 : "as seeded",
                 candidate.outcome.statusText())
             .str() +
         (candidate.outcome.isCorrect()
              ? formatv(" {0:F3} ms", candidate.outcome.seconds * 1e3).str()
              : "") +
         "  (best " + best + ")\n";
}

} // namespace kf
