//===- ExperienceLibrary.h - What worked, across runs and problems -*- C++ -*-//
//
// A SQLite database shared by every kf-evolve run of a user (default
// $XDG_CACHE_HOME/kf/experience.sqlite, else ~/.cache/kf/...). It keeps
//  - action statistics: for a diagnosis trigger (a finding kind or a
//    predicted bottleneck class) and a mutation action, how often the
//    action was tried on a parent diagnosed so and how often the child was
//    correct and faster, with the mean speedup; seeded with priors from the
//    curated rules in lib/Search/knowledge.json (each naming its source);
//  - the best schedule found for each problem (by shape signature and
//    evaluator), with the problem's features, for retrieval-augmented
//    initialization of runs on similar problems.
// Every update is one transaction (BEGIN IMMEDIATE) in WAL mode with a busy
// timeout, so concurrent runs and a kill at any moment leave it consistent;
// an observation is recorded at most once per (run, candidate), so a resumed
// run does not count its replayed candidates twice.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_EXPERIENCELIBRARY_H
#define KF_SEARCH_EXPERIENCELIBRARY_H

#include "kf/Schedule/Schedule.h"
#include "kf/Search/Search.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kf {

class LibraryDatabase;

/// What retrieval compares problems by: the shapes of the reference's ops
/// (OpShape, in order) and the element type.
struct ProblemFeatures {
  std::string problem; // the kf.problem name, for people reading the library
  llvm::SmallVector<OpShape> ops;
  std::string elementType;

  /// Equal for problems of the same op structure and sizes.
  std::string signature() const;
};

llvm::json::Value toJSON(const ProblemFeatures &features);
bool fromJSON(const llvm::json::Value &value, ProblemFeatures &features,
              llvm::json::Path path);

/// 0 for problems whose schedules cannot transfer (different op counts,
/// loop ranks or element types), up to 1 for identical shapes; in between,
/// closer sizes (on a log scale) score higher.
double similarity(const ProblemFeatures &a, const ProblemFeatures &b);

/// A best schedule of some problem, as retrieved.
struct Experience {
  ProblemFeatures features;
  Schedule schedule;
  std::string evaluator;
  double seconds = 0, speedup = 0, similarity = 0;
};

/// The statistics of one (trigger, action) pair: priors plus observations.
struct ActionStats {
  std::string trigger, action;
  int64_t priorTries = 0, priorSuccesses = 0;
  int64_t tries = 0, successes = 0;
  double speedupSum = 0; // over successes: parent seconds / child seconds
  std::string rule, source;

  /// Expected chance that the action helps (Laplace-smoothed).
  double expectedSuccess() const {
    return double(priorSuccesses + successes + 1) /
           double(priorTries + tries + 2);
  }
};

/// A run's records as the library keeps them (see recordCandidate).
struct RunRecords {
  std::string run, problem;
  /// The run's library snapshot (library-snapshot.json).
  std::string snapshot;
  /// candidates.jsonl's lines, in order.
  std::vector<std::string> records;
};

struct RunSummary {
  std::string run, problem;
  int64_t candidates = 0;
};

class ExperienceLibrary {
public:
  ~ExperienceLibrary();
  ExperienceLibrary(const ExperienceLibrary &) = delete;
  ExperienceLibrary &operator=(const ExperienceLibrary &) = delete;

  /// Opens the library at `location` and brings the curated rules up to
  /// date: a SQLite file (created with its directory when missing) or a
  /// PostgreSQL database given by a postgresql:// URL (its tables created
  /// when missing).
  static llvm::Expected<std::unique_ptr<ExperienceLibrary>>
  open(llvm::StringRef location);

  /// $KF_EXPERIENCE_DB, else $XDG_CACHE_HOME/kf/experience.sqlite, else
  /// ~/.cache/kf/experience.sqlite.
  static std::string defaultPath();

  /// Every (trigger, action) pair with priors or observations.
  llvm::Expected<std::vector<ActionStats>> actionStats();

  /// Records that `action` was tried on a parent with these triggers
  /// (candidate `candidate` of run `run`): `success` when the child was
  /// correct and faster, `speedup` = parent / child time. A second call for
  /// the same (run, candidate) changes nothing.
  llvm::Error recordTry(llvm::StringRef run, unsigned candidate,
                        llvm::ArrayRef<std::string> triggers,
                        llvm::StringRef action, bool success, double speedup);

  /// Keeps `schedule` as the best for the problem (per signature and
  /// evaluator) unless a faster one is already kept.
  llvm::Error recordBest(const ProblemFeatures &features,
                         llvm::StringRef evaluator, const Schedule &schedule,
                         double seconds, double speedup, llvm::StringRef run);

