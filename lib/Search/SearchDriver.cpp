//===- SearchDriver.cpp - kf-evolve search: one problem, several, a job ---===//
//
// The evolutionary loop (Search.cpp) set up for a problem: its default
// schedule and experts, an evaluator (this host's GPUs, the cost model, or
// an MPI job's ranks), records that --resume replays, the experience
// library that weights and seeds it; and what a run leaves in its output
// directory (SearchOutputs.cpp).
//
//===----------------------------------------------------------------------===//

#include "kf/Schedule/Schedule.h"
#include "kf/Search/CandidateEvaluator.h"
#include "kf/Search/ExperienceLibrary.h"
#include "kf/Search/LLMExpert.h"
#include "kf/Search/OutputDirectory.h"
#include "kf/Search/Records.h"
#include "kf/Search/SearchConfig.h"
#include "kf/Search/SearchOutputs.h"
#ifdef KF_ENABLE_LLM
#include "kf/Search/LLMClient.h"
#endif
#ifdef KF_ENABLE_MPI
#include "kf/Runtime/MpiCluster.h"
#endif

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/WithColor.h"

#include <mutex>

using namespace llvm;
using namespace mlir;

namespace kf {
namespace {

/// The SHA-256 of a file's text ("" for no file), as --resume compares it.
std::string hashOfFile(StringRef path) {
  if (path.empty())
    return "";
  auto file = MemoryBuffer::getFile(path);
  if (!file)
    return "unreadable";
  return toHex(SHA256::hash(arrayRefFromStringRef((*file)->getBuffer())),
               /*LowerCase=*/true);
}

/// One problem's search, from its problem file to its output directory.
class ProblemSearch {
public:
  ProblemSearch(MLIRContext &context, const SearchConfig &config,
                MpiCluster *cluster)
      : context(context), config(config), cluster(cluster),
        llmFailures(sayFailure) {}
  int run();

private:
  static void sayFailure(const std::string &failure) {
    WithColor::warning(errs(), "kf-evolve")
        << "no candidate from " << failure << "\n";
  }
  LogicalResult chooseExperts();
  void setUpCallbacks();
  LogicalResult openRecords();
  LogicalResult setUpScriptExperts();
  void appendRecord(const SearchCandidate &candidate);
  void learn(const SearchCandidate &candidate, const SearchResult &result);
  void libraryFailed(Error error);
  void sayProgress(const SearchCandidate &candidate,
                   const SearchResult &result);
  std::vector<Outcome> evaluate(ArrayRef<CandidateSource> candidates);

  std::string inOutput(StringRef name) const {
    SmallString<256> path(config.outputDir);
    sys::path::append(path, name);
    return std::string(path);
  }
  /// Create and rename: never through a symlink planted in the directory,
  /// never a half-written file.
  bool write(StringRef name, StringRef text) {
    if (Error error = writeFileReplacing(inOutput(name), text)) {
      reportError(toString(std::move(error)));
      return false;
    }
    return true;
  }
  /// Candidates' own diagnostics (a tile that does not divide, a schedule
  /// the transform rejects) are outcomes of the search, not errors of the
  /// command: the first line of each is kept as the candidate's reason.
  template <typename Body> auto quiet(Body &&body) {
    ScopedDiagnosticHandler swallow(&context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
          lastError.empty())
        lastError = diagnostic.str();
      return success();
    });
    return body();
  }

  MLIRContext &context;
  const SearchConfig &config;
  MpiCluster *cluster;
  bool evaluatingRank = false, drivingRank = false;

  std::optional<LoadedProblem> loaded;
  bool selfReferenced = false;
  Schedule defaultSchedule;
  ProblemFeatures features;
  bool cudaSearch = false, ruleExperts = false, llmExperts = false,
       cudaExperts = false;
  std::string lastError;
  SearchCallbacks callbacks;

  EvaluatorName evaluatorName;
  std::unique_ptr<LocalEvaluator> localEvaluator;
  std::unique_ptr<CandidateEvaluator> rankEvaluator;
  CandidateEvaluator *evaluator = nullptr;

