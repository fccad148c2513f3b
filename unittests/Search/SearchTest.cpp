//===- SearchTest.cpp - The evolutionary loop on a synthetic evaluator ----===//

#include "kf/Search/Search.h"

#include "gtest/gtest.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace kf;

namespace {

/// One elementwise op on 256 x 4096 and one row reduction over 4096.
llvm::SmallVector<OpShape> shapes() {
  return {OpShape{{256, 4096}, 0}, OpShape{{256}, 4096, 1}};
}

Schedule defaultGenome() {
  Schedule schedule;
  OpSchedule elementwise;
  elementwise.blockTile = {4, 64};
  elementwise.threads = {4, 64};
  OpSchedule reduction;
  reduction.blockTile = {64};
  reduction.threads = {64};
  schedule.ops = {elementwise, reduction};
  return schedule;
}

/// A synthetic evaluator: faster with vector width 4 and reduction steps,
/// a little slower with a split (only the first op and the final reduction
/// count), and a "compile error" above 512 threads per block;
/// deterministic.
Outcome syntheticTime(const Schedule &genome) {
  double seconds = genome.splitFactors.empty() ? 10 : 11;
  for (const OpSchedule &op : genome.ops) {
    int64_t threads = 1;
    for (int64_t t : op.threads)
      threads *= std::max<int64_t>(1, t);
    if (threads > 512)
      return {CandidateStatus::CompileError, 0, {}};
  }
  for (const OpSchedule *op : {&genome.ops.front(), &genome.ops.back()}) {
    seconds -= op->vectorWidth == 4 ? 3 : 0;
    seconds -= op->reductionStep == 8 ? 4 : 0;
  }
  return {CandidateStatus::Correct, seconds, {}};
}

/// Of the synthetic problem's structure genes only splitting the reduction
/// applies: it becomes a fill, a partial reduction and a combine.
std::optional<Restructured> restructure(const Schedule &genome) {
  if (genome.fuseElementwise || genome.collapseReductions ||
      genome.decomposeReductions)
    return std::nullopt;
  Restructured result{shapes(), shapes(), defaultGenome().ops};
  int64_t factor = genome.splitFactors.empty() ? 0 : genome.splitFactors[1];
  if (factor == 0)
    return result;
  OpSchedule mapped;
  mapped.blockTile = {4, 64};
  mapped.threads = {4, 64};
  result.shapes = {shapes()[0], OpShape{{256, factor}, 0},
                   OpShape{{256, factor}, 4096 / factor, 1},
                   OpShape{{256}, factor, 1}};
  result.defaults = {defaultGenome().ops[0], mapped, mapped,
                     defaultGenome().ops[1]};
  return result;
}

/// `beforeEvaluate` sees each batch before it is evaluated (e.g. to count
/// it, or to let time pass); two may run at once (overlapping rounds).
using BatchHook = std::function<void(llvm::ArrayRef<CandidateSource>)>;
SearchResult runSynthetic(const SearchOptions &options,
                          ActionWeightFn weight = {},
                          BatchHook beforeEvaluate = {}) {
  // The genome travels as its description, standing in for a script. The
  // evaluator reads it on its own thread while the next round renders.
  std::map<std::string, Schedule> byScript;
  std::mutex scriptsMutex;
  RenderFn render = [&](const Schedule &genome) -> std::optional<std::string> {
    std::string text = describeGenome(genome);
    std::lock_guard<std::mutex> lock(scriptsMutex);
    byScript[text] = genome;
    return text;
  };
  EvaluateFn evaluate = [&](llvm::ArrayRef<CandidateSource> candidates) {
    if (beforeEvaluate)
      beforeEvaluate(candidates);
    std::vector<Outcome> outcomes;
    std::lock_guard<std::mutex> lock(scriptsMutex);
    for (const CandidateSource &candidate : candidates)
      outcomes.push_back(syntheticTime(byScript.at(candidate.text)));
    return outcomes;
  };
  return runSearch(defaultGenome(), {render, evaluate, restructure, weight, {}},
                   options);
}

SearchResult runSynthetic(uint64_t seed, unsigned budget,
                          ActionWeightFn weight = {}) {
  SearchOptions options;
  options.seed = seed;
  options.budgetEvals = budget;
  return runSynthetic(options, std::move(weight));
}

TEST(Search, FindsTheFastestGenomesWithinItsBudget) {
  SearchResult result = runSynthetic(7, 60);
  ASSERT_TRUE(result.bestIndex);
  EXPECT_EQ(result.candidates.size(), 60u);
  EXPECT_EQ(result.candidates[result.defaultIndex].expert, "default");
  // Vector width 4 on both ops and step 8 on the reduction: 10 - 3 - 3 - 4.
  EXPECT_DOUBLE_EQ(result.candidates[*result.bestIndex].outcome.seconds, 0);
  const Schedule &best = result.candidates[*result.bestIndex].genome;
  EXPECT_EQ(best.ops[0].vectorWidth, 4);
  EXPECT_EQ(best.ops[1].reductionStep, 8);
}

TEST(Search, IsReproducibleWithASeedAndVariesWithout) {
  SearchResult a = runSynthetic(11, 30), b = runSynthetic(11, 30),
               c = runSynthetic(12, 30);
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    EXPECT_EQ(a.candidates[i].script, b.candidates[i].script) << i;
  bool differs = false;
  for (size_t i = 0; i < std::min(a.candidates.size(), c.candidates.size());
       ++i)
    differs |= a.candidates[i].script != c.candidates[i].script;
  EXPECT_TRUE(differs);
}

TEST(Search, NeverEvaluatesAScriptTwice) {
  SearchResult result = runSynthetic(3, 80);
  std::set<std::string> scripts;
  for (const SearchCandidate &candidate : result.candidates)
    EXPECT_TRUE(scripts.insert(candidate.script).second) << candidate.script;
}

TEST(Search, RoundsHoldRoundSizeProposals) {
  // Batches as the evaluator sees them: after the default (and no seeds),
  // each round's proposals arrive together.
  auto batchSizes = [](unsigned roundSize) {
    std::vector<size_t> sizes;
    std::mutex mutex;
    SearchOptions options;
    // A seed at which some four-proposal round has no duplicate (which
    // depends on the random stream; the reduction-lanes action changed it).
    options.seed = 6;
    options.budgetEvals = 33;
    options.roundSize = roundSize;
    runSynthetic(options, {}, [&](llvm::ArrayRef<CandidateSource> batch) {
      std::lock_guard<std::mutex> lock(mutex);
      sizes.push_back(batch.size());
    });
    return sizes;
  };
  std::vector<size_t> four = batchSizes(0), eight = batchSizes(8);
  EXPECT_EQ(four.front(), 1u); // the default alone
  EXPECT_EQ(*std::max_element(four.begin(), four.end()), 4u);
  // Duplicates are dropped from a round, so a round may hold fewer.
  EXPECT_GT(*std::max_element(eight.begin(), eight.end()), 4u);
  EXPECT_LE(*std::max_element(eight.begin(), eight.end()), 8u);
  EXPECT_LT(eight.size(), four.size());
}

TEST(Search, OverlappingRoundsEvaluateTwoRoundsAtOnce) {
  // The evaluator holds each batch a little; with overlapping rounds the
  // next round arrives while it does (so it can compile while the GPUs
  // measure), never more than two at once, and the budget still holds.
  auto run = [](bool overlap, unsigned &mostAtOnce, unsigned inFlight = 2) {
    std::atomic<unsigned> inside{0};
    std::atomic<unsigned> most{0};
    SearchOptions options;
    options.seed = 9;
    options.budgetEvals = 41;
    options.overlapRounds = overlap;
    options.roundsInFlight = inFlight;
    SearchResult result =
        runSynthetic(options, {}, [&](llvm::ArrayRef<CandidateSource>) {
          unsigned now = ++inside;
          unsigned seen = most.load();
          while (now > seen && !most.compare_exchange_weak(seen, now))
            ;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          --inside;
        });
    mostAtOnce = most;
    return result;
  };
  unsigned overlapped = 0, serial = 0, three = 0, threeAgain = 0;
  SearchResult a = run(true, overlapped), b = run(true, overlapped);
  run(false, serial);
  EXPECT_EQ(overlapped, 2u);
  EXPECT_EQ(serial, 1u);
  // Three rounds in flight: as many at once, and again one run per seed.
  SearchResult c = run(true, three, 3), d = run(true, threeAgain, 3);
  EXPECT_EQ(three, 3u);
  EXPECT_EQ(c.candidates.size(), 41u);
  ASSERT_EQ(c.candidates.size(), d.candidates.size());
  for (size_t i = 0; i < c.candidates.size(); ++i)
    EXPECT_EQ(c.candidates[i].script, d.candidates[i].script) << i;
  // Proposals depend only on rounds already recorded: the same seed gives
  // the same run, however the evaluations interleave.
  EXPECT_EQ(a.candidates.size(), 41u);
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    EXPECT_EQ(a.candidates[i].script, b.candidates[i].script) << i;
}

TEST(Search, ATargetStopRecordsEveryEvaluatedCandidate) {
  // Regression: a round that reached the target mid-way dropped the rest
  // of its candidates (evaluated, never recorded), while the round in
  // flight after it was recorded.
  for (bool overlap : {true, false}) {
    std::atomic<size_t> evaluated{0};
    SearchOptions options;
    options.seed = 4;
    options.budgetEvals = 200;
    options.targetSpeedup = 1.3; // one 4-wide vector: 10 s -> 7 s
    options.overlapRounds = overlap;
    SearchResult result =
        runSynthetic(options, {}, [&](llvm::ArrayRef<CandidateSource> batch) {
          evaluated += batch.size();
        });
    EXPECT_EQ(result.stopReason, "target") << overlap;
    EXPECT_LT(result.candidates.size(), 200u) << overlap;
    EXPECT_EQ(result.candidates.size(), evaluated) << overlap;
  }
}

TEST(Search, AScriptExpertsFirstAnswerCanBeTheBaseline) {
  // No default schedule: candidate 0 is the script experts' answer to a
  // request without a parent; rule experts and seeds stay out.
  unsigned asked = 0;
  ScriptExpertFn experts = [&](llvm::ArrayRef<ScriptRequest> requests,
                               const SearchResult &) {
    std::vector<std::optional<ScriptProposal>> answers;
    for (const ScriptRequest &request : requests) {
      ScriptProposal proposal;
      proposal.kind = CandidateKind::Kernel;
      proposal.text = "kernel " + std::to_string(asked++);
      proposal.change = asked == 1 ? "as written" : "tuned";
      proposal.expert = "cuda:" + stringifyExpertFocus(request.focus).str();
      answers.push_back(std::move(proposal));
    }
    return answers;
  };
  EvaluateFn evaluate = [&](llvm::ArrayRef<CandidateSource> candidates) {
    std::vector<Outcome> outcomes;
    for (const CandidateSource &candidate : candidates) {
      EXPECT_EQ(candidate.kind, CandidateKind::Kernel);
      outcomes.push_back({CandidateStatus::Correct,
                          100.0 - candidate.text.size() - asked,
                          {}});
    }
    return outcomes;
  };
  SearchOptions options;
  options.budgetEvals = 9;
  options.baselineFromScriptExperts = true;
  options.seeds = {{"never", defaultGenome()}};
  SearchResult result =
      runSearch(Schedule(),
                {RenderFn(), evaluate, restructure, {}, {}, experts}, options);
  ASSERT_EQ(result.candidates.size(), 9u);
  EXPECT_EQ(result.defaultIndex, 0u);
  EXPECT_EQ(result.candidates[0].change, "as written");
  EXPECT_EQ(result.candidates[0].script, "kernel 0");
  for (const SearchCandidate &candidate : result.candidates)
    EXPECT_FALSE(candidate.hasGenome) << candidate.id;
}

TEST(Search, MutationsKeepVectorizedTilesDividingTheirLoops) {
  std::mt19937_64 rng(5);
  llvm::SmallVector<OpShape> oddShapes = {OpShape{{16, 100}, 0}};
  Restructured odd{oddShapes, oddShapes, {}};
  Schedule genome;
  OpSchedule op;
  op.blockTile = {4, 64};
  op.threads = {4, 64};
  genome.ops = {op};
  for (int i = 0; i < 50; ++i) {
    std::optional<Proposal> proposal = proposeMutation(
        genome, odd, MutationAction::VectorWidth, rng, restructure);
    ASSERT_TRUE(proposal);
    const OpSchedule &mutated = proposal->genome.ops[0];
    if (mutated.vectorWidth > 1) {
      EXPECT_EQ(100 % mutated.blockTile[1], 0);
      EXPECT_EQ(mutated.blockTile[1], mutated.threads[1] * mutated.vectorWidth);
    }
    genome = proposal->genome;
  }
}

TEST(Search, StructureMutationsDropVectorsTheVectorizerRefuses) {
  // Fusing producers leaves an op of the same sizes that the vectorizer
  // now refuses: the parent's vector width must not follow it (it failed
  // L2-79's candidates at the transform stage), the op's default does.
  std::mt19937_64 rng(5);
  OpShape before{{16, 64}, 0}, after{{16, 64}, 0};
  after.vectorizable = false;
  OpSchedule vectorized;
  vectorized.blockTile = {4, 64};
  vectorized.threads = {4, 16};
  vectorized.vectorWidth = 4;
  OpSchedule scalar;
  scalar.blockTile = {4, 64};
  scalar.threads = {4, 64};
  Restructured unfused{{before, before}, {before, before}, {scalar, scalar}};
  Restructured fused{{after}, {after}, {scalar}};
  Schedule parent;
  parent.ops = {vectorized, vectorized};
  RestructureFn toFused = [&](const Schedule &) { return fused; };
  std::optional<Proposal> proposal = proposeMutation(
      parent, unfused, MutationAction::FuseElementwise, rng, toFused);
  ASSERT_TRUE(proposal);
  ASSERT_EQ(proposal->genome.ops.size(), 1u);
  EXPECT_EQ(proposal->genome.ops[0].vectorWidth, 1);
  EXPECT_EQ(proposal->genome.ops[0].threads,
            (llvm::SmallVector<int64_t>{4, 64}));
  // An op the vectorizer takes keeps the parent's genes.
  fused.shapes[0].vectorizable = true;
  proposal = proposeMutation(parent, unfused, MutationAction::FuseElementwise,
                             rng, toFused);
  ASSERT_TRUE(proposal);
  EXPECT_EQ(proposal->genome.ops[0].vectorWidth, 4);
}

TEST(Search, FuseReductionsTogglesRowGroupsWhereLanesShareAReduction) {
  // Row groups change kernels, not the ops the genome indexes: the
  // proposal keeps the parent's ops. Without a lane reduction no group
  // can form, and the mutation proposes nothing.
  std::mt19937_64 rng(7);
  OpShape sum{{4096}, 512}, divide{{4096, 512}, 0};
  sum.reductionLoops = 1;
  sum.laneReduction = true;
  OpSchedule lanes;
  lanes.blockTile = {1};
  lanes.threads = {0};
  lanes.reductionLanes = 256;
  OpSchedule tiled;
  tiled.blockTile = {4, 64};
  tiled.threads = {4, 64};
  Restructured norm{{sum, divide}, {sum, divide}, {lanes, tiled}};
  Schedule parent;
  parent.ops = {lanes, tiled};
  RestructureFn same = [&](const Schedule &) { return norm; };
  std::optional<Proposal> on =
      proposeMutation(parent, norm, MutationAction::FuseReductions, rng, same);
  ASSERT_TRUE(on);
  EXPECT_TRUE(on->genome.fuseReductions);
  EXPECT_EQ(on->change, "reductions in their consumers' kernels");
  EXPECT_EQ(on->genome.ops.size(), 2u);
  EXPECT_EQ(on->genome.ops[0].reductionLanes, 256);
  std::optional<Proposal> off = proposeMutation(
      on->genome, norm, MutationAction::FuseReductions, rng, same);
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->genome.fuseReductions);
  Restructured elementwise{{divide}, {divide}, {tiled}};
  Schedule plain;
  plain.ops = {tiled};
  EXPECT_FALSE(proposeMutation(plain, elementwise,
                               MutationAction::FuseReductions, rng, same));
}

