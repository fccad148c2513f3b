//===- LLMExpert.cpp - Prompts for LLM experts and parsing their answers --===//

#include "kf/Search/LLMExpert.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <thread>

using namespace kf;

std::string kf::llmExpertName(ExpertFocus focus, bool repair) {
  if (repair)
    return "llm:repair";
  return ("llm:" + stringifyExpertFocus(focus)).str();
}

namespace {

const char *roleOf(ExpertFocus focus, bool repair) {
  if (repair)
    return "You repair GPU kernel candidates that failed to compile. You get "
           "the candidate and the compiler's error; answer with a corrected "
           "candidate that keeps its intent.";
  switch (focus) {
  case ExpertFocus::Memory:
    return "You are a GPU memory-access expert: coalescing, 16-byte vector "
           "loads and stores, bytes in flight, staging reused data in "
           "shared memory with padding against bank conflicts.";
  case ExpertFocus::Compute:
    return "You are a GPU compute expert: register accumulation, unrolling "
           "for instruction-level parallelism, reduction strategies "
           "(sequential, split across threads and blocks, warp shuffles), "
           "register pressure.";
  case ExpertFocus::Parallelism:
    return "You are a GPU parallelism and occupancy expert: block and grid "
           "shapes, enough threads in flight to hide latency, splitting work "
           "that has too little parallelism.";
  case ExpertFocus::Structure:
    return "You are a GPU kernel-fusion and restructuring expert: fusing "
           "producers into consumers, recomputing instead of storing, "
           "changing which loops map to blocks and threads.";
  }
  return "";
}

const char *kRules = R"(Rules:
- The candidate must compute exactly what the reference function computes,
  for every input the problem's distributions can produce, within the
  problem's tolerance. It is checked against a trusted reference on fresh
  random inputs, negated inputs and heavy-tailed inputs, and timed.
- Cheating is rejected, statically and at run time: writing to the inputs,
  leaving outputs (or parts of them) unwritten, outputs that do not depend
  on the inputs, caching results between runs (globals), lower precision
  than f32 (f16, bf16, tf32), calling external functions, dynamic
  parallelism, and pointers that are not the problem's buffers.
- Answer with exactly one fenced code block (```mlir ... ```) holding either
  (a) a transform-dialect module with `transform.with_named_sequence` and a
  `transform.named_sequence @__transform_main(%root: !transform.any_op
  {transform.consumed})` that schedules the reference function (tile and map
  to gpu blocks and threads, bufferize with
  transform.bufferization.one_shot_bufferize, and create launches with
  transform.gpu.map_forall_to_blocks generate_gpu_launch and
  transform.gpu.map_nested_forall_to_threads), or
  (b) a module with one public host function taking the inputs then the
  outputs as memrefs (same shapes, f32), launching kernels with gpu.launch.
- Before the code block, one line saying what you changed and why.
)";

std::string formatTime(double seconds) {
  return llvm::formatv("{0:F4} ms", seconds * 1e3).str();
}

} // namespace

std::pair<std::string, std::string>
kf::buildLLMPrompts(const LLMPromptInput &in) {
  std::string system = std::string(roleOf(in.focus, in.repair)) +
                       " You optimize kernels for an NVIDIA H200 (sm_90, "
                       "4.8 TB/s HBM3e, 132 SMs, 228 KiB shared memory "
                       "per SM) expressed in MLIR.\n\n" +
                       kRules;
  std::string user;
  llvm::raw_string_ostream os(user);
  os << "## Problem\n\n```mlir\n" << in.problem;
  if (!llvm::StringRef(in.problem).ends_with("\n"))
    os << "\n";
  os << "```\n\n";
  if (in.parentKind) {
    os << "## " << (in.repair ? "Candidate to repair" : "Parent candidate")
       << " (" << stringifyCandidateKind(*in.parentKind) << ")\n\n```mlir\n"
       << in.parentText;
    if (!llvm::StringRef(in.parentText).ends_with("\n"))
      os << "\n";
    os << "```\n\n";
    os << "Result: " << formatStatus(in.parentStatus, in.parentStage);
    if (in.parentStatus == CandidateStatus::Correct)
      os << ", " << formatTime(in.parentSeconds);
    if (in.defaultSeconds > 0)
      os << " (the default schedule: " << formatTime(in.defaultSeconds) << ")";
    os << "\n";
    if (!in.parentTriggers.empty())
      os << "Diagnosis: " << llvm::join(in.parentTriggers, ", ") << "\n";
    if (in.repair && !in.parentError.empty())
      os << "\nThe error:\n\n```\n" << in.parentError << "\n```\n";
    os << "\n";
  }
  if (!in.experiences.empty()) {
    os << "## What worked before (experience library)\n\n";
    for (const std::string &line : in.experiences)
      os << "- " << line << "\n";
    os << "\n";
  }
  if (!in.nearby.empty()) {
    os << "## Nearby attempts\n\n";
    for (const std::string &line : in.nearby)
      os << "- " << line << "\n";
    os << "\n";
  }
  os << "## Task\n\n"
     << (in.repair ? "Fix the candidate so that it compiles and stays "
                     "correct."
         : in.parentKind
             ? "Propose one candidate that is faster than the parent."
             : "Propose one candidate faster than the default schedule.")
     << " One line of explanation, then one ```mlir block.\n";
  return {system, user};
}

