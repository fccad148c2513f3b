//===- SearchConfig.cpp - What a kf-evolve search is asked to do ----------===//

#include "kf/Search/SearchConfig.h"

#include "kf/Runtime/Worker.h"
#ifdef KF_ENABLE_LLM
#include "kf/Search/LLMClient.h"
#endif

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace kf {

/// Why a number given for `--name` is not usable, or "" when it is: NaN
/// and infinities are never usable, `positive` excludes 0 and `atLeast`
/// gives the smallest value.
static std::string checkNumber(StringRef name, double value, double atLeast,
                               bool positive, StringRef meaning) {
  if (!std::isfinite(value) || value < atLeast || (positive && !(value > 0))) {
    char text[32];
    snprintf(text, sizeof(text), "%g", value);
    return formatv("--{0} {1}: {2}", name, text, meaning).str();
  }
  return "";
}

Error checkSearchConfig(const SearchConfig &config) {
  if (config.islands == 0)
    return createStringError("--islands 0: the search needs 1 island or more");
  if (config.budgetEvals == 0)
    return createStringError(
        "--budget-evals 0: the search needs 1 evaluation or more");
  if (config.eval.maxTimedRuns == 0)
    return createStringError("--runs 0: give 1 timed run or more");
  if (config.eval.minTimedRuns > config.eval.maxTimedRuns)
    return createStringError(formatv("--min-runs {0} is more than --runs {1}",
                                     config.eval.minTimedRuns,
                                     config.eval.maxTimedRuns)
                                 .str());
  struct Number {
    StringRef name;
    std::optional<double> value;
    double atLeast;
    bool positive;
    StringRef meaning;
  };
  const LLMSettings &llm = config.llm;
  for (const Number &number :
       {Number{"budget-time", config.budgetTime, 0, false,
               "give a finite number of seconds, or 0 for no limit"},
        Number{"compile-timeout", config.compileTimeout, 0, true,
               "give a finite number of seconds greater than 0"},
        Number{"timeout", config.timeoutSeconds, 0, true,
               "give a finite number of seconds greater than 0"},
        Number{"time-budget-ms", config.eval.timeBudgetMs, 0, true,
               "give a finite number of milliseconds greater than 0"},
        Number{"target-speedup", config.targetSpeedup, 0, false,
               "give a finite speedup, or 0 to use the whole budget"},
        Number{"llm-temperature", llm.temperature, 0, false,
               "give a finite temperature of 0 or more"},
        Number{"llm-timeout", llm.timeoutSeconds, 0, true,
               "give a finite number of seconds greater than 0"},
        Number{"llm-budget-usd", llm.budgetUsd, 0, false,
               "give a finite amount of US dollars, or 0 for no limit"}})
    if (number.value)
      if (std::string why =
              checkNumber(number.name, *number.value, number.atLeast,
                          number.positive, number.meaning);
          !why.empty())
        return createStringError(why);
  if (llm.budgetTokens && *llm.budgetTokens < 0)
    return createStringError(
        formatv("--llm-budget-tokens {0}: give a number of tokens, or 0 for "
                "no limit",
                *llm.budgetTokens)
            .str());
#ifdef KF_ENABLE_LLM
  if (llm.baseUrl)
    if (Error error = checkBaseUrl(*llm.baseUrl))
      return createStringError("--llm-base-url: " + toString(std::move(error)));
#endif
  if (config.mpiDepth == 0)
    return createStringError("--mpi-depth 0 would send no rank any "
                             "candidate: give 1 or more");
  if (config.mpiGroups == 0)
    return createStringError("--mpi-groups 0: give 1 group or more");
  // A full evaluating rank says it is alive every 0.5 s (MpiCluster.cpp).
  if (!(config.mpiSilence >= 1)) // NaN too
    return createStringError(
        formatv("--mpi-silence {0}: evaluating ranks say they are alive "
                "every 0.5 s, so a shorter silence would take live ranks for "
                "dead; give 1 second or more",
                config.mpiSilence)
            .str());
  // --gpus is checked here, where no GPU is needed, so that a typo fails
  // on every machine rather than only where GPUs measure.
  if (!config.gpuSelection.empty()) {
    if (auto parsed = parseGpuSelection(config.gpuSelection); !parsed)
      return parsed.takeError();
    if (config.evaluator == EvaluatorKind::CostModel)
      return createStringError(
          "--gpus " + config.gpuSelection +
          " chooses GPUs to measure on, and --evaluator cost-model measures "
          "on none: drop one of them");
  }
  unsigned roundsInFlight = config.roundsInFlight.value_or(2);
  if (roundsInFlight < 2)
    return createStringError(
        "--rounds-in-flight " + std::to_string(roundsInFlight) +
        ": overlapping rounds hold 2 or more at once; for one round at a "
        "time give --overlap-rounds=false");
  if (config.roundsInFlight && !config.overlapRounds)
    return createStringError("--rounds-in-flight goes with overlapping "
                             "rounds; drop it or --overlap-rounds=false");
  if (config.mpiGroups > 1) {
    if (!config.useMpi)
      return createStringError(
          "--mpi-groups splits the ranks of an MPI job: give --mpi too");
    if (config.mpiGroups > config.moreProblemPaths.size() + 1)
      return createStringError(
          formatv("--mpi-groups {0} with {1} problem(s): a group would have "
                  "nothing to search; give at most {1} groups",
                  config.mpiGroups, config.moreProblemPaths.size() + 1)
              .str());
  }
  return Error::success();
}

} // namespace kf
