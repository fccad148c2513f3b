//===- Search.h - Multi-island evolutionary search over schedules -*- C++
//-*-===//
//
// The core of kf-evolve's main job: islands of schedule genomes (kf::Schedule),
// each island with its own rule-based expert focus, evolving by mutation
// under a budget of evaluations, with tournament parent selection, ring
// migration of each island's best, deduplication by the rendered script,
// and a seed that makes a run reproducible. Compiling a candidate (which
// includes the legality and static cheat checks) and evaluating it are
// callbacks, so the same loop drives the GPU and the static cost model.
//
// Expert actions (RuleExperts.h) are weighted by a callback (the experience
// library, see ExperienceLibrary.h) and the first population can be seeded.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_SEARCH_H
#define KF_SEARCH_SEARCH_H

#include "kf/Schedule/Schedule.h"
#include "kf/Search/RuleExperts.h"
#include "kf/Support/CandidateStatus.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kf {

/// What a candidate's text is: a transform script for the problem's
/// reference, or a rewritten kernel (a module whose host function launches
/// kernels; see kf::compileKernelCandidate).
enum class CandidateKind { Schedule, Kernel };
llvm::StringRef stringifyCandidateKind(CandidateKind kind);

/// A candidate as the evaluator sees it.
struct CandidateSource {
  CandidateKind kind = CandidateKind::Schedule;
  std::string text;
};

/// {"kind": "schedule" | "kernel", "text"}: how a candidate travels to a
/// compile worker (kf::CompilePool) or an evaluating rank (--mpi).
llvm::json::Value toJSON(const CandidateSource &candidate);
bool fromJSON(const llvm::json::Value &value, CandidateSource &candidate,
              llvm::json::Path path);

/// The outcome of evaluating one candidate.
struct Outcome {
  /// What became of it. Correct: `seconds` is its measured (or, with the
  /// cost model, predicted) time.
  CandidateStatus status = CandidateStatus::InternalError;
  double seconds = 0;
  /// The candidate's diagnosis in brief: its predicted bottleneck class and
  /// the kinds of its findings (docs/diagnosis.md), sorted and unique. What
  /// the experience library's statistics are keyed by.
  std::vector<std::string> triggers;
  /// Why it failed: the first error of its compile (or evaluation).
  std::string error;
  /// What ranked it ("gpu (<model>)", "cost-model (predictions)"), empty
  /// when the caller does not say. Records keep it beside the outcome; it
  /// is not part of the outcome's JSON.
  std::string evaluator = {};
  /// Of a candidate that compiled: its kernel launches per run and the
  /// bytes their global accesses move (the cost model's estimate); 0
  /// otherwise.
  unsigned kernels = 0;
  double globalBytes = 0;
  /// With CompileError: the stage that failed (kf::stringifyCompileStage's
  /// names, "request" for a request no compile could read, "rank" for one
  /// an evaluating rank could not take).
  std::string stage = {};

  bool isCorrect() const { return status == CandidateStatus::Correct; }
  /// kf::formatStatus: "correct", "compile-error:transform", ...
  std::string statusText() const { return formatStatus(status, stage); }
  /// A candidate that failed with `status` (and `error`, `stage`).
  static Outcome failed(CandidateStatus status, std::string error,
                        std::string stage = "");
};

/// {"status", "seconds", "triggers", "error"}: how outcomes travel
/// between processes (kf-evolve --mpi).
llvm::json::Value toJSON(const Outcome &outcome);
bool fromJSON(const llvm::json::Value &value, Outcome &outcome,
              llvm::json::Path path);

struct SearchOptions {
  uint64_t seed = 1;
  unsigned islands = 4;
  unsigned populationSize = 8;
  /// Evaluations (candidates compiled and evaluated, failures included).
  unsigned budgetEvals = 40;
  /// Stop after this many seconds of wall time (0: no limit). A run cut by
  /// time is not reproducible evaluation for evaluation.
  double budgetSeconds = 0;
  /// Stop early once the best is this many times faster than the default
  /// (0: no target).
  double targetSpeedup = 0;
  /// Migrate each island's best to the next island every this many
  /// evaluations.
  unsigned migrationInterval = 8;
  /// An island whose best has not improved over this many of its own
  /// evaluations is stagnating: the best of all islands migrates to it at
  /// once (0: never).
  unsigned stagnationLimit = 12;
  /// Whether the rule-based experts propose (each round, one proposal per
  /// island); script experts (SearchCallbacks::scriptExperts) propose
  /// besides or instead of them.
  bool ruleExperts = true;
  /// How many times a script expert's candidate that failed to compile is
  /// sent back to it with the error (a repair round) before it is dropped.
  unsigned repairRounds = 1;
  /// Proposals per round (islands taking turns), compiled and measured
  /// together: more than the islands keeps several GPUs busy. Values below
  /// the island count mean one per island. The search depends on it: a
  /// run is reproducible for the same seed and round size.
  unsigned roundSize = 0;
  /// Rounds overlap: the next round is proposed and handed to the
  /// evaluator while the current one is still being evaluated, so its
  /// candidates compile while the GPUs measure and no GPU waits for a
  /// round's slowest candidate. Proposals then see the populations as they
  /// stood two rounds back; they depend only on rounds already recorded, so
  /// a seed still fixes the run. Off, or with script experts that get
  /// repair rounds, each round waits for the one before.
  bool overlapRounds = true;
  /// With overlapRounds: how many rounds the evaluator may hold at once
  /// (2 or more). More keeps several GPUs fed across a round's end (the
  /// next round is proposed before the oldest is recorded) at the price of
  /// proposals that see the populations one round further back.
  unsigned roundsInFlight = 2;
  /// No default schedule (a problem with no reference to schedule): the
  /// baseline, candidate 0, is the script experts' answer to a first
  /// request without a parent (a CUDA kernel as written), and no rule
  /// expert may run.
  bool baselineFromScriptExperts = false;
  /// Genomes evaluated right after the default schedule, in this order
  /// (expert seeds, the best schedules of similar problems), named by where
  /// they come from.
  std::vector<std::pair<std::string, Schedule>> seeds;
};

