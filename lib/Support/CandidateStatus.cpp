//===- CandidateStatus.cpp - What became of a candidate -------------------===//

#include "kf/Support/CandidateStatus.h"

#include "llvm/Support/ErrorHandling.h"

using namespace kf;

namespace {

struct StatusName {
  CandidateStatus status;
  llvm::StringLiteral name;
  /// Reported by the GPU evaluator.
  bool evaluator;
};

const StatusName kStatusNames[] = {
    {CandidateStatus::Correct, "correct", true},
    {CandidateStatus::Incorrect, "incorrect", true},
    {CandidateStatus::InputsModified, "inputs-modified", true},
    {CandidateStatus::Cheating, "cheating", true},
    {CandidateStatus::DegenerateProblem, "degenerate-problem", true},
    {CandidateStatus::ResourceLimit, "resource-limit", true},
    {CandidateStatus::LoadError, "load-error", true},
    {CandidateStatus::Fault, "runtime-fault", true},
    {CandidateStatus::Timeout, "timeout", true},
    {CandidateStatus::NoDevice, "no-device", true},
    {CandidateStatus::InternalError, "internal-error", true},
    {CandidateStatus::Compiled, "compiled", false},
    {CandidateStatus::Rejected, "rejected", false},
    {CandidateStatus::CompileError, "compile-error", false},
    {CandidateStatus::CompileTimeout, "compile-timeout", false},
    {CandidateStatus::CompileCrash, "compile-crash", false},
    {CandidateStatus::EvaluatorLost, "evaluator-lost", false},
};

const StatusName &entry(CandidateStatus status) {
  for (const StatusName &entry : kStatusNames)
    if (entry.status == status)
      return entry;
  llvm_unreachable("a status without a name");
}

} // namespace

llvm::StringRef kf::stringifyCandidateStatus(CandidateStatus status) {
  return entry(status).name;
}

std::optional<CandidateStatus>
kf::symbolizeCandidateStatus(llvm::StringRef name) {
  for (const StatusName &entry : kStatusNames)
    if (entry.name == name)
      return entry.status;
  return std::nullopt;
}

bool kf::isEvaluatorStatus(CandidateStatus status) {
  return entry(status).evaluator;
}

bool kf::isCompileFailure(CandidateStatus status) {
  return status == CandidateStatus::CompileError ||
         status == CandidateStatus::CompileTimeout ||
         status == CandidateStatus::CompileCrash;
}

std::string kf::formatStatus(CandidateStatus status, llvm::StringRef stage) {
  std::string text = stringifyCandidateStatus(status).str();
  if (status == CandidateStatus::CompileError && !stage.empty())
    text += ":" + stage.str();
  return text;
}

bool kf::parseStatus(llvm::StringRef text, CandidateStatus &status,
                     std::string &stage) {
  auto [name, after] = text.split(':');
  std::optional<CandidateStatus> parsed = symbolizeCandidateStatus(name);
  bool hasStage = text.contains(':');
  if (!parsed ||
      (hasStage && (*parsed != CandidateStatus::CompileError || after.empty())))
    return false;
  status = *parsed;
  stage = after.str();
  return true;
}