TEST(Search, SplitSoftmaxTogglesWhereTheRewriteApplies) {
  // The gene needs the fused form (exp inside the sum); a toggle that
  // leaves the ops as they were (no softmax statistics to split) is no
  // proposal; one that applies remaps the ops onto the new ones.
  std::mt19937_64 rng(11);
  OpShape max{{4096}, 393216}, chunkMax{{4096, 24}, 16384};
  max.reductionLoops = 1;
  chunkMax.reductionLoops = 1;
  OpSchedule lanes;
  lanes.blockTile = {1};
  lanes.threads = {0};
  lanes.reductionLanes = 256;
  OpSchedule chunkLanes;
  chunkLanes.blockTile = {1, 1};
  chunkLanes.threads = {0, 0};
  chunkLanes.reductionLanes = 256;
  Restructured whole{{max}, {max}, {lanes}};
  Restructured chunks{{chunkMax, max}, {chunkMax, max}, {chunkLanes, lanes}};
  Schedule parent;
  parent.fuseElementwise = true;
  parent.ops = {lanes};
  RestructureFn split = [&](const Schedule &genome) {
    return genome.splitSoftmaxStatistics ? chunks : whole;
  };
  std::optional<Proposal> on = proposeMutation(
      parent, whole, MutationAction::SplitSoftmaxStatistics, rng, split);
  ASSERT_TRUE(on);
  EXPECT_TRUE(on->genome.splitSoftmaxStatistics);
  EXPECT_EQ(on->change, "softmax statistics per chunk");
  EXPECT_EQ(on->genome.ops.size(), 2u);
  RestructureFn same = [&](const Schedule &) { return whole; };
  EXPECT_FALSE(proposeMutation(
      parent, whole, MutationAction::SplitSoftmaxStatistics, rng, same));
  Schedule unfused = parent;
  unfused.fuseElementwise = false;
  EXPECT_FALSE(proposeMutation(
      unfused, whole, MutationAction::SplitSoftmaxStatistics, rng, split));
}