  std::unique_ptr<OutputDirectoryLock> outputLock;
  std::unique_ptr<ExperienceLibrary> library;
  bool libraryWorks = true;
  std::unique_ptr<CandidateRecords> records;
  std::string runId;
  SearchSettings settings;
  std::optional<LibrarySnapshot> snapshot;
  /// Records, the library and the evaluator's name are touched by the
  /// evaluation threads of overlapping rounds under this lock only.
  std::mutex storeMutex;

  LLMFailureLog llmFailures;
  std::function<json::Value()> llmUsage;
  std::string llmDescription;
  std::string problemText;
#ifdef KF_ENABLE_LLM
  std::optional<LLMClient> llm;
#endif

  std::chrono::steady_clock::time_point started;
  /// On a terminal one progress line is redrawn; elsewhere (logs, CI) each
  /// evaluation gets its own line.
  bool live = false;
  std::optional<unsigned> recordedBest;
};

/// A CUDA kernel to evolve (--cuda, or kf-evolve kernel.cu --problem): by
/// default only the CUDA experts propose.
LogicalResult ProblemSearch::chooseExperts() {
  auto fail = [](const Twine &message) {
    reportError(message);
    return failure();
  };
  if (config.input.cudaPaths.size() > 1)
    return fail("search evolves one CUDA source (one --cuda)");
  cudaSearch = !config.input.cudaPaths.empty();
  ruleExperts = config.experts.empty() && !cudaSearch;
  cudaExperts = config.experts.empty() && cudaSearch;
  for (const std::string &kind : config.experts) {
    if (kind == "rules")
      ruleExperts = true;
    else if (kind == "llm")
      llmExperts = true;
    else if (kind == "cuda")
      cudaExperts = true;
    else
      return fail("--experts: unknown expert kind '" + kind +
                  "' (known: rules, llm, cuda)");
  }
  if (cudaExperts && !cudaSearch)
    return fail("--experts cuda needs a CUDA kernel (--cuda file.cu and "
                "--launch plan.json)");
  if (selfReferenced && ruleExperts)
    return fail("--experts rules: the rule experts schedule a problem's "
                "reference function, and this CUDA kernel has no problem file "
                "(its output as written is the reference); give --problem "
                "p.mlir to let them compete");
  if (cudaSearch && !cudaExperts)
    return fail("--experts " + llvm::join(config.experts, ",") +
                " leaves the CUDA kernel untouched: add cuda (e.g. --experts "
                "cuda,rules)");
  if (cudaExperts && llmExperts)
    return fail("--experts: cuda and llm experts cannot share a search yet; "
                "choose one");
  return success();
}

void ProblemSearch::setUpCallbacks() {
  func::FuncOp reference = loaded->reference;
  callbacks.render =
      [this, reference](const Schedule &genome) -> std::optional<std::string> {
    FailureOr<std::string> text =
        quiet([&] { return renderSchedule(reference, genome); });
    if (failed(text))
      return std::nullopt;
    return *text;
  };
  callbacks.restructure =
      [this, reference](const Schedule &genome) -> std::optional<Restructured> {
    if (selfReferenced)
      return std::nullopt; // no genome fits a problem with no reference
    FailureOr<Restructured> restructured =
        quiet([&] { return restructure(reference, genome); });
    if (failed(restructured))
      return std::nullopt;
    return std::move(*restructured);
  };
}

