//===- Search.cpp - Multi-island evolutionary search over schedules -------===//

#include "kf/Search/Search.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

#include <algorithm>

using namespace kf;

llvm::StringRef kf::stringifyExpertFocus(ExpertFocus focus) {
  switch (focus) {
  case ExpertFocus::Memory:
    return "memory";
  case ExpertFocus::Compute:
    return "compute";
  case ExpertFocus::Parallelism:
    return "parallelism";
  case ExpertFocus::Structure:
    return "structure";
  }
  llvm_unreachable("unknown focus");
}

namespace {

template <typename T>
const T &pick(llvm::ArrayRef<T> values, std::mt19937_64 &rng) {
  return values[std::uniform_int_distribution<size_t>(0,
                                                      values.size() - 1)(rng)];
}

/// Powers of two up to `limit` that divide `size`.
llvm::SmallVector<int64_t> dividingPowers(int64_t size, int64_t limit) {
  llvm::SmallVector<int64_t> result;
  for (int64_t p = 1; p <= limit; p *= 2)
    if (size % p == 0)
      result.push_back(p);
  return result;
}

/// Makes every mapped loop's block tile divide its loop and its thread
/// count divide the tile, keeping the innermost tile = threads x width:
/// what vector widths and reduction steps need.
void makeStatic(OpSchedule &op, const OpShape &shape) {
  unsigned n = shape.parallelSizes.size();
  for (unsigned p = 0; p < n; ++p) {
    int64_t size = shape.parallelSizes[p];
    int64_t width = p + 1 == n ? op.vectorWidth : 1;
    if (op.threads[p] == 0)
      continue;
    // The largest thread count up to the current one such that threads x
    // width divides the loop, preferring whole warps along the innermost
    // loop.
    int64_t threads = 1, warpThreads = 0;
    for (int64_t t = 1; t <= op.threads[p]; ++t)
      if (size % (t * width) == 0) {
        threads = t;
        if (p + 1 == n && t % 32 == 0)
          warpThreads = t;
      }
    if (warpThreads)
      threads = warpThreads;
    op.threads[p] = threads;
    op.blockTile[p] = threads * width;
  }
}

int64_t totalThreads(const OpSchedule &op) {
  int64_t total = 1;
  for (int64_t t : op.threads)
    total *= std::max<int64_t>(1, t);
  return total;
}

/// One mutation of one op; returns a description, or "" when none applies.
std::string mutateOp(OpSchedule &op, const OpShape &shape, unsigned index,
                     ExpertFocus focus, std::mt19937_64 &rng) {
  unsigned n = shape.parallelSizes.size();
  if (n == 0)
    return "";
  unsigned inner = n - 1;
  switch (focus) {
  case ExpertFocus::Memory: {
    // Vector width of the innermost loop (elementwise and reductions alike:
    // each thread then owns that many consecutive outputs).
    llvm::SmallVector<int64_t> widths;
    for (int64_t w : {1, 2, 4})
      if (shape.parallelSizes[inner] % w == 0 && w != op.vectorWidth)
        widths.push_back(w);
    if (widths.empty() || op.threads[inner] == 0)
      return "";
    op.vectorWidth = pick<int64_t>(widths, rng);
    makeStatic(op, shape);
    return llvm::formatv("op{0}: vector width {1}", index, op.vectorWidth)
        .str();
  }
  case ExpertFocus::Compute: {
    if (shape.innerReductionSize <= 1)
      return "";
    llvm::SmallVector<int64_t> steps;
    for (int64_t s : {0, 4, 8, 16})
      if ((s == 0 || shape.innerReductionSize % s == 0) &&
          s != op.reductionStep)
        steps.push_back(s);
    if (steps.empty())
      return "";
    op.reductionStep = pick<int64_t>(steps, rng);
    if (op.reductionStep > 0)
      makeStatic(op, shape);
    return llvm::formatv("op{0}: reduction step {1}", index, op.reductionStep)
        .str();
  }
  case ExpertFocus::Parallelism: {
    // Threads along one mapped loop; block tiles follow.
    llvm::SmallVector<unsigned> mapped;
    for (unsigned p = 0; p < n; ++p)
      if (op.threads[p] > 0)
        mapped.push_back(p);
    if (mapped.empty())
      return "";
    unsigned p = pick<unsigned>(mapped, rng);
    int64_t width = p == inner ? op.vectorWidth : 1;
    llvm::SmallVector<int64_t> counts;
    for (int64_t t : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024})
      if (t != op.threads[p] && t * width <= shape.parallelSizes[p] &&
          totalThreads(op) / op.threads[p] * t <= 1024)
        counts.push_back(t);
    if (counts.empty())
      return "";
    op.threads[p] = pick<int64_t>(counts, rng);
    op.blockTile[p] = op.threads[p] * width;
    if (op.vectorWidth > 1 || op.reductionStep > 0)
      makeStatic(op, shape);
    return llvm::formatv("op{0}: {1} threads on loop {2}", index, op.threads[p],
                         p)
        .str();
  }
  case ExpertFocus::Structure:
    break;
  }
  return "";
}

} // namespace

