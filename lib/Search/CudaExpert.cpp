//===- CudaExpert.cpp - Rule-based experts for CUDA candidates ------------===//

#include "kf/Search/CudaExpert.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>

using namespace kf;

CudaTuning kf::defaultCudaTuning(const CudaLaunchSpec &plan) {
  CudaTuning tuning;
  for (const CudaLaunchParameter &parameter : plan.parameters)
    tuning.parameters[parameter.name] = parameter.value;
  return tuning;
}

llvm::Expected<std::string>
kf::renderCudaCandidate(const CudaExpertSetup &setup,
                        const CudaTuning &tuning) {
  // Every parameter of the plan is a macro, at the tuning's value or the
  // plan's own.
  CudaImportOptions options = setup.importOptions;
  CudaTuning complete = defaultCudaTuning(setup.plan);
  for (const auto &[name, value] : tuning.parameters)
    complete.parameters[name] = value;
  for (const auto &[name, value] : complete.parameters)
    options.defines.push_back({name, std::to_string(value)});
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> imported =
      importCuda(setup.sourcePath, setup.context, options);
  if (!imported)
    return imported.takeError();
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> candidate =
      buildCudaCandidate(std::move(*imported), setup.spec, setup.plan, tuning);
  if (!candidate)
    return llvm::createStringError(setup.sourcePath + ": " +
                                   llvm::toString(candidate.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  (*candidate)
      ->print(os, mlir::OpPrintingFlags().enableDebugInfo(
                      /*enable=*/true, /*prettyForm=*/false));
  return text;
}

namespace {

/// Register caps tried by the compute expert (0: none).
constexpr unsigned kRegisterCaps[] = {0, 32, 64, 96, 128, 168, 255};

struct CudaExpertState {
  CudaExpertSetup setup;
  std::function<void(const std::string &)> onFailure;
  std::mt19937_64 random;
  /// Every tuning proposed, by its description, and the tuning of each
  /// candidate text proposed.
  std::set<std::string> proposed;
  std::map<std::string, CudaTuning> byText;
  /// The candidate text of the kernel as written (rendered up front).
  std::string asWrittenText;
  std::mutex mutex;

  /// A neighbour of `parent` for an expert of `focus`, not proposed before.
  std::optional<std::pair<CudaTuning, std::string>>
  mutate(const CudaTuning &parent, ExpertFocus focus) {
    std::vector<const CudaLaunchParameter *> tunable;
    for (const CudaLaunchParameter &parameter : setup.plan.parameters)
      if (parameter.choices.size() > 1)
        tunable.push_back(&parameter);
    for (int attempt = 0; attempt < 32; ++attempt) {
      CudaTuning tuning = parent;
      std::string change;
      bool launchKnobs = focus == ExpertFocus::Compute || tunable.empty() ||
                         (focus == ExpertFocus::Structure && random() % 3 == 0);
      if (launchKnobs) {
        if (random() % 2) {
          tuning.launchBounds = !tuning.launchBounds;
          change = tuning.launchBounds ? "add __launch_bounds__"
                                       : "drop __launch_bounds__";
        } else {
          unsigned cap = kRegisterCaps[random() % std::size(kRegisterCaps)];
          if (cap == tuning.maxRegisters)
            continue;
          change = "max registers " + std::to_string(tuning.maxRegisters) +
                   " -> " + std::to_string(cap);
          tuning.maxRegisters = cap;
        }
      } else {
        const CudaLaunchParameter &parameter =
            *tunable[random() % tunable.size()];
        int64_t current = tuning.parameters[parameter.name];
        auto position = llvm::find(parameter.choices, current);
        int64_t next;
        if (focus == ExpertFocus::Structure ||
            position == parameter.choices.end()) {
          next = parameter.choices[random() % parameter.choices.size()];
        } else {
          // One step up or down through the choices.
          size_t index = position - parameter.choices.begin();
          bool up = random() % 2;
          if (up && index + 1 < parameter.choices.size())
            next = parameter.choices[index + 1];
          else if (!up && index > 0)
            next = parameter.choices[index - 1];
          else
            next =
                parameter
                    .choices[index + 1 < parameter.choices.size() ? index + 1
                                                                  : index - 1];
        }
        if (next == current)
          continue;
        change = parameter.name + " " + std::to_string(current) + " -> " +
                 std::to_string(next);
        tuning.parameters[parameter.name] = next;
      }
      if (proposed.insert(tuning.describe()).second)
        return std::make_pair(tuning, change);
    }
    return std::nullopt;
  }
};

} // namespace

llvm::Expected<ScriptExpertFn>
kf::makeCudaScriptExperts(CudaExpertSetup setup,
                          std::function<void(const std::string &)> onFailure) {
  auto state = std::make_shared<CudaExpertState>();
  state->random.seed(setup.seed * 0x9E3779B97F4A7C15ull + 17);
  state->setup = std::move(setup);
  state->onFailure = std::move(onFailure);
  // The kernel as written must bind to the problem, or no tuning will: it
  // is rendered now, and becomes the first proposal.
  llvm::Expected<std::string> asWrittenText =
      renderCudaCandidate(state->setup, defaultCudaTuning(state->setup.plan));
  if (!asWrittenText)
    return asWrittenText.takeError();
  state->asWrittenText = std::move(*asWrittenText);
  return [state](llvm::ArrayRef<ScriptRequest> requests,
                 const SearchResult &sofar)
             -> std::vector<std::optional<ScriptProposal>> {
    std::lock_guard<std::mutex> lock(state->mutex);
    std::vector<std::optional<ScriptProposal>> proposals;
    // The best CUDA candidate so far: where a parent that is not CUDA
    // starts from.
    std::optional<CudaTuning> bestCuda;
    double bestSeconds = 0;
    for (const SearchCandidate &candidate : sofar.candidates) {
      auto it = state->byText.find(candidate.script);
      if (it == state->byText.end() || !candidate.outcome.isCorrect())
        continue;
      if (!bestCuda || candidate.outcome.seconds < bestSeconds) {
        bestCuda = it->second;
        bestSeconds = candidate.outcome.seconds;
      }
    }
    for (const ScriptRequest &request : requests) {
      // A tuning that did not compile is not repaired: the next round
      // tries another.
      if (request.repair) {
        proposals.push_back(std::nullopt);
        continue;
      }
      std::optional<std::pair<CudaTuning, std::string>> next;
      CudaTuning asWritten = defaultCudaTuning(state->setup.plan);
      if (state->proposed.insert(asWritten.describe()).second) {
        next = std::make_pair(asWritten, std::string("as written"));
      } else {
        std::optional<CudaTuning> parent;
        if (request.parent) {
          auto it =
              state->byText.find(sofar.candidates[*request.parent].script);
          if (it != state->byText.end())
            parent = it->second;
        }
        if (!parent)
          parent = bestCuda ? *bestCuda : asWritten;
        next = state->mutate(*parent, request.focus);
      }
      if (!next) {
        proposals.push_back(std::nullopt);
        continue;
      }
      llvm::Expected<std::string> text =
          next->second == "as written"
              ? llvm::Expected<std::string>(state->asWrittenText)
              : renderCudaCandidate(state->setup, next->first);
      if (!text) {
        state->onFailure("cuda:" + stringifyExpertFocus(request.focus).str() +
                         " (" + next->first.describe() +
                         "): " + llvm::toString(text.takeError()));
        proposals.push_back(std::nullopt);
        continue;
      }
      state->byText[*text] = next->first;
      ScriptProposal proposal;
      proposal.kind = CandidateKind::Kernel;
      proposal.text = std::move(*text);
      proposal.change = next->second + " (" + next->first.describe() + ")";
      proposal.expert = "cuda:" + stringifyExpertFocus(request.focus).str();
      proposals.push_back(std::move(proposal));
    }
    return proposals;
  };
}
