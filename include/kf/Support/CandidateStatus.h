//===- CandidateStatus.h - What became of a candidate -----------*- C++ -*-===//
//
// One status for a candidate wherever it is judged: a compile worker's
// reply, the GPU evaluator's result, the search's outcome and its records,
// the report and the experts' prompts. Each status has one name, the one
// written in JSON and reports; the table in CandidateStatus.cpp is the only
// place the names are spelled.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SUPPORT_CANDIDATESTATUS_H
#define KF_SUPPORT_CANDIDATESTATUS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kf {

enum class CandidateStatus {
  /// Right on every trial and measured (or, with the cost model, compiled
  /// and ranked by prediction).
  Correct,

  // The GPU evaluator's verdicts.
  Incorrect,
  InputsModified,
  /// A dynamic check found the candidate cheating (outputs that do not
  /// change when the inputs do).
  Cheating,
  /// The problem accepts a trivial kernel: judging candidates is pointless.
  DegenerateProblem,
  ResourceLimit,
  LoadError,
  Fault,
  Timeout,
  NoDevice,
  InternalError,

  // The compile's.
  /// Compiled, not yet evaluated (a compile worker's reply only).
  Compiled,
  /// Refused by the static cheat checks.
  Rejected,
  /// Failed at a stage of the compile (the outcome names the stage).
  CompileError,
  CompileTimeout,
  CompileCrash,

  /// The search's: no evaluator was left to judge it (every MPI rank that
  /// could evaluate died).
  EvaluatorLost,
};

/// The status's name: "correct", "runtime-fault", "compile-error", ...
llvm::StringRef stringifyCandidateStatus(CandidateStatus status);
std::optional<CandidateStatus> symbolizeCandidateStatus(llvm::StringRef name);

/// Whether the GPU evaluator reports `status` (an EvalResult's status).
bool isEvaluatorStatus(CandidateStatus status);

/// Whether `status` says the candidate did not compile (an error, a
/// timeout or a crash; not a rejection by the cheat checks).
bool isCompileFailure(CandidateStatus status);

/// How records, replies and reports write a status: its name, and for a
/// compile error the stage that failed after a colon
/// ("compile-error:transform").
std::string formatStatus(CandidateStatus status, llvm::StringRef stage = "");
/// Reads formatStatus's form. Fails on an unknown status, and on a stage
/// given to anything but a compile error.
bool parseStatus(llvm::StringRef text, CandidateStatus &status,
                 std::string &stage);

} // namespace kf

#endif // KF_SUPPORT_CANDIDATESTATUS_H