/// The output directory (one writer), the experience library, and the
/// records a resumed run replays; the settings a resumed run must share.
LogicalResult ProblemSearch::openRecords() {
  auto fail = [](const Twine &message) {
    reportError(message);
    return failure();
  };
  const std::string &outputDir = config.outputDir;
  if (config.resume && config.replace)
    return fail("--resume continues the records in " + outputDir +
                " and --replace starts new ones: give one of them");
  Expected<std::unique_ptr<OutputDirectoryLock>> lock =
      OutputDirectoryLock::acquire(outputDir);
  if (!lock)
    return fail(toString(lock.takeError()));
  outputLock = std::move(*lock);

  // The experience library: in memory (curated rules only) with
  // --no-library.
  std::string dbPath = config.noLibrary ? ":memory:"
                       : config.libraryPath.empty()
                           ? ExperienceLibrary::defaultPath()
                           : config.libraryPath;
  Expected<std::unique_ptr<ExperienceLibrary>> opened =
      ExperienceLibrary::open(dbPath);
  if (!opened)
    return fail(toString(opened.takeError()));
  library = std::move(*opened);

  // --resume --run-id: the output directory is rebuilt from the records the
  // library keeps, then resumed as if the run had been killed there.
  if (!config.resumeRunId.empty()) {
    if (!config.resume)
      return fail("--run-id continues a run: give --resume too");
    if (config.noLibrary)
      return fail("--run-id reads the run's records from the experience "
                  "library: drop --no-library and give the --db that holds "
                  "them");
    if (sys::fs::exists(inOutput("candidates.jsonl")))
      return fail("--run-id: " + outputDir +
                  " already holds records (candidates.jsonl); give an empty "
                  "--output directory, or --resume alone to continue it");
    Expected<RunRecords> stored = library->runRecords(config.resumeRunId);
    if (!stored)
      return fail("--run-id: " + toString(stored.takeError()));
    if (stored->problem != features.problem)
      return fail("--run-id: run " + config.resumeRunId +
                  " searched problem '" + stored->problem + "', not '" +
                  features.problem + "'");
    std::string lines;
    for (const std::string &line : stored->records)
      lines += line + "\n";
    if (!write("run-id", config.resumeRunId + "\n") ||
        !write("library-snapshot.json", stored->snapshot + "\n") ||
        !write("candidates.jsonl", lines))
      return failure();
  }

  // Records: every candidate as it completes; --resume replays them
  // (Records.cpp). What the run searches, which a resumed run must search
  // again: the problem's text, the schedule space (the experts and a CUDA
  // source), and what decides each candidate's outcome.
  std::string space =
      llvm::join(ArrayRef<std::string>({ruleExperts ? "rules" : "",
                                        llmExperts ? "llm" : "",
                                        cudaExperts ? "cuda" : ""}),
                 ",");
  const ProblemInputOptions &input = config.input;
  json::Object identity{
      {"problem", features.problem},
      {"problem_sha256", hashOfFile(input.problemPath)},
      {"problem_name_option", input.problemName},
      {"schedule_space",
       json::Object{{"experts", space},
                    {"cuda_sha256", input.cudaPaths.empty()
                                        ? ""
                                        : hashOfFile(input.cudaPaths.front())},
                    {"launch_plan_sha256", hashOfFile(input.launchPlanPath)}}},
      {"chip", input.chip},
      {"format", input.format},
      {"trials", (int64_t)config.eval.trials},
      {"evaluator", (int64_t)config.evaluator}};
  Expected<std::unique_ptr<CandidateRecords>> openedRecords =
      CandidateRecords::open(outputDir, features.problem, config.resume,
                             identity, config.replace);
  if (!openedRecords)
    return fail(toString(openedRecords.takeError()));
  records = std::move(*openedRecords);
  runId = records->getRunId();
  evaluatorName.set(records->getRecordedEvaluator());
  // What decides the search besides the problem and the library: a resumed
  // run must be given what the run started with. Every GPU (or evaluating
  // rank) gets about one proposal per island per round, unless
  // --round-size says otherwise. Rounds overlap only where the search lets
  // them (not for script experts with repair rounds): what is kept is what
  // happens.
  settings =
      SearchSettings{config.input.seed, std::max(1u, config.islands),
                     config.roundSize.value_or(0),
                     config.overlapRounds && !((cudaExperts || llmExperts) &&
                                               config.llm.repairRounds > 0),
                     config.roundsInFlight.value_or(2)};
  if (!config.roundSize && evaluator && evaluator->width())
    settings.roundSize = config.islands * evaluator->width();
  if (config.resume) {
    errs() << "kf-evolve: resuming: " << records->numRecorded()
           << " recorded candidates";
    if (records->numUnreadable())
      errs() << " (" << records->numUnreadable()
             << " unreadable line(s) ignored)";
    errs() << "\n";
    if (auto text = MemoryBuffer::getFile(inOutput("library-snapshot.json"))) {
      Expected<json::Value> value = json::parse((*text)->getBuffer());
      if (!value)
        return fail("--resume: library-snapshot.json: " +
                    toString(value.takeError()));
      LibrarySnapshot read;
      json::Path::Root root("snapshot");
      if (!fromJSON(*value, read, root))
        return fail("--resume: library-snapshot.json is not a library "
                    "snapshot kf wrote (" +
                    toString(root.getError()) + ")");
      snapshot = std::move(read);
      // A run started before the settings were kept had rounds that did
      // not overlap: it goes on that way.
      if (!snapshot->settings && settings.overlapRounds) {
        errs() << "kf-evolve: --resume: this run predates overlapping "
                  "rounds; it continues without them\n";
        settings.overlapRounds = false;
      }
      if (snapshot->settings)
        if (std::optional<std::string> difference =
                snapshot->settings->differenceFrom(settings))
          return fail("--resume: run " + runId +
                      " was started with other search settings: give " +
                      *difference +
                      " to continue the same search, or start a new run in "
                      "another --output directory");
    }
  }

  if (!snapshot) {
    Expected<LibrarySnapshot> taken = LibrarySnapshot::take(
        *library, features, callbacks.restructure, /*limit=*/3);
    if (!taken)
      return fail(toString(taken.takeError()));
    snapshot = std::move(*taken);
    snapshot->settings = settings;
    std::string text;
    raw_string_ostream(text) << formatv("{0:2}", toJSON(*snapshot)) << "\n";
    if (!write("library-snapshot.json", text))
      return failure();
  }
  // The library keeps the run's start and a copy of its records, for
  // `--resume --run-id` elsewhere. A resumed run first fills in records a
  // kill kept from reaching it. When the library fails, the run goes on
  // without it (the records file stays complete).
  std::string snapshotText;
  raw_string_ostream(snapshotText) << toJSON(*snapshot);
  Error error = library->recordRunStart(runId, features.problem, snapshotText);
  if (!error)
    error = library->recordCandidates(runId, 0, records->lines());
  if (error)
    libraryFailed(std::move(error));
  return success();
}