TEST(Search, ActionWeightsSteerTheExperts) {
  // The compute expert chooses between reduction steps and splits: a
  // library that believes in one makes it try (almost) only that one.
  auto favour = [](MutationAction favoured) -> ActionWeightFn {
    return [favoured](llvm::ArrayRef<std::string>, MutationAction action) {
      return action == favoured ? 1.0 : 1e-9;
    };
  };
  auto computeActions = [](const SearchResult &result) {
    std::map<MutationAction, unsigned> counts;
    for (const SearchCandidate &candidate : result.candidates)
      if (candidate.expert == "compute" && candidate.action)
        ++counts[*candidate.action];
    return counts;
  };
  auto steps = computeActions(
      runSynthetic(9, 40, favour(MutationAction::ReductionStep)));
  auto splits = computeActions(
      runSynthetic(9, 40, favour(MutationAction::SplitReduction)));
  EXPECT_GT(steps[MutationAction::ReductionStep], 0u);
  EXPECT_EQ(steps[MutationAction::SplitReduction], 0u);
  EXPECT_GT(splits[MutationAction::SplitReduction], 0u);
  EXPECT_EQ(splits[MutationAction::ReductionStep], 0u);
}

TEST(Search, StagnatingIslandsReceiveTheBest) {
  SearchOptions options;
  options.seed = 5;
  options.budgetEvals = 80;
  options.migrationInterval = 0; // only stagnation migrates
  options.stagnationLimit = 4;
  SearchResult stagnating = runSynthetic(options);
  EXPECT_GT(stagnating.stagnationMigrations, 0u);
  options.stagnationLimit = 0;
  EXPECT_EQ(runSynthetic(options).stagnationMigrations, 0u);
}

