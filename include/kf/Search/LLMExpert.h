//===- LLMExpert.h - Prompts for LLM experts and parsing their answers ---*-=//
//
// An LLM expert is asked, in a role prompt for its focus (memory, compute,
// parallelism, fusion and structure, or repair), for one new candidate: a
// transform script for the problem's reference or a rewritten kernel in
// MLIR. The prompt carries the problem, the parent candidate and how it
// did (time, diagnosis triggers, the error for a repair), what the
// experience library knows for that diagnosis, nearby attempts, and the
// rules (what counts as cheating, the exact output format). The answer is
// searched for its first fenced code block that looks like MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_LLMEXPERT_H
#define KF_SEARCH_LLMEXPERT_H

#include "kf/Search/ExperienceLibrary.h"
#include "kf/Search/Search.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace kf {

/// Everything one prompt is built from.
struct LLMPromptInput {
  ExpertFocus focus = ExpertFocus::Memory;
  bool repair = false;
  /// The problem file (kf.problem and its reference function).
  std::string problem;
  /// The parent candidate, when there is one.
  std::optional<CandidateKind> parentKind;
  std::string parentText;
  CandidateStatus parentStatus = CandidateStatus::InternalError;
  /// With a compile error: the stage that failed.
  std::string parentStage;
  double parentSeconds = 0;
  std::vector<std::string> parentTriggers;
  /// For a repair: the error the parent failed with.
  std::string parentError;
  /// The default schedule's time, for scale (0: unknown).
  double defaultSeconds = 0;
  /// Lines from the experience library, e.g. "after latency-bound,
  /// split-reduction helped in 67% of tries".
  std::vector<std::string> experiences;
  /// Nearby attempts, one line each ("#12 llm:memory: vectorized loads ->
  /// correct 3.1 ms").
  std::vector<std::string> nearby;
};

/// The expert's name for the records: "llm:memory", ..., "llm:repair".
std::string llmExpertName(ExpertFocus focus, bool repair);

/// The system prompt (role and rules) and the user prompt (the task).
std::pair<std::string, std::string> buildLLMPrompts(const LLMPromptInput &in);

/// A usable answer: the code and a one-line summary of the change.
struct ParsedLLMAnswer {
  CandidateKind kind = CandidateKind::Schedule;
  std::string text;
  std::string summary;
};

/// Finds the first fenced block (``` with or without a language tag; an
/// unclosed fence runs to the end) that holds an MLIR module; a transform
/// script when it defines @__transform_main, else a kernel. Fails with a
/// reason when the answer has no code, or no block that looks like MLIR.
llvm::Expected<ParsedLLMAnswer> parseLLMAnswer(llvm::StringRef answer);

/// Proposals that never became candidates, with their reasons, collected
/// from concurrent requests (thread-safe).
class LLMFailureLog {
public:
  /// `onFailure` (optional) sees each failure as it is added, under the
  /// log's lock (e.g. to print a warning line).
  explicit LLMFailureLog(
      std::function<void(const std::string &)> onFailure = {})
      : onFailure(std::move(onFailure)) {}

  void add(std::string failure) {
    std::lock_guard<std::mutex> lock(mutex);
    if (onFailure)
      onFailure(failure);
    failures.push_back(std::move(failure));
  }
  std::vector<std::string> all() const {
    std::lock_guard<std::mutex> lock(mutex);
    return failures;
  }

private:
  std::function<void(const std::string &)> onFailure;
  mutable std::mutex mutex;
  std::vector<std::string> failures;
};

/// Sends a system and a user prompt to an LLM and returns its answer's text
/// (LLMClient::complete, or a stand-in in tests).
using LLMAskFn = std::function<llvm::Expected<std::string>(
    llvm::StringRef system, llvm::StringRef user)>;

/// The search's script experts backed by an LLM: for each request, a prompt
/// from the problem text, the parent candidate and its outcome, the
/// library's weights for its diagnosis and the island's last five attempts;
/// `concurrency` requests at once; answers parsed with parseLLMAnswer.
/// Failures (transport errors, answers without code) go to `failures`.
/// `problemText`, `weights` and `failures` must outlive the function.
ScriptExpertFn makeLLMScriptExperts(LLMAskFn ask, unsigned concurrency,
                                    const std::string &problemText,
                                    const ActionWeights &weights,
                                    LLMFailureLog &failures);

} // namespace kf

#endif // KF_SEARCH_LLMEXPERT_H