void ProblemSearch::libraryFailed(Error error) {
  WithColor::warning(errs(), "kf-evolve")
      << "experience library " << library->name() << ": "
      << toString(std::move(error))
      << "; the rest of this run does not update the library\n";
  libraryWorks = false;
}

/// The CUDA experts (tuning a --cuda kernel) or the LLM experts.
LogicalResult ProblemSearch::setUpScriptExperts() {
  auto fail = [](const Twine &message) {
    reportError(message);
    return failure();
  };
  if (cudaExperts) {
    Expected<CudaLaunchSpec> plan =
        loadLaunchPlan(config.input, "a --cuda candidate");
    if (!plan)
      return fail(toString(plan.takeError()));
    Expected<ScriptExpertFn> experts =
        makeCudaScriptExperts(cudaSetup(context, config.input, loaded->spec,
                                        config.input.cudaPaths.front(), *plan),
                              sayFailure);
    if (!experts)
      return fail(toString(experts.takeError()));
    callbacks.scriptExperts = std::move(*experts);
  }
  if (!llmExperts)
    return success();
#ifdef KF_ENABLE_LLM
  const LLMSettings &given = config.llm;
  LLMConfig llmConfig;
  if (!given.configPath.empty())
    if (Error error = llmConfig.loadFile(given.configPath))
      return fail("--llm-config: " + toString(std::move(error)));
  if (given.provider) {
    std::optional<LLMProvider> provider = parseLLMProvider(*given.provider);
    if (!provider)
      return fail("--llm-provider '" + *given.provider +
                  "' is not openai or anthropic");
    llmConfig.provider = *provider;
  }
  if (given.baseUrl)
    llmConfig.baseUrl = *given.baseUrl;
  if (given.model)
    llmConfig.model = *given.model;
  if (given.temperature)
    llmConfig.temperature = *given.temperature;
  if (given.maxTokens)
    llmConfig.maxTokens = *given.maxTokens;
  if (given.timeoutSeconds)
    llmConfig.timeoutSeconds = *given.timeoutSeconds;
  if (given.concurrency)
    llmConfig.concurrency = *given.concurrency;
  if (given.budgetTokens)
    llmConfig.budgetTokens = *given.budgetTokens;
  if (given.budgetUsd)
    llmConfig.budgetDollars = *given.budgetUsd;
  llmConfig.cacheDir =
      given.cacheDir.empty() ? inOutput("llm-cache") : given.cacheDir;
  llmConfig.replay = given.replay;
  if (Error error = llmConfig.validate())
    return fail(toString(std::move(error)));
  llm.emplace(llmConfig);
  llmDescription =
      formatv("{0} {1} at {2}{3}",
              llmConfig.provider == LLMProvider::Anthropic ? "anthropic"
                                                           : "openai",
              llmConfig.model, llm->endpoint(),
              given.replay ? " (replayed from the cache)" : "")
          .str();
  llmUsage = [this] { return toJSON(llm->usage()); };
  if (auto file = MemoryBuffer::getFile(config.input.problemPath))
    problemText = (*file)->getBuffer().str();
  callbacks.scriptExperts = makeLLMScriptExperts(
      [this](StringRef system, StringRef user) -> Expected<std::string> {
        Expected<LLMAnswer> answer = llm->complete(system, user);
        if (!answer)
          return answer.takeError();
        return std::move(answer->text);
      },
      llm->getConfig().concurrency, problemText, snapshot->weights,
      llmFailures);
  return success();
#else
  return fail("this kf-evolve was built without LLM experts "
              "(KF_ENABLE_LLM=OFF, as in the portable build); use a "
              "development build");
#endif
}