TEST(Search, SeedsAreEvaluatedRightAfterTheDefault) {
  Schedule seeded = defaultGenome();
  seeded.ops[0].vectorWidth = 4;
  seeded.ops[0].blockTile = {4, 256};
  SearchOptions options;
  options.budgetEvals = 10;
  options.seeds = {{"from-library", seeded}};
  SearchResult result = runSynthetic(options);
  ASSERT_GE(result.candidates.size(), 2u);
  EXPECT_EQ(result.candidates[1].expert, "seed:from-library");
  EXPECT_EQ(result.candidates[1].genome.ops[0].vectorWidth, 4);
}

TEST(Search, ATimeBudgetSpentOnTheBaselineStartsNoSeed) {
  // Regression: the seeds shared the baseline's batch, so a slow default
  // schedule (a 3-D transposed convolution) held the run far past its
  // time budget while the seeds were measured after it.
  Schedule seeded = defaultGenome();
  seeded.ops[0].vectorWidth = 4;
  seeded.ops[0].blockTile = {4, 256};
  SearchOptions options;
  options.budgetEvals = 10;
  options.budgetSeconds = 0.05;
  options.seeds = {{"from-library", seeded}};
  bool first = true;
  SearchResult result =
      runSynthetic(options, {}, [&](llvm::ArrayRef<CandidateSource>) {
        if (first) // the baseline outlasts the whole budget
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
        first = false;
      });
  EXPECT_EQ(result.candidates.size(), 1u);
  EXPECT_EQ(result.stopReason, "time");
}

