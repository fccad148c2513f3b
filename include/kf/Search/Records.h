//===- Records.h - A search's records: every candidate, as it completes -*-===//
//
// candidates.jsonl in the output directory holds one JSON line per
// evaluated candidate (its text, kind, status, time, diagnosis triggers,
// first error, evaluator), flushed as it completes, so that a killed run
// loses nothing. --resume reads them back and the search replays them
// instead of evaluating again; a line cut by the kill is ignored. The
// run's id (run-id) keys its experience-library observations. The library
// database keeps a copy of the lines (ExperienceLibrary::recordCandidate),
// from which `--resume --run-id` rebuilds an output directory elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_RECORDS_H
#define KF_SEARCH_RECORDS_H

#include "kf/Search/Search.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kf {

class CandidateRecords {
public:
  /// Opens the records of the run in `directory` (created when missing).
  /// With `resume`, reads the recorded candidates and the run's id first
  /// (fails when there are no records to resume); otherwise starts new
  /// records and a new run id made from `problem`.
  ///
  /// `identity` says what the run searches (the problem's name and the hash
  /// of its text, the schedule space, the settings that decide the
  /// candidates); a new run writes it to run.json, a resumed run must match
  /// it key for key (the error names each difference). A new run refuses a
  /// directory that holds another run's records unless `replace`. Records
  /// are never written through a symlink.
  static llvm::Expected<std::unique_ptr<CandidateRecords>>
  open(llvm::StringRef directory, llvm::StringRef problem, bool resume,
       const llvm::json::Object &identity = {}, bool replace = false);

  /// The recorded outcome of a candidate's text, if any.
  std::optional<Outcome> lookup(llvm::StringRef text) const;
  /// Appends and flushes one candidate's record; returns the line written
  /// (without its newline).
  std::string append(const CandidateSource &candidate, const Outcome &outcome,
                     llvm::StringRef evaluator);

  /// The readable lines of the records so far, in order (what the library
  /// database mirrors).
  llvm::ArrayRef<std::string> lines() const { return recordLines; }

  const std::string &getRunId() const { return runId; }
  /// The evaluator the last recorded candidate named (empty when new).
  const std::string &getRecordedEvaluator() const { return evaluator; }
  size_t numRecorded() const { return recorded.size(); }
  unsigned numUnreadable() const { return unreadable; }

private:
  CandidateRecords() = default;

  llvm::StringMap<Outcome> recorded;
  std::vector<std::string> recordLines;
  std::string runId, evaluator;
  unsigned unreadable = 0;
  std::unique_ptr<llvm::raw_fd_ostream> out;
};

} // namespace kf

#endif // KF_SEARCH_RECORDS_H