/// What, besides the problem, the library snapshot and the evaluator,
/// decides which candidates a search proposes: a run resumed with other
/// values would go on as another search.
struct SearchSettings {
  uint64_t seed = 1;
  unsigned islands = 4;
  /// The round size in effect (SearchOptions::roundSize after defaults).
  unsigned roundSize = 0;
  bool overlapRounds = true;
  /// SearchOptions::roundsInFlight (2 in runs that predate it).
  unsigned roundsInFlight = 2;

  /// Says how `given` differs from these, as the options to give instead
  /// ("--seed 3"); std::nullopt when it does not.
  std::optional<std::string> differenceFrom(const SearchSettings &given) const;
};

/// {"seed", "islands", "round_size", "overlap_rounds", "rounds_in_flight"
/// (2 when missing: runs that predate it)}.
llvm::json::Value toJSON(const SearchSettings &settings);
bool fromJSON(const llvm::json::Value &value, SearchSettings &settings,
              llvm::json::Path path);

struct SearchCandidate {
  unsigned id = 0;
  unsigned island = 0;
  std::optional<unsigned> parent;
  /// "default", "seed:<name>", the island's expert focus, or a script
  /// expert's name (e.g. "llm:memory", "llm:repair").
  std::string expert;
  std::optional<MutationAction> action;
  std::string change;
  /// Rule-based candidates have a genome; a script expert's do not (they
  /// are text only, and rule experts never mutate them).
  bool hasGenome = true;
  Schedule genome;
  CandidateKind kind = CandidateKind::Schedule;
  /// The transform script or kernel module.
  std::string script;
  /// Repair rounds that led to this candidate (0: a first proposal).
  unsigned repairDepth = 0;
  Outcome outcome;
};

struct SearchResult {
  std::vector<SearchCandidate> candidates; // in evaluation order
  /// Index into candidates of the default schedule and of the best.
  unsigned defaultIndex = 0;
  std::optional<unsigned> bestIndex;
  unsigned duplicatesSkipped = 0;
  /// Migrations to stagnating islands (besides the ring's).
  unsigned stagnationMigrations = 0;
  /// Why the search stopped: "budget", "time", "target", "exhausted".
  std::string stopReason;
};

/// Renders a genome to a transform script (std::nullopt when it does not
/// fit the reference: the error is reported through the callback's own
/// diagnostics).
using RenderFn = std::function<std::optional<std::string>(const Schedule &)>;
/// Compiles and evaluates candidates, one outcome per candidate in the same
/// order. A batch holds one round's proposals (or the seeds), so an
/// evaluator can compile its members in parallel while it measures others.
/// It runs on a thread of its own and, with SearchOptions::overlapRounds,
/// two calls (two rounds) may run at once: an evaluator that cannot overlap
/// them serializes them itself.
using EvaluateFn = std::function<std::vector<Outcome>(
    llvm::ArrayRef<CandidateSource> candidates)>;

/// What a script expert (an LLM) is asked for: a new candidate for
/// `island`, starting from `parent` (an index into the result's
/// candidates; none: the problem only), or, with `repair`, a fixed version
/// of `parent`, which failed.
struct ScriptRequest {
  unsigned island = 0;
  ExpertFocus focus = ExpertFocus::Memory;
  std::optional<unsigned> parent;
  bool repair = false;
};

/// A script expert's answer.
struct ScriptProposal {
  CandidateKind kind = CandidateKind::Schedule;
  std::string text;
  /// What it changed, in the expert's words (one line).
  std::string change;
  /// e.g. "llm:memory".
  std::string expert;
};

/// Answers a round's requests, one entry per request (std::nullopt: no
/// usable answer; the expert keeps its own record of why). May ask
/// concurrently.
using ScriptExpertFn = std::function<std::vector<std::optional<ScriptProposal>>(
    llvm::ArrayRef<ScriptRequest> requests, const SearchResult &sofar)>;
/// Called after every evaluation (progress reporting, learning).
using ProgressFn =
    std::function<void(const SearchCandidate &, const SearchResult &)>;
/// How much to favour `action` for a parent with these diagnosis triggers
/// (positive; the experience library's expected success).
using ActionWeightFn = std::function<double(
    llvm::ArrayRef<std::string> triggers, MutationAction action)>;

struct SearchCallbacks {
  RenderFn render;
  EvaluateFn evaluate;
  RestructureFn restructure;
  /// Optional: actions are chosen uniformly without it.
  ActionWeightFn weight;
  /// Optional.
  ProgressFn progress;
  /// Optional: experts that propose text (LLMs), besides or instead of the
  /// rule-based ones (SearchOptions::ruleExperts).
  ScriptExpertFn scriptExperts;
};

/// Runs the search from `defaultSchedule` (evaluated first, then the
/// seeds).
SearchResult runSearch(const Schedule &defaultSchedule,
                       const SearchCallbacks &callbacks,
                       const SearchOptions &options);

/// A genome in words, e.g. "fuse; split op1 by 256; op0: block [4, 64]
/// threads [4, 64] vector 4".
std::string describeGenome(const Schedule &genome);

llvm::json::Value toJSON(const SearchCandidate &candidate);

} // namespace kf

#endif // KF_SEARCH_SEARCH_H
