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
// Not here yet (issue 6): the experience library, retrieval-augmented
// initialization, records and resume, parallel compilation, the report.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_SEARCH_H
#define KF_SEARCH_SEARCH_H

#include "kf/Transforms/Schedules.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <random>
#include <string>

namespace kf {

/// What an expert focuses on; island i uses focus i modulo the count.
enum class ExpertFocus { Memory, Compute, Parallelism, Structure };
llvm::StringRef stringifyExpertFocus(ExpertFocus focus);

/// One proposal: a mutated genome and what was changed, in words.
struct Proposal {
  Schedule genome;
  std::string change;
};

/// Rule-based mutations of a parent genome for the ops' shapes: memory
/// (vector width of elementwise ops), compute (reduction steps with register
/// accumulation), parallelism (threads and block tiles), structure (two of
/// the above at once). Proposals keep tiles that divide their loops when a
/// vector width or reduction step needs static tiles; others may still be
/// illegal, which compiling finds out.
Proposal proposeMutation(const Schedule &parent, llvm::ArrayRef<OpShape> shapes,
                         ExpertFocus focus, std::mt19937_64 &rng);

/// The outcome of evaluating one candidate.
struct Outcome {
  /// "correct" (measured or predicted time valid), or why not: a compile
  /// stage, "rejected", "incorrect", "runtime-fault", ...
  std::string status;
  double seconds = 0;
};

struct SearchOptions {
  uint64_t seed = 1;
  unsigned islands = 4;
  unsigned populationSize = 8;
  /// Evaluations (candidates compiled and evaluated, failures included).
  unsigned budgetEvals = 40;
  /// Stop early once the best is this many times faster than the default
  /// (0: no target).
  double targetSpeedup = 0;
  /// Migrate each island's best to the next island every this many
  /// evaluations.
  unsigned migrationInterval = 8;
};

struct SearchCandidate {
  unsigned id = 0;
  unsigned island = 0;
  std::optional<unsigned> parent;
  std::string expert, change;
  Schedule genome;
  std::string script;
  Outcome outcome;
};

struct SearchResult {
  std::vector<SearchCandidate> candidates; // in evaluation order
  /// Index into candidates of the default schedule and of the best.
  unsigned defaultIndex = 0;
  std::optional<unsigned> bestIndex;
  unsigned duplicatesSkipped = 0;
};

/// Renders a genome to a transform script (std::nullopt when it does not
/// fit the reference: the error is reported through the callback's own
/// diagnostics).
using RenderFn = std::function<std::optional<std::string>(const Schedule &)>;
/// Compiles and evaluates a rendered script.
using EvaluateFn = std::function<Outcome(const std::string &script)>;
/// Called after every evaluation (progress reporting).
using ProgressFn =
    std::function<void(const SearchCandidate &, const SearchResult &)>;

/// Runs the search from `defaultSchedule` (evaluated first).
SearchResult runSearch(const Schedule &defaultSchedule,
                       llvm::ArrayRef<OpShape> shapes, const RenderFn &render,
                       const EvaluateFn &evaluate, const SearchOptions &options,
                       const ProgressFn &progress = {});

/// A genome in words, e.g. "op0: block [4, 64] threads [4, 64] vector 4".
std::string describeGenome(const Schedule &genome);

llvm::json::Value toJSON(const SearchCandidate &candidate);

} // namespace kf

#endif // KF_SEARCH_SEARCH_H