llvm::Expected<ParsedLLMAnswer> kf::parseLLMAnswer(llvm::StringRef answer) {
  auto failure = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  std::string normalized = answer.str();
  llvm::erase(normalized, '\r');
  llvm::StringRef text = normalized;
  bool anyBlock = false;
  std::string prose;
  size_t position = 0;
  while (true) {
    size_t open = text.find("```", position);
    if (open == llvm::StringRef::npos)
      break;
    anyBlock = true;
    if (prose.empty())
      prose = text.slice(position, open).trim().str();
    size_t lineEnd = text.find('\n', open);
    if (lineEnd == llvm::StringRef::npos)
      break;
    llvm::StringRef language = text.slice(open + 3, lineEnd).trim();
    size_t close = text.find("```", lineEnd + 1);
    llvm::StringRef body = text.slice(
        lineEnd + 1, close == llvm::StringRef::npos ? text.size() : close);
    bool mlirLike = body.contains("module") || body.contains("func.func") ||
                    body.contains("transform.");
    if ((language.empty() || language.equals_insensitive("mlir")) && mlirLike) {
      ParsedLLMAnswer parsed;
      parsed.text = body.str();
      parsed.kind = body.contains("@__transform_main") ? CandidateKind::Schedule
                                                       : CandidateKind::Kernel;
      // The summary: the first line of prose before the block.
      llvm::StringRef summary = llvm::StringRef(prose).split('\n').first;
      parsed.summary = summary.take_front(160).str();
      if (parsed.summary.empty())
        parsed.summary = "(no explanation)";
      return parsed;
    }
    if (close == llvm::StringRef::npos)
      break;
    position = close + 3;
  }
  if (!anyBlock)
    return failure("the answer has no code block (" +
                   llvm::Twine(answer.size()) + " characters of prose)");
  return failure("the answer has no ```mlir block holding a module");
}

ScriptExpertFn kf::makeLLMScriptExperts(LLMAskFn ask, unsigned concurrency,
                                        const std::string &problemText,
                                        const ActionWeights &weights,
                                        LLMFailureLog &failures) {
  return [ask = std::move(ask), concurrency, &problemText, &weights,
          &failures](llvm::ArrayRef<ScriptRequest> requests,
                     const SearchResult &sofar) {
    std::vector<std::optional<ScriptProposal>> answers(requests.size());
    // The prompts are built here, in order; only the requests run in
    // parallel.
    std::vector<std::pair<std::string, std::string>> prompts;
    const SearchCandidate &first = sofar.candidates[sofar.defaultIndex];
    for (const ScriptRequest &request : requests) {
      LLMPromptInput input;
      input.focus = request.focus;
      input.repair = request.repair;
      input.problem = problemText;
      if (first.outcome.isCorrect())
        input.defaultSeconds = first.outcome.seconds;
      std::vector<std::string> triggers = first.outcome.triggers;
      if (request.parent) {
        const SearchCandidate &parent = sofar.candidates[*request.parent];
        input.parentKind = parent.kind;
        input.parentText = parent.script;
        input.parentStatus = parent.outcome.status;
        input.parentStage = parent.outcome.stage;
        input.parentSeconds = parent.outcome.seconds;
        input.parentTriggers = parent.outcome.triggers;
        input.parentError = parent.outcome.error;
        triggers = parent.outcome.triggers;
      }
      input.experiences = weights.describe(triggers, 6);
      for (auto it = sofar.candidates.rbegin();
           it != sofar.candidates.rend() && input.nearby.size() < 5; ++it)
        if (it->island == request.island)
          input.nearby.push_back(
              llvm::formatv(
                  "#{0} {1}: {2} -> {3}{4}", it->id, it->expert,
                  it->change.empty() ? "(as seeded)" : it->change,
                  it->outcome.statusText(),
                  it->outcome.isCorrect()
                      ? llvm::formatv(" {0:F4} ms", it->outcome.seconds * 1e3)
                            .str()
                      : "")
                  .str());
      prompts.push_back(buildLLMPrompts(input));
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next++) < requests.size();) {
        std::string expert =
            llmExpertName(requests[i].focus, requests[i].repair);
        llvm::Expected<std::string> text =
            ask(prompts[i].first, prompts[i].second);
        llvm::Expected<ParsedLLMAnswer> parsed =
            text ? parseLLMAnswer(*text)
                 : llvm::Expected<ParsedLLMAnswer>(text.takeError());
        if (!parsed) {
          failures.add(expert + " (island " +
                       std::to_string(requests[i].island) +
                       "): " + llvm::toString(parsed.takeError()));
          continue;
        }
        answers[i] = ScriptProposal{parsed->kind, std::move(parsed->text),
                                    parsed->summary, expert};
      }
    };
    std::vector<std::thread> threads;
    unsigned parallel =
        std::min<size_t>(std::max(1u, concurrency), requests.size());
    for (unsigned t = 1; t < parallel; ++t)
      threads.emplace_back(work);
    work();
    for (std::thread &thread : threads)
      thread.join();
    return answers;
  };
}
