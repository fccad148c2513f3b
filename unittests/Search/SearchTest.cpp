//===- SearchTest.cpp - The evolutionary loop on a synthetic evaluator ----===//

#include "kf/Search/Search.h"

#include "gtest/gtest.h"

#include <map>

using namespace kf;

namespace {

/// One elementwise op on 256 x 4096 and one row reduction over 4096.
llvm::SmallVector<OpShape> shapes() {
  return {OpShape{{256, 4096}, 0}, OpShape{{256}, 4096}};
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
/// and a "compile error" above 512 threads per block; deterministic.
Outcome syntheticTime(const Schedule &genome) {
  double seconds = 10;
  for (const OpSchedule &op : genome.ops) {
    int64_t threads = 1;
    for (int64_t t : op.threads)
      threads *= std::max<int64_t>(1, t);
    if (threads > 512)
      return {"compile-error", 0};
    seconds -= op.vectorWidth == 4 ? 3 : 0;
    seconds -= op.reductionStep == 8 ? 4 : 0;
  }
  return {"correct", seconds};
}

SearchResult search(uint64_t seed, unsigned budget) {
  // The genome travels as its description, standing in for a script.
  std::map<std::string, Schedule> byScript;
  RenderFn render = [&](const Schedule &genome) -> std::optional<std::string> {
    std::string text = describeGenome(genome);
    byScript[text] = genome;
    return text;
  };
  EvaluateFn evaluate = [&](const std::string &script) {
    return syntheticTime(byScript.at(script));
  };
  SearchOptions options;
  options.seed = seed;
  options.budgetEvals = budget;
  return runSearch(defaultGenome(), shapes(), render, evaluate, options);
}

TEST(Search, FindsTheFastestGenomesWithinItsBudget) {
  SearchResult result = search(7, 60);
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
  SearchResult a = search(11, 30), b = search(11, 30), c = search(12, 30);
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
  SearchResult result = search(3, 80);
  std::set<std::string> scripts;
  for (const SearchCandidate &candidate : result.candidates)
    EXPECT_TRUE(scripts.insert(candidate.script).second) << candidate.script;
}

TEST(Search, MutationsKeepVectorizedTilesDividingTheirLoops) {
  std::mt19937_64 rng(5);
  llvm::SmallVector<OpShape> odd = {OpShape{{16, 100}, 0}};
  Schedule genome;
  OpSchedule op;
  op.blockTile = {4, 64};
  op.threads = {4, 64};
  genome.ops = {op};
  for (int i = 0; i < 50; ++i) {
    Proposal proposal = proposeMutation(genome, odd, ExpertFocus::Memory, rng);
    const OpSchedule &mutated = proposal.genome.ops[0];
    if (mutated.vectorWidth > 1) {
      EXPECT_EQ(100 % mutated.blockTile[1], 0);
      EXPECT_EQ(mutated.blockTile[1], mutated.threads[1] * mutated.vectorWidth);
    }
    genome = proposal.genome;
  }
}

} // namespace
