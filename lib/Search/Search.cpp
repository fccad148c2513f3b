//===- Search.cpp - Multi-island evolutionary search over schedules -------===//

#include "kf/Search/Search.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <thread>

using namespace kf;

llvm::StringRef kf::stringifyCandidateKind(CandidateKind kind) {
  return kind == CandidateKind::Kernel ? "kernel" : "schedule";
}

std::string kf::describeGenome(const Schedule &genome) {
  std::string text;
  auto append = [&](llvm::StringRef part) {
    text += (text.empty() ? "" : "; ") + part.str();
  };
  if (genome.gatherSelections)
    append("selections gathered");
  if (genome.fuseElementwise)
    append("fuse");
  if (genome.foldScans)
    append("blocked scans folded");
  if (genome.convolutionsAsGemm)
    append("convolutions as im2col GEMMs");
  if (genome.interchangeLoops)
    append("loops in output order");
  if (genome.collapseReductions)
    append("collapse");
  if (genome.decomposeReductions)
    append("decompose");
  if (genome.collapseContractionLoops)
    append("collapse contraction loops");
  if (genome.transposeProducts)
    append("short products transposed");
  if (genome.fuseEpilogues)
    append("fused epilogues");
  if (genome.commuteSums)
    append("row sums through contractions");
  if (genome.splitSoftmaxStatistics)
    append("softmax statistics per chunk");
  if (genome.padContractions)
    append("contractions padded to tiles");
  if (genome.kOuterCopies != KOuterCopies::None)
    append(("K-outer copies of " +
            llvm::StringRef(genome.kOuterCopies == KOuterCopies::AB ? "A and B"
                                                                    : "B"))
               .str());
  for (auto [index, factor] : llvm::enumerate(genome.splitFactors))
    if (factor > 0)
      append(llvm::formatv("split op{0} {1} ways", index, factor).str());
  if (genome.fuseReductions)
    append("reductions in their consumers' kernels");
  for (auto [index, op] : llvm::enumerate(genome.ops)) {
    if (op.contraction.isSet()) {
      const ContractionTile &tile = op.contraction;
      std::string part =
          llvm::formatv("op{0}: GEMM kernel {1}x{2}x{3}, {4}x{5} per "
                        "thread, {6} stages",
                        index, tile.blockM, tile.blockN, tile.blockK,
                        tile.threadM, tile.threadN, tile.stages)
              .str();
      if (tile.blockGroup > 1)
        part += llvm::formatv(", blocks in groups of {0} rows", tile.blockGroup)
                    .str();
      if (!tile.interleave)
        part += ", operand tiles not interleaved";
      append(part);
      continue;
    }
    std::string part = llvm::formatv("op{0}: block {1} threads {2}", index,
                                     llvm::interleaved_array(op.blockTile),
                                     llvm::interleaved_array(op.threads))
                           .str();
    if (op.vectorWidth > 1)
      part += llvm::formatv(" vector {0}", op.vectorWidth).str();
    if (op.reductionStep > 0)
      part += llvm::formatv(" step {0}", op.reductionStep).str();
    if (op.stageTile > 0)
      part += llvm::formatv(" stage {0}", op.stageTile).str();
    if (op.reductionLanes > 0)
      part += llvm::formatv(" lanes {0}", op.reductionLanes).str();
    append(part);
  }
  return text;
}

llvm::json::Value kf::toJSON(const CandidateSource &candidate) {
  return llvm::json::Object{{"kind", stringifyCandidateKind(candidate.kind)},
                            {"text", candidate.text}};
}

bool kf::fromJSON(const llvm::json::Value &value, CandidateSource &candidate,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  std::string kind;
  if (!mapper || !mapper.map("kind", kind) ||
      !mapper.map("text", candidate.text))
    return false;
  if (kind != "schedule" && kind != "kernel") {
    path.field("kind").report("expected schedule or kernel");
    return false;
  }
  candidate.kind =
      kind == "kernel" ? CandidateKind::Kernel : CandidateKind::Schedule;
  return true;
}

Outcome Outcome::failed(CandidateStatus status, std::string error,
                        std::string stage) {
  Outcome outcome;
  outcome.status = status;
  outcome.error = std::move(error);
  outcome.stage = std::move(stage);
  return outcome;
}