TEST(Search, CandidatesAndOutcomesTravelAsJSON) {
  CandidateSource kernel{CandidateKind::Kernel, "module {}"}, read;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(kernel), read, root));
  EXPECT_EQ(read.kind, CandidateKind::Kernel);
  EXPECT_EQ(read.text, "module {}");
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"kind", "tensor"}, {"text", "x"}},
                        read, root));
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"text", "x"}}, read, root));

  Outcome outcome{CandidateStatus::Correct, 0.25, {"memory-bound"}, ""}, back;
  ASSERT_TRUE(fromJSON(toJSON(outcome), back, root));
  EXPECT_EQ(back.status, CandidateStatus::Correct);
  EXPECT_EQ(back.seconds, 0.25);
  EXPECT_EQ(back.triggers, std::vector<std::string>{"memory-bound"});
  EXPECT_EQ(back.kernels, 0u);

  // A compiled candidate's kernels and bytes travel with it (--mpi).
  outcome.kernels = 2;
  outcome.globalBytes = 2.5e9;
  ASSERT_TRUE(fromJSON(toJSON(outcome), back, root));
  EXPECT_EQ(back.kernels, 2u);
  EXPECT_EQ(back.globalBytes, 2.5e9);

  // A compile error names its stage, in one status text.
  Outcome failed =
      Outcome::failed(CandidateStatus::CompileError, "no tiling", "transform");
  llvm::json::Value json = toJSON(failed);
  EXPECT_EQ(*json.getAsObject()->getString("status"),
            "compile-error:transform");
  ASSERT_TRUE(fromJSON(json, back, root));
  EXPECT_EQ(back.status, CandidateStatus::CompileError);
  EXPECT_EQ(back.stage, "transform");
  EXPECT_EQ(back.error, "no tiling");
  EXPECT_FALSE(isCompileFailure(CandidateStatus::Rejected));
  EXPECT_TRUE(isCompileFailure(back.status));

  // Unknown statuses, and stages on anything but a compile error, do not
  // read.
  for (const char *status : {"great", "correct:transform", "compile-error:"}) {
    EXPECT_FALSE(fromJSON(
        llvm::json::Object{{"status", status}, {"seconds", 0.0}}, back, root))
        << status;
  }
}

/// Each thread's tile of a staged op: blockTile / threads, exactly.
void expectStagedTilesDivide(const OpSchedule &op, const OpShape &shape) {
  ASSERT_GT(op.stageTile, 0);
  EXPECT_EQ(shape.innerReductionSize % op.stageTile, 0);
  if (op.reductionStep > 0) {
    EXPECT_EQ(op.stageTile % op.reductionStep, 0);
  }
  EXPECT_EQ(op.vectorWidth, 1);
  int64_t threads = 1;
  for (unsigned p = 0; p < shape.parallelSizes.size(); ++p) {
    ASSERT_GT(op.threads[p], 0);
    EXPECT_EQ(shape.parallelSizes[p] % op.blockTile[p], 0);
    EXPECT_EQ(op.blockTile[p] % op.threads[p], 0);
    threads *= op.threads[p];
  }
  EXPECT_GE(threads, 32);
  EXPECT_LE(threads, 1024);
}

TEST(Search, StagingMutationsKeepRegisterTilesDividingTheirLoops) {
  std::mt19937_64 rng(3);
  // A matmul 512 x 384 over 768, and an elementwise op it cannot stage.
  llvm::SmallVector<OpShape> ops = {OpShape{{512, 384}, 768, 1},
                                    OpShape{{512, 384}, 0}};
  Restructured structure{ops, ops, {}};
  Schedule genome;
  OpSchedule matmul, elementwise;
  matmul.blockTile = elementwise.blockTile = {4, 64};
  matmul.threads = elementwise.threads = {4, 64};
  genome.ops = {matmul, elementwise};
  std::optional<Proposal> staged = proposeMutation(
      genome, structure, MutationAction::StageOperands, rng, restructure);
  ASSERT_TRUE(staged);
  expectStagedTilesDivide(staged->genome.ops[0], ops[0]);
  EXPECT_EQ(staged->genome.ops[0].blockTile,
            (llvm::SmallVector<int64_t>{64, 64}));
  EXPECT_EQ(staged->genome.ops[1].stageTile, 0);
  // Retuning keeps every tile dividing; other mutations leave a staged op
  // alone (its threads are not one per output).
  genome = staged->genome;
  unsigned unstaged = 0;
  for (int i = 0; i < 200; ++i) {
    std::optional<Proposal> proposal = proposeMutation(
        genome, structure, MutationAction::StageOperands, rng, restructure);
    if (!proposal)
      continue;
    const OpSchedule &op = proposal->genome.ops[0];
    if (op.stageTile == 0) {
      ++unstaged;
      EXPECT_EQ(op.blockTile, op.threads);
      continue;
    }
    expectStagedTilesDivide(op, ops[0]);
    genome = proposal->genome;
  }
  EXPECT_GT(unstaged, 0u);
  std::optional<Proposal> threads = proposeMutation(
      genome, structure, MutationAction::Threads, rng, restructure);
  ASSERT_TRUE(threads);
  EXPECT_EQ(threads->genome.ops[0].blockTile, genome.ops[0].blockTile);
}