/// Candidates not evaluated before (records), evaluated by the run's
/// evaluator. Two rounds may be evaluated at once
/// (SearchOptions::overlapRounds), each on its own thread.
std::vector<Outcome>
ProblemSearch::evaluate(ArrayRef<CandidateSource> candidates) {
  std::vector<Outcome> outcomes(candidates.size());
  std::vector<CandidateSource> fresh;
  std::vector<size_t> positions;
  std::unique_lock<std::mutex> store(storeMutex);
  for (auto [index, candidate] : llvm::enumerate(candidates)) {
    if (std::optional<Outcome> outcome = records->lookup(candidate.text)) {
      outcomes[index] = std::move(*outcome);
    } else {
      fresh.push_back(candidate);
      positions.push_back(index);
    }
  }
  store.unlock();
  std::vector<Outcome> evaluated = evaluator->evaluate(fresh);
  for (auto [index, outcome] : llvm::enumerate(evaluated))
    outcomes[positions[index]] = std::move(outcome);
  return outcomes;
}

/// Each candidate goes to the records (and the library's copy) as the
/// search records it: in the search's order, which overlapping rounds would
/// not give if each evaluation thread wrote what it got back, so two
/// continuations of one run write the same record numbers. Replayed
/// candidates are there already; one no rank could evaluate is not
/// recorded, so that --resume evaluates it again.
void ProblemSearch::appendRecord(const SearchCandidate &candidate) {
  std::lock_guard<std::mutex> store(storeMutex);
  if (candidate.outcome.status == CandidateStatus::EvaluatorLost ||
      records->lookup(candidate.script))
    return;
  std::string line = records->append(
      {candidate.kind, candidate.script}, candidate.outcome,
      candidate.outcome.evaluator.empty() ? evaluatorName.get()
                                          : candidate.outcome.evaluator);
  if (libraryWorks)
    if (Error error = library->recordCandidate(
            runId, unsigned(records->lines().size() - 1), line))
      libraryFailed(std::move(error));
}