llvm::json::Value kf::toJSON(const Outcome &outcome) {
  return llvm::json::Object{{"status", outcome.statusText()},
                            {"seconds", outcome.seconds},
                            {"triggers", outcome.triggers},
                            {"error", outcome.error},
                            {"kernels", (int64_t)outcome.kernels},
                            {"global_bytes", outcome.globalBytes}};
}

bool kf::fromJSON(const llvm::json::Value &value, Outcome &outcome,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  std::string status;
  if (!mapper || !mapper.map("status", status))
    return false;
  if (!parseStatus(status, outcome.status, outcome.stage)) {
    path.field("status").report("unknown status");
    return false;
  }
  return mapper.map("seconds", outcome.seconds) &&
         mapper.mapOptional("triggers", outcome.triggers) &&
         mapper.mapOptional("error", outcome.error) &&
         mapper.mapOptional("kernels", outcome.kernels) &&
         mapper.mapOptional("global_bytes", outcome.globalBytes);
}

llvm::json::Value kf::toJSON(const SearchCandidate &candidate) {
  llvm::json::Object object{{"id", candidate.id},
                            {"island", candidate.island},
                            {"expert", candidate.expert},
                            {"change", candidate.change},
                            {"kind", stringifyCandidateKind(candidate.kind)},
                            {"status", candidate.outcome.statusText()},
                            {"seconds", candidate.outcome.seconds},
                            {"triggers", candidate.outcome.triggers}};
  if (candidate.outcome.kernels) {
    object["kernels"] = (int64_t)candidate.outcome.kernels;
    object["global_bytes"] = candidate.outcome.globalBytes;
  }
  if (candidate.hasGenome) {
    object["genome"] = describeGenome(candidate.genome);
    object["schedule"] = toJSON(candidate.genome);
  }
  if (!candidate.outcome.error.empty())
    object["error"] = candidate.outcome.error;
  if (candidate.repairDepth)
    object["repair_depth"] = candidate.repairDepth;
  if (candidate.parent)
    object["parent"] = *candidate.parent;
  if (candidate.action)
    object["action"] = stringifyMutationAction(*candidate.action);
  return object;
}

namespace {
/// The structure genes alone, as a key.
std::string structureKey(const Schedule &genome) {
  Schedule structure = genome;
  structure.ops.clear();
  std::string key;
  llvm::raw_string_ostream os(key);
  os << toJSON(structure);
  return key;
}
} // namespace

llvm::json::Value kf::toJSON(const SearchSettings &settings) {
  return llvm::json::Object{{"seed", static_cast<int64_t>(settings.seed)},
                            {"islands", settings.islands},
                            {"round_size", settings.roundSize},
                            {"overlap_rounds", settings.overlapRounds},
                            {"rounds_in_flight", settings.roundsInFlight}};
}

bool kf::fromJSON(const llvm::json::Value &value, SearchSettings &settings,
                  llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object) {
    path.report("expected an object");
    return false;
  }
  std::optional<int64_t> seed = object->getInteger("seed"),
                         islands = object->getInteger("islands"),
                         roundSize = object->getInteger("round_size");
  std::optional<bool> overlap = object->getBoolean("overlap_rounds");
  // Runs started before rounds in flight were a setting held two.
  int64_t inFlight = object->getInteger("rounds_in_flight").value_or(2);
  if (!seed || !islands || *islands < 1 || !roundSize || *roundSize < 0 ||
      !overlap || inFlight < 2) {
    path.report("expected seed, islands (>= 1), round_size (>= 0), "
                "overlap_rounds and rounds_in_flight (>= 2)");
    return false;
  }
  settings = SearchSettings{static_cast<uint64_t>(*seed),
                            static_cast<unsigned>(*islands),
                            static_cast<unsigned>(*roundSize), *overlap,
                            static_cast<unsigned>(inFlight)};
  return true;
}

std::optional<std::string>
SearchSettings::differenceFrom(const SearchSettings &given) const {
  llvm::SmallVector<std::string> differences;
  if (given.seed != seed)
    differences.push_back("--seed " + std::to_string(seed));
  if (given.islands != islands)
    differences.push_back("--islands " + std::to_string(islands));
  if (given.roundSize != roundSize)
    differences.push_back("--round-size " + std::to_string(roundSize));
  if (given.overlapRounds != overlapRounds)
    differences.push_back(std::string("--overlap-rounds=") +
                          (overlapRounds ? "true" : "false"));
  if (overlapRounds && given.roundsInFlight != roundsInFlight)
    differences.push_back("--rounds-in-flight " +
                          std::to_string(roundsInFlight));
  if (differences.empty())
    return std::nullopt;
  return llvm::join(differences, " ");
}