TEST(Search, ContractionsGetStagedSeedsAndKeepThemOnAnotherShape) {
  llvm::SmallVector<OpShape> ops = {OpShape{{256, 512}, 1024, 1}};
  Schedule defaults;
  OpSchedule op;
  op.blockTile = {4, 64};
  op.threads = {4, 64};
  defaults.ops = {op};
  RestructureFn restructureTo = [&](const Schedule &) {
    return std::optional<Restructured>(Restructured{ops, ops, defaults.ops});
  };
  std::map<std::string, Schedule> seeds;
  for (auto &[name, genome] : expertSeeds(defaults, restructureTo))
    seeds[name] = genome;
  ASSERT_TRUE(seeds.count("staged-64"));
  ASSERT_TRUE(seeds.count("staged-128"));
  const OpSchedule &large = seeds["staged-128"].ops[0];
  expectStagedTilesDivide(large, ops[0]);
  EXPECT_EQ(large.blockTile, (llvm::SmallVector<int64_t>{128, 128}));
  EXPECT_EQ(large.threads, (llvm::SmallVector<int64_t>{16, 16}));
  EXPECT_EQ(large.stageTile, 8);

  // On a problem whose loops 128 does not divide, the staging is refitted.
  ops = {OpShape{{96, 160}, 200, 1}};
  std::optional<Schedule> adapted =
      adaptGenome(seeds["staged-128"], restructureTo);
  ASSERT_TRUE(adapted);
  expectStagedTilesDivide(adapted->ops[0], ops[0]);
  EXPECT_EQ(adapted->ops[0].blockTile, (llvm::SmallVector<int64_t>{32, 32}));
  EXPECT_EQ(adapted->ops[0].stageTile, 8);
}

/// The expert seeds, by name, of a reference whose ops have `ops` shapes
/// and `defaults` mappings whatever the structure genes.
std::map<std::string, Schedule> seedsByName(const Schedule &defaults,
                                            llvm::ArrayRef<OpShape> ops) {
  RestructureFn restructure =
      [&](const Schedule &) -> std::optional<Restructured> {
    return Restructured{llvm::to_vector(ops), llvm::to_vector(ops),
                        defaults.ops};
  };
  std::map<std::string, Schedule> seeds;
  for (auto &[name, genome] : expertSeeds(defaults, restructure))
    seeds[name] = genome;
  return seeds;
}

TEST(Search, ExpertSeedsSkipUntiledOpsAndSplitOddReductions) {
  // A 4-D elementwise op whose outermost loop the default leaves untiled
  // (the grid maps three), a 2-D one, and a reduction over 492156 =
  // 4 x 3^4 x 7^2 x 31 elements per output, which no power of two from 16
  // divides (group norm after a transposed 3-D convolution).
  llvm::SmallVector<OpShape> ops = {OpShape{{8, 16, 64, 256}, 0},
                                    OpShape{{64, 256}, 0},
                                    OpShape{{128, 4}, 492156, 1}};
  Schedule defaults;
  OpSchedule fourD, twoD, reduction;
  fourD.blockTile = {0, 1, 4, 64};
  fourD.threads = {0, 1, 4, 64};
  twoD.blockTile = {4, 64};
  twoD.threads = {4, 64};
  reduction.blockTile = {4, 4};
  reduction.threads = {4, 4};
  defaults.ops = {fourD, twoD, reduction};
  defaults.fuseReductions = true;
  std::map<std::string, Schedule> seeds = seedsByName(defaults, ops);

  // The seeds give the reductions kernels of their own, the other side of
  // the default's row and thread groups.
  ASSERT_TRUE(seeds.count("split-reductions"));
  EXPECT_FALSE(seeds["split-reductions"].fuseReductions);
  ASSERT_TRUE(seeds.count("vectorized"));
  EXPECT_FALSE(seeds["vectorized"].fuseReductions);

  // Regression: vectorizing the untiled op made the whole seed fail to
  // render; now that op is left scalar and the others are vectorized.
  ASSERT_TRUE(seeds.count("vectorized"));
  EXPECT_EQ(seeds["vectorized"].ops[0].vectorWidth, 1);
  EXPECT_EQ(seeds["vectorized"].ops[0].blockTile, fourD.blockTile);
  EXPECT_EQ(seeds["vectorized"].ops[1].vectorWidth, 4);

  // 512 outputs want a split of 256 ways; 252 is the largest divisor up to
  // that.
  ASSERT_TRUE(seeds.count("split-reductions"));
  EXPECT_EQ(seeds["split-reductions"].splitFactors,
            (llvm::SmallVector<int64_t>{0, 0, 252}));
}