/// What the library learns from a candidate: whether its mutation improved
/// on its parent, and the run's best so far. The search goes on when the
/// library fails; what it learned is lost, and said so.
void ProblemSearch::learn(const SearchCandidate &candidate,
                          const SearchResult &result) {
  std::lock_guard<std::mutex> store(storeMutex);
  if (!libraryWorks)
    return;
  Error error = Error::success();
  if (candidate.parent && candidate.action) {
    const Outcome &parent = result.candidates[*candidate.parent].outcome;
    bool improved = candidate.outcome.isCorrect() && parent.isCorrect() &&
                    candidate.outcome.seconds < parent.seconds;
    error = library->recordTry(
        runId, candidate.id, parent.triggers,
        stringifyMutationAction(*candidate.action), improved,
        improved ? parent.seconds / candidate.outcome.seconds : 0);
  }
  if (!error && result.bestIndex && recordedBest != result.bestIndex &&
      result.candidates[*result.bestIndex].hasGenome) {
    recordedBest = result.bestIndex;
    const SearchCandidate &best = result.candidates[*result.bestIndex];
    const Outcome &first = result.candidates[result.defaultIndex].outcome;
    error = library->recordBest(
        features, evaluatorName.get(), best.genome, best.outcome.seconds,
        first.isCorrect() ? first.seconds / best.outcome.seconds : 0, runId);
  }
  if (error)
    libraryFailed(std::move(error));
}

void ProblemSearch::sayProgress(const SearchCandidate &candidate,
                                const SearchResult &result) {
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  errs() << describeProgress(candidate, result, config, selfReferenced, elapsed,
                             llmUsage ? llmUsage() : json::Value(nullptr),
                             live);
}

int ProblemSearch::run() {
#ifdef KF_ENABLE_MPI
  // --mpi: rank 0 drives the search and evaluates nothing itself; every
  // other rank evaluates (compiles, checks, measures) what it is sent.
  if (cluster) {
    // A call on the work channel that never returns (none should: this is
    // a last resort) ends this rank with an error instead of a hang. Rank 0
    // records candidates as they come back, so --resume goes on.
    std::chrono::milliseconds limit(
        (int64_t)(std::max(10.0, 2 * config.mpiSilence) * 1000));
    cluster->watchForStalls(limit, [limit, rank = cluster->rank()] {
      errs() << formatv(
          "kf-evolve: error: rank {0}'s calls on the work channel have not "
          "returned for {1} s (a stall the channel should never have; "
          "docs/search.md): {2}\n",
          rank, limit.count() / 1000,
          rank == 0 ? "the job ends; what was evaluated is recorded in the "
                      "output directory: run the same command with --resume "
                      "to go on"
                    : "this rank ends");
      errs().flush();
    });
    evaluatingRank = cluster->rank() != 0;
    drivingRank = cluster->rank() == 0;
  }
#endif
  // Every rank loads the problem; only rank 0 reports what is wrong with it
  // (several ranks writing one error at once interleave it on the job's
  // stderr).
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                     evaluatingRank ? nulls() : errs());
  loaded = loadProblem(context, sourceMgr, config.input);
  if (!loaded)
    return 1;
  // A CUDA kernel with no problem file is its own reference: there is no
  // reference function to schedule, so no default schedule, no rule
  // experts and no library seeds; the kernel as written is candidate 0.
  selfReferenced = loaded->selfReferenced();
  features.problem = loaded->spec.name;
  if (!loaded->spec.inputs.empty())
    features.elementType = loaded->spec.inputs.front().elementType;
  if (!selfReferenced) {
    FailureOr<Schedule> schedule = buildDefaultSchedule(loaded->reference);
    if (failed(schedule))
      return 1;
    defaultSchedule = std::move(*schedule);
    FailureOr<SmallVector<OpShape>> shapes = describeOps(loaded->reference);
    if (failed(shapes))
      return 1;
    features.ops = *shapes;
  }
  if (failed(chooseExperts()))
    return 1;
  setUpCallbacks();

#ifdef KF_ENABLE_MPI
  // Per problem, rank 0 releases the others once and each of them serves
  // once, whatever happens on the way, so that all go on to the next
  // problem together. A rank that could not set the problem up answers
  // every request with that.
  bool served = false;
  llvm::scope_exit inStep([&] {
    if (drivingRank)
      releaseEvaluatingRanks(*cluster);
    else if (evaluatingRank && !served)
      serveSetupFailure(*cluster);
  });