  /// Keeps a run's start: its problem and the library snapshot it froze
  /// (JSON text). A second call for the same run changes nothing.
  llvm::Error recordRunStart(llvm::StringRef run, llvm::StringRef problem,
                             llvm::StringRef snapshot);
  /// Keeps record `ordinal` (from 0: the readable lines of the run's
  /// candidates.jsonl, in order). A second call for the same (run, ordinal)
  /// with the same record changes nothing; with another record it is an
  /// error (the run was continued twice, differently).
  llvm::Error recordCandidate(llvm::StringRef run, unsigned ordinal,
                              llvm::StringRef record);
  /// recordCandidate for `records` as ordinals firstOrdinal, firstOrdinal +
  /// 1, ..., in one transaction: all are kept or, on an error, none.
  llvm::Error recordCandidates(llvm::StringRef run, unsigned firstOrdinal,
                               llvm::ArrayRef<std::string> records);
  /// A run's start and its records in order, up to the first missing one;
  /// an error when the library has no such run.
  llvm::Expected<RunRecords> runRecords(llvm::StringRef run);
  /// Every run recorded, by id, with its problem and number of records (as
  /// runRecords gives them back).
  llvm::Expected<std::vector<RunSummary>> listRuns();

  /// The best schedules of the `limit` problems most similar to `features`
  /// (similarity > 0), most similar first; the problem itself included
  /// when it is there.
  llvm::Expected<std::vector<Experience>>
  retrieve(const ProblemFeatures &features, unsigned limit);

  /// "ok" when the library is sound: SQLite's integrity check, or on
  /// PostgreSQL a check that no statistic has impossible counts.
  llvm::Expected<std::string> integrityCheck();

  /// The whole library as JSON: rules with statistics, best schedules (with
  /// their problems' features), and the (run, candidate) pairs already
  /// counted; importJSON reads it back.
  llvm::Expected<llvm::json::Value> exportJSON();

  /// Fills a new library (no observations, no best schedules) from what
  /// exportJSON wrote, e.g. from another backend. Refuses a library that
  /// has learned anything: counts are not merged.
  llvm::Error importJSON(const llvm::json::Value &exported);

  /// Where the library lives, for messages (a URL's password left out).
  const std::string &name() const;

private:
  explicit ExperienceLibrary(std::unique_ptr<LibraryDatabase> db);
  llvm::Error seedKnowledge();

  std::unique_ptr<LibraryDatabase> db;
};

/// Action weights frozen at the start of a run: expected success per
/// (trigger, action), averaged over a parent's triggers. Kept in the run's
/// output directory so that a resumed run weighs exactly as the original.
class ActionWeights {
public:
  ActionWeights() = default;
  explicit ActionWeights(llvm::ArrayRef<ActionStats> stats);

  /// The mean expected success over `triggers` (0.5 for unknown pairs),
  /// at least 0.05 so that no action is ever ruled out.
  double weight(llvm::ArrayRef<std::string> triggers,
                llvm::StringRef action) const;

  /// What the library knows for these triggers, in words, most promising
  /// first (at most `limit` lines), e.g. "after latency-bound,
  /// split-reduction helped in 67% of tries": what LLM experts are told.
  std::vector<std::string> describe(llvm::ArrayRef<std::string> triggers,
                                    unsigned limit) const;

  /// Expected success per (trigger, action).
  using Table = std::map<std::pair<std::string, std::string>, double>;
  const Table &table() const { return expected; }
  explicit ActionWeights(Table expected) : expected(std::move(expected)) {}

private:
  Table expected;
};

/// [{"trigger", "action", "expected"}].
llvm::json::Value toJSON(const ActionWeights &weights);
bool fromJSON(const llvm::json::Value &value, ActionWeights &weights,
              llvm::json::Path path);

/// The library's state a run starts from: the action weights and the seeds
/// retrieved for its problem (adapted to its shapes), with a note on where
/// each seed came from. Kept in the run's output directory
/// (library-snapshot.json) so that a resumed run weighs and seeds exactly
/// as the original did, whatever the library learned in between.
struct LibrarySnapshot {
  ActionWeights weights;
  std::vector<std::pair<std::string, Schedule>> seeds;
  std::vector<std::string> notes;
  /// The settings the run's search started with, which a resumed run must
  /// be given again to continue the same search (none in snapshots written
  /// before they were kept).
  std::optional<SearchSettings> settings;

  /// Reads the weights and the best schedules of the `limit` problems most
  /// similar to `features` that `restructure` can fit (kf::adaptGenome).
  static llvm::Expected<LibrarySnapshot> take(ExperienceLibrary &library,
                                              const ProblemFeatures &features,
                                              const RestructureFn &restructure,
                                              unsigned limit);
};

/// {"weights", "seeds": [{"name", "schedule"}], "notes", "search_settings"
/// (optional)}: library-snapshot.json.
llvm::json::Value toJSON(const LibrarySnapshot &snapshot);
bool fromJSON(const llvm::json::Value &value, LibrarySnapshot &snapshot,
              llvm::json::Path path);

} // namespace kf

#endif // KF_SEARCH_EXPERIENCELIBRARY_H