TEST(Search, SplitReductionsSeedLeavesGemmKernelsWhole) {
  // Level 2 problem 99: a 1024 x 8192 x 8192 Linear layer, then a softmax
  // over rows of 8192. The seed splits the softmax's row reductions, not
  // the GEMM kernel's K loop (the kernel splits K itself where that pays).
  ContractionLoops gemm;
  gemm.numLoops = 3;
  gemm.mLoop = 0;
  gemm.nLoop = 1;
  gemm.kLoop = 2;
  gemm.m = 1024;
  gemm.n = 8192;
  gemm.k = 8192;
  gemm.aContiguousLoop = 2;
  gemm.bContiguousLoop = 1;
  gemm.aRowLength = 8192;
  gemm.bRowLength = 8192;
  ASSERT_TRUE(defaultContractionTile(gemm));
  OpShape matmul{{1024, 8192}, 8192, 1};
  matmul.contraction = gemm;
  llvm::SmallVector<OpShape> ops = {matmul, OpShape{{1024}, 8192, 1},
                                    OpShape{{1024, 8192}, 0}};
  Schedule defaults;
  OpSchedule gemmOp, rowMax, elementwise;
  gemmOp.contraction = *defaultContractionTile(gemm);
  rowMax.blockTile = {64};
  rowMax.threads = {64};
  elementwise.blockTile = {4, 256};
  elementwise.threads = {4, 64};
  defaults.ops = {gemmOp, rowMax, elementwise};
  std::map<std::string, Schedule> seeds = seedsByName(defaults, ops);
  ASSERT_TRUE(seeds.count("split-reductions"));
  llvm::SmallVector<int64_t> factors = seeds["split-reductions"].splitFactors;
  ASSERT_EQ(factors.size(), 3u);
  EXPECT_EQ(factors[0], 0);
  // 1024 outputs: the seeds' smallest split, 256 ways.
  EXPECT_EQ(factors[1], 256);
  EXPECT_EQ(factors[2], 0);
}

TEST(Search, VectorizedSeedSkipsOpsTheVectorizerRefuses) {
  // A transposed convolution's weight flip, now tiled over blocks on every
  // loop (it used to keep an untiled loop and be skipped for that), and an
  // elementwise op. Vectorizing the flip failed the whole seed at the
  // transform stage ("Attempted to vectorize, but failed": Level 2
  // problems 91 and 93, Level 1 51, 52 and 95 lost 4 to 7 of 12
  // candidates).
  OpShape flip{{128, 64, 4, 4}, 0};
  flip.vectorizable = false;
  llvm::SmallVector<OpShape> ops = {flip, OpShape{{64, 256}, 0}};
  Schedule defaults;
  OpSchedule flipped, elementwise;
  flipped.blockTile = {1, 1, 4, 4};
  flipped.threads = {0, 1, 4, 4};
  elementwise.blockTile = {4, 64};
  elementwise.threads = {4, 64};
  defaults.ops = {flipped, elementwise};
  std::map<std::string, Schedule> seeds = seedsByName(defaults, ops);
  ASSERT_TRUE(seeds.count("vectorized"));
  EXPECT_EQ(seeds["vectorized"].ops[0].vectorWidth, 1);
  EXPECT_EQ(seeds["vectorized"].ops[1].vectorWidth, 4);
}

TEST(Search, SplitReductionsSeedLeavesLaneReductionsToTheirLanes) {
  // A softmax-like row reduction an input reads contiguously: the seed
  // fuses and collapses but does not split it (its default mapping shares
  // the row among lanes), and is made though nothing is split.
  OpShape rows{{4096}, 393216, 1};
  rows.laneReduction = true;
  llvm::SmallVector<OpShape> ops = {rows, OpShape{{4096, 393216}, 0}};
  Schedule defaults;
  OpSchedule lanes, elementwise;
  ASSERT_TRUE(setReductionLanes(lanes, rows, defaultReductionLanes(rows)));
  EXPECT_EQ(lanes.reductionLanes, 256);
  EXPECT_EQ(lanes.blockTile, (llvm::SmallVector<int64_t>{1}));
  elementwise.blockTile = {4, 256};
  elementwise.threads = {4, 64};
  defaults.ops = {lanes, elementwise};
  std::map<std::string, Schedule> seeds = seedsByName(defaults, ops);
  ASSERT_TRUE(seeds.count("split-reductions"));
  const Schedule &fused = seeds["split-reductions"];
  EXPECT_TRUE(fused.fuseElementwise);
  EXPECT_TRUE(fused.splitFactors.empty());
  EXPECT_EQ(fused.ops[0].reductionLanes, 256);
  // The vectorized seed leaves the lanes alone too.
  ASSERT_TRUE(seeds.count("vectorized"));
  EXPECT_EQ(seeds["vectorized"].ops[0].reductionLanes, 256);
  EXPECT_EQ(seeds["vectorized"].ops[0].reductionStep, 0);
}