#endif

  // The evaluator: the GPUs (the reference and one measurement worker per
  // GPU, each its own process) or the cost model here, or the job's
  // evaluating ranks.
  if (!drivingRank) {
    std::optional<unsigned> hostIndex;
#ifdef KF_ENABLE_MPI
    if (evaluatingRank)
      hostIndex = cluster->hostEvaluatorIndex();
#endif
    localEvaluator = LocalEvaluator::create(
        config, *loaded, evaluatorName,
        /*useGpu=*/config.evaluator != EvaluatorKind::CostModel, hostIndex);
    if (!localEvaluator)
      return 1;
    evaluator = localEvaluator.get();
  }
#ifdef KF_ENABLE_MPI
  if (evaluatingRank) {
    served = true;
    return failed(serveCandidates(*cluster, *localEvaluator, evaluatorName,
                                  config.mpiSilence))
               ? 1
               : 0;
  }
  if (drivingRank) {
    rankEvaluator = std::make_unique<RankEvaluator>(*cluster, evaluatorName);
    evaluator = rankEvaluator.get();
  }
#endif

  if (failed(openRecords()))
    return 1;
  std::vector<std::pair<std::string, Schedule>> seeds = snapshot->seeds;
  if (!selfReferenced)
    for (auto &seed : expertSeeds(defaultSchedule, callbacks.restructure))
      seeds.push_back({"expert:" + seed.first, std::move(seed.second)});
  callbacks.weight = [this](ArrayRef<std::string> triggers,
                            MutationAction action) {
    return snapshot->weights.weight(triggers, stringifyMutationAction(action));
  };
  callbacks.evaluate = [this](ArrayRef<CandidateSource> candidates) {
    return evaluate(candidates);
  };
  if (failed(setUpScriptExperts()))
    return 1;

  SearchOptions options;
  options.seed = config.input.seed;
  options.islands = config.islands;
  options.budgetEvals = config.budgetEvals;
  options.budgetSeconds = config.budgetTime;
  options.targetSpeedup = config.targetSpeedup;
  if (ruleExperts)
    options.seeds = seeds;
  options.ruleExperts = ruleExperts;
  options.baselineFromScriptExperts = selfReferenced;
  options.roundSize = settings.roundSize;
  options.repairRounds = config.llm.repairRounds;
  options.overlapRounds = settings.overlapRounds;
  options.roundsInFlight = settings.roundsInFlight;
  started = std::chrono::steady_clock::now();
  live = sys::Process::StandardErrIsDisplayed();
  callbacks.progress = [this](const SearchCandidate &candidate,
                              const SearchResult &result) {
    appendRecord(candidate);
    learn(candidate, result);
    sayProgress(candidate, result);
  };
  SearchResult result = runSearch(defaultSchedule, callbacks, options);
  if (live)
    errs() << "\n";
#ifdef KF_ENABLE_MPI
  if (cluster && cluster->liveServers() == 0)
    return reportError("every evaluating rank stopped answering; what was "
                       "evaluated is recorded in " +
                       config.outputDir + ": continue with --resume");
#endif

  SearchOutputs outputs;
  outputs.problem = &*loaded;
  outputs.result = &result;
  outputs.evaluatorName = evaluatorName.get();
  outputs.renderError = lastError;
  outputs.cudaExperts = cudaExperts;
  outputs.seedNotes = snapshot->notes;
  outputs.llmExperts = llmExperts;
  outputs.llmDescription = llmDescription;
  if (llmUsage)
    outputs.llmUsage = llmUsage();
  outputs.llmFailures = llmFailures.all();
  outputs.evaluator = evaluator;
  outputs.started = started;
  return writeSearchOutputs(config, outputs);
}