Proposal kf::proposeMutation(const Schedule &parent,
                             llvm::ArrayRef<OpShape> shapes, ExpertFocus focus,
                             std::mt19937_64 &rng) {
  Proposal proposal{parent, ""};
  unsigned rounds = focus == ExpertFocus::Structure ? 2 : 1;
  for (unsigned round = 0; round < rounds; ++round) {
    ExpertFocus applied =
        focus == ExpertFocus::Structure
            ? pick<ExpertFocus>({ExpertFocus::Memory, ExpertFocus::Compute,
                                 ExpertFocus::Parallelism},
                                rng)
            : focus;
    // Try the ops in a random order until one accepts the mutation.
    llvm::SmallVector<unsigned> order;
    for (unsigned i = 0; i < shapes.size(); ++i)
      order.push_back(i);
    std::shuffle(order.begin(), order.end(), rng);
    for (unsigned i : order) {
      std::string change =
          mutateOp(proposal.genome.ops[i], shapes[i], i, applied, rng);
      if (change.empty())
        continue;
      proposal.change += (proposal.change.empty() ? "" : "; ") + change;
      break;
    }
  }
  return proposal;
}

std::string kf::describeGenome(const Schedule &genome) {
  std::string text;
  for (auto [index, op] : llvm::enumerate(genome.ops)) {
    text += llvm::formatv("{0}op{1}: block {2} threads {3}", index ? "; " : "",
                          index, llvm::interleaved_array(op.blockTile),
                          llvm::interleaved_array(op.threads))
                .str();
    if (op.vectorWidth > 1)
      text += llvm::formatv(" vector {0}", op.vectorWidth).str();
    if (op.reductionStep > 0)
      text += llvm::formatv(" step {0}", op.reductionStep).str();
  }
  return text;
}

llvm::json::Value kf::toJSON(const SearchCandidate &candidate) {
  llvm::json::Object object{{"id", candidate.id},
                            {"island", candidate.island},
                            {"expert", candidate.expert},
                            {"change", candidate.change},
                            {"genome", describeGenome(candidate.genome)},
                            {"status", candidate.outcome.status},
                            {"seconds", candidate.outcome.seconds}};
  if (candidate.parent)
    object["parent"] = *candidate.parent;
  return object;
}

SearchResult kf::runSearch(const Schedule &defaultSchedule,
                           llvm::ArrayRef<OpShape> shapes,
                           const RenderFn &render, const EvaluateFn &evaluate,
                           const SearchOptions &options,
                           const ProgressFn &progress) {
  SearchResult result;
  std::mt19937_64 rng(options.seed);
  unsigned islands = std::max(1u, options.islands);
  // Each island: indices into result.candidates, best first.
  std::vector<std::vector<unsigned>> populations(islands);
  llvm::StringSet<> seen; // rendered scripts: deduplication

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
  auto record = [&](SearchCandidate candidate) {
    candidate.id = result.candidates.size();
    candidate.outcome = evaluate(candidate.script);
    result.candidates.push_back(std::move(candidate));
    unsigned index = result.candidates.size() - 1;
    const SearchCandidate &stored = result.candidates.back();
    if (stored.outcome.status == "correct") {
      admit(stored.island, index);
      if (!result.bestIndex || better(index, *result.bestIndex))
        result.bestIndex = index;
    }
    if (progress)
      progress(stored, result);
  };

  // The default schedule first: the baseline every island starts from.
  std::optional<std::string> defaultScript = render(defaultSchedule);
  if (!defaultScript)
    return result;
  seen.insert(*defaultScript);
  SearchCandidate first;
  first.expert = "default";
  first.genome = defaultSchedule;
  first.script = *defaultScript;
  record(std::move(first));
  result.defaultIndex = 0;
  if (result.bestIndex)
    for (unsigned island = 1; island < islands; ++island)
      admit(island, *result.bestIndex);

  double defaultSeconds = result.candidates[0].outcome.status == "correct"
                              ? result.candidates[0].outcome.seconds
                              : 0;
  unsigned attempts = 0;
  while (result.candidates.size() < options.budgetEvals &&
         attempts < 20 * options.budgetEvals) {
    // Islands take turns per attempt, so one whose neighbourhood is used up
    // (only duplicates left) does not hold the others back.
    unsigned island = attempts++ % islands;
    auto focus = static_cast<ExpertFocus>(island % 4);
    // Parent: binary tournament in the island (exploitation), or a random
    // member one time in four (exploration); the default when empty.
    std::optional<unsigned> parent;
    std::vector<unsigned> &population = populations[island];
    if (!population.empty()) {
      std::uniform_int_distribution<size_t> any(0, population.size() - 1);
      unsigned a = population[any(rng)], b = population[any(rng)];
      bool explore = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
      parent = explore ? a : (better(a, b) ? a : b);
    }
    const Schedule &base =
        parent ? result.candidates[*parent].genome : defaultSchedule;
    Proposal proposal = proposeMutation(base, shapes, focus, rng);
    if (proposal.change.empty())
      continue;
    std::optional<std::string> script = render(proposal.genome);
    if (!script)
      continue; // does not fit the reference: not an evaluation
    if (!seen.insert(*script).second) {
      ++result.duplicatesSkipped;
      continue;
    }
    SearchCandidate candidate;
    candidate.island = island;
    candidate.parent = parent;
    candidate.expert = stringifyExpertFocus(focus).str();
    candidate.change = proposal.change;
    candidate.genome = std::move(proposal.genome);
    candidate.script = std::move(*script);
    record(std::move(candidate));

    // Ring migration: every island's best goes to the next island.
    if (options.migrationInterval &&
        result.candidates.size() % options.migrationInterval == 0)
      for (unsigned from = 0; from < islands; ++from)
        if (!populations[from].empty())
          admit((from + 1) % islands, populations[from].front());

    if (options.targetSpeedup > 0 && defaultSeconds > 0 && result.bestIndex &&
        defaultSeconds / result.candidates[*result.bestIndex].outcome.seconds >=
            options.targetSpeedup)
      break;
  }
  return result;
}