TEST(Search, ReductionLanesByRowLength) {
  OpShape shortRows{{8192}, 512, 1};
  shortRows.laneReduction = true;
  // A warp per row, eight rows (groups) per block of 256 threads.
  OpSchedule op;
  ASSERT_EQ(defaultReductionLanes(shortRows), 32);
  ASSERT_TRUE(setReductionLanes(op, shortRows, 32));
  EXPECT_EQ(op.blockTile, (llvm::SmallVector<int64_t>{8}));
  EXPECT_EQ(op.threads, (llvm::SmallVector<int64_t>{8}));
  // Few long rows: a block of 1024 lanes each.
  OpShape fewRows{{100}, 1 << 20, 1};
  fewRows.laneReduction = true;
  EXPECT_EQ(defaultReductionLanes(fewRows), 1024);
  // Short rows with a million outputs or more: a thread per output fills
  // the GPU (the blocked scans of L1-89..93), no lanes.
  OpShape manyRows{{32768, 1024}, 1024, 1};
  manyRows.laneReduction = true;
  EXPECT_EQ(defaultReductionLanes(manyRows), 0);
  // Long rows keep their lanes however many there are.
  OpShape manyLongRows{{32768, 1024}, 8192, 1};
  manyLongRows.laneReduction = true;
  EXPECT_EQ(defaultReductionLanes(manyLongRows), 256);
  // Too short, or not a lane reduction: none.
  OpShape tiny{{8192}, 16, 1};
  tiny.laneReduction = true;
  EXPECT_EQ(defaultReductionLanes(tiny), 0);
  OpShape strided{{8192}, 4096, 1};
  EXPECT_EQ(defaultReductionLanes(strided), 0);
  OpSchedule unchanged = op;
  EXPECT_FALSE(setReductionLanes(unchanged, strided, 32));
  EXPECT_EQ(unchanged.reductionLanes, op.reductionLanes);
  // Lanes must be a power of two under 32 or a multiple of 32.
  EXPECT_FALSE(setReductionLanes(unchanged, shortRows, 48));
}

TEST(Search, StridedSplitFactorFillsTheGpu) {
  // Batch norm's column sums after a 16384 x 4096 GEMM: 4096 outputs, so
  // 256 parts of 64 rows give a million threads.
  OpShape columns{{4096}, 16384, 1};
  columns.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(columns), 256);
  // Short columns: each part keeps at least 32 rows.
  OpShape shortColumns{{8192}, 1024, 1};
  shortColumns.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(shortColumns), 32);
  // Parts are powers of two that divide the reduction.
  OpShape odd{{4096}, 3 * 1024, 1};
  odd.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(odd), 64);
  // Enough outputs already, too short to split, or not strided: none.
  OpShape many{{1 << 20}, 4096, 1};
  many.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(many), 0);
  OpShape tiny{{64}, 48, 1};
  tiny.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(tiny), 0);
  OpShape rows{{4096}, 16384, 1};
  rows.laneReduction = true;
  EXPECT_EQ(stridedSplitFactor(rows), 0);
  OpShape twoLoops{{4096}, 16384, 2};
  twoLoops.stridedReduction = true;
  EXPECT_EQ(stridedSplitFactor(twoLoops), 0);
}

TEST(Search, AdaptGenomeFitsAnotherProblemsSchedule) {
  // A schedule found for 256 x 4096 moved to 16 x 100: thread counts and
  // tiles shrink to fit, the vector width 4 (which divides 100) stays with
  // tiles that divide the loop.
  Schedule found = defaultGenome();
  found.ops[0].threads = {4, 64};
  found.ops[0].blockTile = {4, 256};
  found.ops[0].vectorWidth = 4;
  found.ops[1].reductionStep = 8;
  llvm::SmallVector<OpShape> small = {OpShape{{16, 100}, 0},
                                      OpShape{{16}, 100, 1}};
  RestructureFn smallProblem =
      [&](const Schedule &) -> std::optional<Restructured> {
    return Restructured{small, small, defaultGenome().ops};
  };
  std::optional<Schedule> adapted = adaptGenome(found, smallProblem);
  ASSERT_TRUE(adapted);
  const OpSchedule &elementwise = adapted->ops[0];
  EXPECT_EQ(elementwise.vectorWidth, 4);
  EXPECT_EQ(100 % elementwise.blockTile[1], 0);
  EXPECT_EQ(elementwise.blockTile[1],
            elementwise.threads[1] * elementwise.vectorWidth);
  EXPECT_LE(adapted->ops[1].threads[0], 16);
  // 8 does not divide the reduction of 100: no step.
  EXPECT_EQ(adapted->ops[1].reductionStep, 0);

  // Different op counts do not transfer.
  llvm::SmallVector<OpShape> one = {OpShape{{16, 100}, 0}};
  RestructureFn oneOp = [&](const Schedule &) -> std::optional<Restructured> {
    return Restructured{one, one, {defaultGenome().ops[0]}};
  };
  EXPECT_FALSE(adaptGenome(found, oneOp));
}

TEST(Search, AdaptGenomeRederivesSplitsForTheNewParallelism) {
  // Layer norm's best schedule split its 2^20-element reduction 8192 ways
  // for 16 samples. At 32 samples the seeds' rule (outputs x split about
  // 131072) asks 4096 ways; keeping 8192 made the fitted schedule slower
  // than the expert seed (bench/library-warmth).
  Schedule found = defaultGenome();
  found.splitFactors = {0, 8192};
  llvm::SmallVector<OpShape> target = {OpShape{{32, 4096}, 0},
                                       OpShape{{32}, 1 << 20, 1}};
  RestructureFn targetProblem =
      [&](const Schedule &) -> std::optional<Restructured> {
    return Restructured{target, target, defaultGenome().ops};
  };
  std::optional<Schedule> adapted = adaptGenome(found, targetProblem);
  ASSERT_TRUE(adapted);
  EXPECT_EQ(adapted->splitFactors, (llvm::SmallVector<int64_t>{0, 4096}));
}

} // namespace