/// The problems of `config`, each into outputDir/<name>/ (problem i by
/// group i mod N with --mpi-groups), on one job's ranks.
int searchSeveralProblems(MLIRContext &context, const SearchConfig &config,
                          MpiCluster *cluster) {
  std::vector<std::string> problems = {config.input.problemPath};
  llvm::append_range(problems, config.moreProblemPaths);
  if (!config.resumeRunId.empty())
    return reportError(
        "--run-id names one problem's run: give that problem alone");
  StringMap<std::string> byName;
  for (const std::string &problem : problems) {
    if (StringRef(problem).ends_with(".cu"))
      return reportError(problem + ": a CUDA kernel is searched on its own "
                                   "(one problem per run)");
    auto [it, inserted] = byName.try_emplace(sys::path::stem(problem), problem);
    if (!inserted)
      return reportError(it->second + " and " + problem +
                         " have the same name: their outputs would share " +
                         config.outputDir + "/" + it->first() + "; rename one");
  }
  bool sayProblems = true;
  unsigned group = 0, groups = 1;
#ifdef KF_ENABLE_MPI
  if (cluster) {
    sayProblems = cluster->rank() == 0;
    group = cluster->group();
    groups = cluster->groups();
  }
#endif
  int status = 0;
  for (auto [index, problem] : llvm::enumerate(problems)) {
    if (index % groups != group)
      continue;
    SearchConfig one = config;
    one.input.problemPath = problem;
    one.moreProblemPaths.clear();
    SmallString<256> output(config.outputDir);
    sys::path::append(output, sys::path::stem(problem));
    one.outputDir = std::string(output);
    if (sayProblems)
      errs() << "kf-evolve: "
             << (groups > 1 ? formatv("group {0}: ", group).str() : "")
             << "searching " << problem << " into " << output << "\n";
    if (ProblemSearch(context, one, cluster).run() != 0)
      status = 1;
  }
  return status;
}

} // namespace

int runSearches(MLIRContext &context, SearchConfig config) {
  if (Error error = checkSearchConfig(config))
    return reportError(toString(std::move(error)));
  bool several = !config.moreProblemPaths.empty();
  if (!several) {
    // kf-evolve kernel.cu --problem p.mlir: the CUDA kernel is the
    // candidate to evolve, the problem says what it must compute. Without
    // --problem, the launch plan describes the problem and the kernel as
    // written is the reference (loadProblem says what is missing
    // otherwise).
    if (StringRef(config.input.problemPath).ends_with(".cu")) {
      if (config.input.launchPlanPath.empty())
        return reportError(config.input.problemPath +
                           " is CUDA: give its launch plan with --launch "
                           "plan.json, and the problem it solves with "
                           "--problem p.mlir or in the plan's \"problem\" "
                           "section");
      config.input.cudaPaths.push_back(config.input.problemPath);
      config.input.problemPath = config.cudaProblemPath;
    } else if (!config.cudaProblemPath.empty()) {
      return reportError(
          "--problem goes with a .cu file in place of the problem");
    }
  }
  MpiCluster *cluster = nullptr;
#ifdef KF_ENABLE_MPI
  // The job's ranks, created once and kept for every problem of the job;
  // MPI ends here, not among static destructors: the job's first rank
  // exits with the worst status of every group.
  std::unique_ptr<MpiCluster> job;
  if (config.useMpi) {
    MpiCluster::Limits limits;
    limits.silence =
        std::chrono::milliseconds((int64_t)(config.mpiSilence * 1000));
    limits.depth = config.mpiDepth;
    limits.groups = config.mpiGroups;
    Expected<std::unique_ptr<MpiCluster>> created = MpiCluster::create(limits);
    if (!created)
      return reportError(toString(created.takeError()));
    job = std::move(*created);
    cluster = job.get();
  }
#else
  if (config.useMpi)
    return reportError("--mpi: this kf-evolve was built without MPI "
                       "(KF_ENABLE_MPI=OFF, as in the portable build); build "
                       "it where an MPI is installed (Debian: "
                       "libopenmpi-dev)");
#endif
  int status = several ? searchSeveralProblems(context, config, cluster)
                       : ProblemSearch(context, config, cluster).run();
#ifdef KF_ENABLE_MPI
  if (job)
    status = job->finish(status);
#endif
  return status;
}

} // namespace kf