SearchResult kf::runSearch(const Schedule &defaultSchedule,
                           const SearchCallbacks &callbacks,
                           const SearchOptions &options) {
  SearchResult result;
  std::mt19937_64 rng(options.seed);
  // Rule experts and seeds mutate the default schedule: none without one.
  bool ruleExperts = options.ruleExperts && !options.baselineFromScriptExperts;
  unsigned islands = std::max(1u, options.islands);
  // Each island: indices into result.candidates, best first.
  std::vector<std::vector<unsigned>> populations(islands);
  llvm::StringSet<> seen; // rendered scripts: deduplication
  llvm::StringMap<std::optional<Restructured>> structures;
  auto structureOf =
      [&](const Schedule &genome) -> const std::optional<Restructured> & {
    auto [it, inserted] = structures.try_emplace(structureKey(genome));
    if (inserted)
      it->second = callbacks.restructure(genome);
    return it->second;
  };
  auto started = std::chrono::steady_clock::now();
  auto outOfTime = [&] {
    return options.budgetSeconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         started)
                   .count() >= options.budgetSeconds;
  };

  auto better = [&](unsigned a, unsigned b) {
    const Outcome &x = result.candidates[a].outcome;
    const Outcome &y = result.candidates[b].outcome;
    return x.seconds < y.seconds;
  };
  auto admit = [&](unsigned island, unsigned index) {
    std::vector<unsigned> &population = populations[island];
    if (llvm::is_contained(population, index))
      return;
    population.push_back(index);
    std::stable_sort(population.begin(), population.end(), better);
    if (population.size() > options.populationSize)
      population.resize(options.populationSize);
  };
  auto record = [&](SearchCandidate candidate, Outcome outcome) {
    candidate.id = result.candidates.size();
    candidate.outcome = std::move(outcome);
    result.candidates.push_back(std::move(candidate));
    unsigned index = result.candidates.size() - 1;
    const SearchCandidate &stored = result.candidates.back();
    if (stored.outcome.isCorrect()) {
      admit(stored.island, index);
      if (!result.bestIndex || better(index, *result.bestIndex))
        result.bestIndex = index;
    }
    if (callbacks.progress)
      callbacks.progress(stored, result);
  };
  // A batch handed to the evaluator, which runs on a thread of its own so
  // that the search can propose (and the evaluator compile) the next round
  // meanwhile.
  struct PendingBatch {
    std::vector<SearchCandidate> candidates;
    std::vector<Outcome> outcomes;
    std::thread evaluator;
  };
  auto submit = [&](std::vector<SearchCandidate> batch) {
    auto pending = std::make_unique<PendingBatch>();
    std::vector<CandidateSource> sources;
    for (const SearchCandidate &candidate : batch)
      sources.push_back({candidate.kind, candidate.script});
    pending->candidates = std::move(batch);
    pending->evaluator =
        std::thread([&evaluate = callbacks.evaluate, target = pending.get(),
                     sources = std::move(sources)] {
          target->outcomes = evaluate(sources);
        });
    return pending;
  };
  // Waits for a batch and records all of it in order (it was evaluated);
  // false when `afterEach` said to stop (it is not asked again for the rest
  // of the batch).
  auto collect = [&](std::unique_ptr<PendingBatch> pending,
                     const std::function<bool()> &afterEach) {
    pending->evaluator.join();
    assert(pending->outcomes.size() == pending->candidates.size() &&
           "one outcome per script");
    bool goOn = true;
    for (auto [candidate, outcome] :
         llvm::zip_equal(pending->candidates, pending->outcomes)) {
      record(std::move(candidate), std::move(outcome));
      if (goOn && afterEach && !afterEach())
        goOn = false;
    }
    return goOn;
  };
  auto evaluateAll = [&](std::vector<SearchCandidate> batch,
                         const std::function<bool()> &afterEach) {
    return collect(submit(std::move(batch)), afterEach);
  };

  // A script expert's answer to `request` as a candidate (text, no genome).
  auto fromProposal = [](const ScriptRequest &request,
                         ScriptProposal proposal) {
    SearchCandidate candidate;
    candidate.island = request.island;
    candidate.parent = request.parent;
    candidate.expert = std::move(proposal.expert);
    candidate.change = std::move(proposal.change);
    candidate.hasGenome = false;
    candidate.kind = proposal.kind;
    candidate.script = std::move(proposal.text);
    return candidate;
  };

  // The baseline first: the default schedule, or, with no reference to
  // schedule, the script experts' first proposal (a CUDA kernel as
  // written).
  SearchCandidate first;
  if (options.baselineFromScriptExperts) {
    std::vector<std::optional<ScriptProposal>> answers =
        callbacks.scriptExperts
            ? callbacks.scriptExperts({ScriptRequest()}, result)
            : std::vector<std::optional<ScriptProposal>>();
    if (answers.empty() || !answers.front()) {
      result.stopReason = "exhausted";
      return result;
    }
    first = fromProposal(ScriptRequest(), std::move(*answers.front()));
  } else {
    std::optional<std::string> defaultScript =
        callbacks.render(defaultSchedule);
    if (!defaultScript) {
      result.stopReason = "exhausted";
      return result;
    }
    first.expert = "default";
    first.genome = defaultSchedule;
    first.script = std::move(*defaultScript);
  }
  seen.insert(first.script);

  // Seeds next, spread over the islands, in the same batch as the baseline
  // (recorded after it), so that several GPUs measure them at once; each
  // island then starts from the best so far.
  std::vector<SearchCandidate> seedBatch;
  seedBatch.push_back(std::move(first));
  // Seeds are genomes: none without a default schedule.
  llvm::ArrayRef<std::pair<std::string, Schedule>> seeds =
      options.baselineFromScriptExperts
          ? llvm::ArrayRef<std::pair<std::string, Schedule>>()
          : llvm::ArrayRef(options.seeds);
  for (auto [index, seed] : llvm::enumerate(seeds)) {
    if (seedBatch.size() >= options.budgetEvals || outOfTime())
      break;
    std::optional<std::string> script = callbacks.render(seed.second);
    if (!script || !seen.insert(*script).second)
      continue;
    SearchCandidate candidate;
    candidate.island = index % islands;
    candidate.expert = "seed:" + seed.first;
    candidate.genome = seed.second;
    candidate.script = std::move(*script);
    seedBatch.push_back(std::move(candidate));
  }
  // With a time budget the baseline goes first, on its own: when it alone
  // outlasts the budget (a slow default schedule), no seed is started after
  // it. Without one, the seeds share its batch (several GPUs at once).
  if (options.budgetSeconds > 0 && seedBatch.size() > 1) {
    std::vector<SearchCandidate> seedsAfter(
        std::make_move_iterator(seedBatch.begin() + 1),
        std::make_move_iterator(seedBatch.end()));
    seedBatch.resize(1);
    evaluateAll(std::move(seedBatch), {});
    if (!outOfTime())
      evaluateAll(std::move(seedsAfter), {});
  } else {
    evaluateAll(std::move(seedBatch), {});
  }
  result.defaultIndex = 0;
  if (result.bestIndex)
    for (unsigned island = 0; island < islands; ++island)
      admit(island, *result.bestIndex);

  double defaultSeconds = result.candidates[0].outcome.isCorrect()
                              ? result.candidates[0].outcome.seconds
                              : 0;
  // Parent: binary tournament in the island (exploitation), or a random
  // member one time in four (exploration); none when the island has no
  // member (with a genome, when `genomesOnly`).
  auto selectParent = [&](unsigned island,
                          bool genomesOnly) -> std::optional<unsigned> {
    std::vector<unsigned> population;
    for (unsigned index : populations[island])
      if (!genomesOnly || result.candidates[index].hasGenome)
        population.push_back(index);
    if (population.empty())
      return std::nullopt;
    std::uniform_int_distribution<size_t> any(0, population.size() - 1);
    unsigned a = population[any(rng)], b = population[any(rng)];
    bool explore = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
    return explore ? a : (better(a, b) ? a : b);
  };

  // One island's proposal: a parent by tournament, an action weighted by
  // the library, a mutation; std::nullopt when nothing new came of it.
  auto propose = [&](unsigned island) -> std::optional<SearchCandidate> {
    auto focus = static_cast<ExpertFocus>(island % 4);
    // Rule experts mutate genomes: a script expert's candidate is no parent
    // for them.
    std::optional<unsigned> parent = selectParent(island, /*genomesOnly=*/true);
    const Schedule &base =
        parent ? result.candidates[*parent].genome : defaultSchedule;
    const std::optional<Restructured> &structure = structureOf(base);
    if (!structure)
      return std::nullopt;
    // The expert's action: weighted by what worked for parents diagnosed
    // like this one (uniform without a library).
    llvm::ArrayRef<MutationAction> actions = actionsOf(focus);
    llvm::ArrayRef<std::string> triggers =
        result.candidates[parent ? *parent : 0].outcome.triggers;
    llvm::SmallVector<double> weights;
    for (MutationAction action : actions)
      weights.push_back(callbacks.weight ? callbacks.weight(triggers, action)
                                         : 1.0);
    // Actions in weighted random order until one applies.
    std::optional<Proposal> proposal;
    while (!proposal && llvm::any_of(weights, [](double w) { return w > 0; })) {
      size_t chosen = std::discrete_distribution<size_t>(weights.begin(),
                                                         weights.end())(rng);
      weights[chosen] = 0;
      proposal = proposeMutation(base, *structure, actions[chosen], rng,
                                 callbacks.restructure);
    }
    // The structure expert also tunes two parameters at once when no
    // rewrite applies.
    if (!proposal && focus == ExpertFocus::Structure) {
      proposal = proposeMutation(
          base, *structure,
          pickRandom<MutationAction>({MutationAction::VectorWidth,
                                      MutationAction::ReductionStep,
                                      MutationAction::Threads},
                                     rng),
          rng, callbacks.restructure);
      if (proposal)
        if (std::optional<Proposal> second = proposeMutation(
                proposal->genome, *structure, MutationAction::Threads, rng,
                callbacks.restructure)) {
          second->change = proposal->change + "; " + second->change;
          second->action = proposal->action;
          proposal = std::move(second);
        }
    }
    if (!proposal)
      return std::nullopt;
    std::optional<std::string> script = callbacks.render(proposal->genome);
    if (!script)
      return std::nullopt; // does not fit the reference: not an evaluation
    if (!seen.insert(*script).second) {
      ++result.duplicatesSkipped;
      return std::nullopt;
    }
    SearchCandidate candidate;
    candidate.island = island;
    candidate.parent = parent;
    candidate.expert = stringifyExpertFocus(focus).str();
    candidate.action = proposal->action;
    candidate.change = proposal->change;
    candidate.genome = std::move(proposal->genome);
    candidate.script = std::move(*script);
    return candidate;
  };

  unsigned attempts = 0, emptyRounds = 0;
  // Per island: its best when last seen, and its evaluations since it
  // improved (stagnation).
  std::vector<std::optional<unsigned>> lastIslandBest(islands);
  std::vector<unsigned> sinceImprovement(islands, 0);
  auto afterEach = [&] {
    // Ring migration: every island's best goes to the next island.
    if (options.migrationInterval &&
        result.candidates.size() % options.migrationInterval == 0)
      for (unsigned from = 0; from < islands; ++from)
        if (!populations[from].empty())
          admit((from + 1) % islands, populations[from].front());
    // A stagnating island (no better best over its last evaluations)
    // gets the overall best at once.
    const SearchCandidate &latest = result.candidates.back();
    unsigned island = latest.island;
    std::optional<unsigned> islandBest =
        populations[island].empty()
            ? std::nullopt
            : std::optional<unsigned>(populations[island].front());
    if (islandBest != lastIslandBest[island]) {
      lastIslandBest[island] = islandBest;
      sinceImprovement[island] = 0;
    } else if (options.stagnationLimit &&
               ++sinceImprovement[island] >= options.stagnationLimit) {
      sinceImprovement[island] = 0;
      if (result.bestIndex && islandBest != result.bestIndex) {
        admit(island, *result.bestIndex);
        lastIslandBest[island] = populations[island].front();
        ++result.stagnationMigrations;
      }
    }
    if (options.targetSpeedup > 0 && defaultSeconds > 0 && result.bestIndex &&
        defaultSeconds / result.candidates[*result.bestIndex].outcome.seconds >=
            options.targetSpeedup) {
      result.stopReason = "target";
      return false;
    }
    return true;
  };
  bool overlap = options.overlapRounds &&
                 !(callbacks.scriptExperts && options.repairRounds);
  // With overlapping rounds: the rounds the evaluator has, oldest first,
  // not yet recorded.
  std::deque<std::unique_ptr<PendingBatch>> inFlight;
  unsigned roundsInFlight = std::max(2u, options.roundsInFlight);
  auto numInFlight = [&] {
    size_t count = 0;
    for (const std::unique_ptr<PendingBatch> &pending : inFlight)
      count += pending->candidates.size();
    return count;
  };
  auto collectOldest = [&] {
    std::unique_ptr<PendingBatch> oldest = std::move(inFlight.front());
    inFlight.pop_front();
    return collect(std::move(oldest), afterEach);
  };
  result.stopReason = "budget";
  bool stop = false;
  while (!stop &&
         result.candidates.size() + numInFlight() < options.budgetEvals) {
    if (attempts >= 20 * options.budgetEvals) {
      result.stopReason = "exhausted";
      break;
    }
    if (outOfTime()) {
      result.stopReason = "time";
      break;
    }
    // One round: every island proposes from the populations as they stand
    // (so the round's members can be compiled in parallel); islands whose
    // neighbourhood is used up (only duplicates left) do not hold the
    // others back.
    std::vector<SearchCandidate> batch;
    auto room = [&] {
      return result.candidates.size() + numInFlight() + batch.size() <
             options.budgetEvals;
    };
    std::vector<ScriptRequest> requests;
    unsigned roundSize = std::max(islands, options.roundSize);
    for (unsigned turn = 0; turn < roundSize; ++turn) {
      if (!room())
        break;
      unsigned island = attempts++ % islands;
      if (ruleExperts)
        if (std::optional<SearchCandidate> candidate = propose(island))
          batch.push_back(std::move(*candidate));
      if (callbacks.scriptExperts)
        requests.push_back({island, static_cast<ExpertFocus>(island % 4),
                            selectParent(island, /*genomesOnly=*/false),
                            /*repair=*/false});
    }
    // Script experts answer the round's requests together (concurrently).
    auto addScripts = [&](llvm::ArrayRef<ScriptRequest> asked) {
      std::vector<std::optional<ScriptProposal>> answers =
          callbacks.scriptExperts(asked, result);
      for (auto [request, answer] : llvm::zip_equal(asked, answers)) {
        if (!answer || !room())
          continue;
        if (!seen.insert(answer->text).second) {
          ++result.duplicatesSkipped;
          continue;
        }
        SearchCandidate candidate = fromProposal(request, std::move(*answer));
        if (request.repair && request.parent)
          candidate.repairDepth =
              result.candidates[*request.parent].repairDepth + 1;
        batch.push_back(std::move(candidate));
      }
    };
    if (!requests.empty())
      addScripts(requests);
    if (batch.empty()) {
      // The round in flight may open new neighbourhoods: it is recorded
      // before the search gives up.
      if (!inFlight.empty()) {
        stop = !collectOldest();
        continue;
      }
      // Script experts alone that keep answering nothing (an endpoint that
      // is down, a model that writes no code) end the search.
      if (!ruleExperts && ++emptyRounds >= 3) {
        result.stopReason = "exhausted";
        break;
      }
      continue;
    }
    emptyRounds = 0;
    if (overlap) {
      // This round goes to the evaluator before the ones in flight are
      // recorded: it compiles while they are measured. The oldest is
      // recorded once the evaluator holds as many rounds as it may.
      inFlight.push_back(submit(std::move(batch)));
      if (inFlight.size() >= roundsInFlight)
        stop = !collectOldest();
      continue;
    }
    size_t first = result.candidates.size();
    stop = !evaluateAll(std::move(batch), afterEach);
    // Repair rounds: script candidates that did not compile go back to
    // their expert with the error, while the budget lasts.
    for (unsigned round = 0;
         !stop && callbacks.scriptExperts && round < options.repairRounds;
         ++round) {
      std::vector<ScriptRequest> repairs;
      for (size_t index = first; index < result.candidates.size(); ++index) {
        const SearchCandidate &candidate = result.candidates[index];
        if (!candidate.hasGenome &&
            candidate.repairDepth < options.repairRounds &&
            isCompileFailure(candidate.outcome.status))
          repairs.push_back({candidate.island,
                             static_cast<ExpertFocus>(candidate.island % 4),
                             static_cast<unsigned>(index), /*repair=*/true});
      }
      if (repairs.empty())
        break;
      batch.clear();
      first = result.candidates.size();
      addScripts(repairs);
      if (batch.empty())
        break;
      stop = !evaluateAll(std::move(batch), afterEach);
    }
  }
  // The rounds in flight were evaluated: they are recorded, in order,
  // whatever stopped the search (and may reach the target).
  while (!inFlight.empty())
    collectOldest();
  return result;
}
