//===- RuleExperts.cpp - kf's built-in experts: mutations and seeds -------===//

#include "kf/Search/RuleExperts.h"
#include "kf/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
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

llvm::StringRef kf::stringifyMutationAction(MutationAction action) {
  switch (action) {
  case MutationAction::VectorWidth:
    return "vector-width";
  case MutationAction::ReductionStep:
    return "reduction-step";
  case MutationAction::Threads:
    return "threads";
  case MutationAction::SplitReduction:
    return "split-reduction";
  case MutationAction::FuseElementwise:
    return "fuse-elementwise";
  case MutationAction::CollapseReductions:
    return "collapse-reductions";
  case MutationAction::DecomposeReductions:
    return "decompose-reductions";
  case MutationAction::StageOperands:
    return "stage-operands";
  case MutationAction::TransposeOperands:
    return "transpose-operands";
  case MutationAction::FuseEpilogues:
    return "fuse-epilogues";
  case MutationAction::CommuteSums:
    return "commute-sums";
  case MutationAction::ReductionLanes:
    return "reduction-lanes";
  case MutationAction::ConvolutionsAsGemm:
    return "im2col";
  case MutationAction::FuseReductions:
    return "fuse-reductions";
  case MutationAction::SplitSoftmaxStatistics:
    return "split-softmax";
  }
  llvm_unreachable("unknown action");
}

llvm::ArrayRef<MutationAction> kf::actionsOf(ExpertFocus focus) {
  using A = MutationAction;
  static const A memory[] = {A::VectorWidth, A::FuseElementwise,
                             A::StageOperands, A::ReductionLanes};
  static const A compute[] = {A::ReductionStep, A::SplitReduction,
                              A::StageOperands, A::TransposeOperands,
                              A::FuseEpilogues};
  static const A parallelism[] = {A::Threads, A::SplitReduction,
                                  A::ReductionLanes};
  static const A structure[] = {
      A::FuseElementwise, A::CollapseReductions,    A::DecomposeReductions,
      A::SplitReduction,  A::CommuteSums,           A::ConvolutionsAsGemm,
      A::FuseReductions,  A::SplitSoftmaxStatistics};
  switch (focus) {
  case ExpertFocus::Memory:
    return memory;
  case ExpertFocus::Compute:
    return compute;
  case ExpertFocus::Parallelism:
    return parallelism;
  case ExpertFocus::Structure:
    return structure;
  }
  llvm_unreachable("unknown focus");
}

namespace {

int64_t totalThreads(const OpSchedule &op) {
  int64_t total = 1;
  for (int64_t t : op.threads)
    total *= std::max<int64_t>(1, t);
  return total;
}

/// Whether staging in shared memory can pay off and be expressed for an op:
/// a reduction long enough to tile, and two inner parallel loops wide
/// enough for a block of register tiles (all parallel loops must be mapped,
/// so at most three).
bool canStage(const OpShape &shape) {
  unsigned n = shape.parallelSizes.size();
  // The staged kernel vectorizes its steps: an op the vectorizer refuses
  // (an argmax's two outputs) cannot take it.
  return n >= 2 && n <= 3 && shape.vectorizable && shape.reductionLoops == 1 &&
         shape.innerReductionSize >= 32 && shape.innerReductionSize % 8 == 0 &&
         shape.parallelSizes[n - 1] >= 32 && shape.parallelSizes[n - 2] >= 32;
}

/// Whether a staged mapping stays within what renderSchedule accepts: at
/// most 256 vector elements per thread and step, and tiles that fit the
/// 48 KB of static shared memory a block may declare (f32, rows padded by
/// 4).
bool stagingFits(const OpSchedule &op) {
  unsigned n = op.blockTile.size();
  int64_t perThread = op.reductionStep > 0 ? op.reductionStep : op.stageTile;
  for (unsigned p = 0; p < n; ++p)
    perThread *= op.blockTile[p] / std::max<int64_t>(1, op.threads[p]);
  int64_t rows = op.blockTile[n - 1] + op.blockTile[n - 2];
  int64_t sharedBytes = rows * (op.stageTile + 4) * 4;
  return perThread <= 256 && sharedBytes <= 48 * 1024;
}

/// The largest power of two up to `limit` that divides `size` (at least 1).
int64_t powerOfTwoDivisor(int64_t size, int64_t limit) {
  int64_t divisor = 1;
  while (divisor * 2 <= limit && size % (divisor * 2) == 0)
    divisor *= 2;
  return divisor;
}

/// Stages `op` with blocks of about `block` x `block` outputs, `tile` x
/// `tile` outputs per thread, reduction tiles of `stage` and inner steps of
/// `step`, each fitted to the shape; false when the result is no staged
/// mapping (too few threads).
bool applyStaging(OpSchedule &op, const OpShape &shape, int64_t block,
                  int64_t tile, int64_t stage, int64_t step) {
  unsigned n = shape.parallelSizes.size();
  for (unsigned p = 0; p < n; ++p) {
    if (p + 2 < n) {
      op.blockTile[p] = op.threads[p] = 1;
      continue;
    }
    int64_t blockTile = powerOfTwoDivisor(shape.parallelSizes[p], block);
    int64_t threadTile = std::min(tile, blockTile);
    op.blockTile[p] = blockTile;
    op.threads[p] = blockTile / threadTile;
  }
  // Small blocks (a shape the block does not fit) keep at least a warp by
  // giving each thread fewer outputs.
  while (totalThreads(op) < 32) {
    unsigned widest = n - 1;
    for (unsigned p = n - 2; p < n; ++p)
      if (op.blockTile[p] / op.threads[p] >
          op.blockTile[widest] / op.threads[widest])
        widest = p;
    if (op.blockTile[widest] / op.threads[widest] == 1)
      break;
    op.threads[widest] *= 2;
  }
  op.vectorWidth = 1;
  op.stageTile = powerOfTwoDivisor(shape.innerReductionSize, stage);
  op.reductionStep = step > 0 && op.stageTile % step == 0 ? step : 0;
  int64_t threads = totalThreads(op);
  return op.stageTile >= 4 && threads >= 32 && threads <= 1024 &&
         stagingFits(op);
}

/// Back to one output per thread, no shared memory.
void unstage(OpSchedule &op) {
  op.stageTile = 0;
  op.reductionStep = 0;
  op.blockTile = op.threads;
}

/// Changes one tile of a staged op; returns a description, or "".
std::string retuneStaging(OpSchedule &op, const OpShape &shape, unsigned index,
                          std::mt19937_64 &rng) {
  unsigned n = shape.parallelSizes.size();
  OpSchedule tuned = op;
  std::string change;
  switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
  case 0: { // the block tile of one of the two inner loops, twice or half
    unsigned p = n - 1 - std::uniform_int_distribution<unsigned>(0, 1)(rng);
    int64_t threadTile = op.blockTile[p] / op.threads[p];
    int64_t blockTile = std::bernoulli_distribution(0.5)(rng)
                            ? op.blockTile[p] * 2
                            : op.blockTile[p] / 2;
    if (blockTile < threadTile || shape.parallelSizes[p] % blockTile != 0)
      return "";
    tuned.blockTile[p] = blockTile;
    tuned.threads[p] = blockTile / threadTile;
    change = llvm::formatv("op{0}: staged block tile {1} on loop {2}", index,
                           blockTile, p);
    break;
  }
  case 1: { // the register tile of one of the two inner loops
    unsigned p = n - 1 - std::uniform_int_distribution<unsigned>(0, 1)(rng);
    int64_t threadTile = op.blockTile[p] / op.threads[p];
    threadTile =
        std::bernoulli_distribution(0.5)(rng) ? threadTile * 2 : threadTile / 2;
    if (threadTile < 1 || threadTile > 8 || op.blockTile[p] % threadTile != 0)
      return "";
    tuned.threads[p] = op.blockTile[p] / threadTile;
    change = llvm::formatv("op{0}: {1} outputs per thread on loop {2}", index,
                           threadTile, p);
    break;
  }
  case 2: { // the reduction tile staged at a time
    int64_t stage = std::bernoulli_distribution(0.5)(rng) ? op.stageTile * 2
                                                          : op.stageTile / 2;
    if (stage < 4 || stage > 64 || shape.innerReductionSize % stage != 0)
      return "";
    tuned.stageTile = stage;
    if (tuned.reductionStep > 0 && stage % tuned.reductionStep != 0)
      tuned.reductionStep = 0;
    change = llvm::formatv("op{0}: stage {1}", index, stage);
    break;
  }
  case 3: { // the inner step
    llvm::SmallVector<int64_t> steps;
    for (int64_t step : {0, 2, 4, 8})
      if (step != op.reductionStep && (step == 0 || op.stageTile % step == 0))
        steps.push_back(step);
    if (steps.empty())
      return "";
    tuned.reductionStep = pickRandom<int64_t>(steps, rng);
    change =
        llvm::formatv("op{0}: staged step {1}", index, tuned.reductionStep);
    break;
  }
  default:
    unstage(tuned);
    op = tuned;
    return llvm::formatv("op{0}: unstaged", index).str();
  }
  int64_t threads = totalThreads(tuned);
  if (threads < 32 || threads > 1024 || !stagingFits(tuned))
    return "";
  op = tuned;
  return change;
}

/// One gene of a pipelined GEMM kernel changed to a neighbouring value
/// that still fits the contraction; returns a description, or "".
std::string retuneGemm(OpSchedule &op, const OpShape &shape, unsigned index,
                       std::mt19937_64 &rng) {
  const ContractionLoops &loops = *shape.contraction;
  ContractionTile tile = op.contraction;
  std::string change;
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
  case 5: // the block order: grouped by 8 tile rows, or the grid's own
    tile.blockGroup = tile.blockGroup > 1 ? 0 : 8;
    change =
        tile.blockGroup ? "blocks in groups of 8 rows" : "blocks in grid order";
    break;
  case 0: // the K step
    tile.blockK = tile.blockK == 16 ? 8 : 16;
    change = llvm::formatv("K step {0}", tile.blockK);
    break;
  case 1: // pipeline depth
    tile.stages += std::bernoulli_distribution(0.5)(rng) ? 1 : -1;
    change = llvm::formatv("{0} stages", tile.stages);
    break;
  case 2: { // the block tile's rows or columns, twice or half, with the
            // thread tile following so that the block keeps its threads
    bool rows = std::bernoulli_distribution(0.5)(rng);
    bool twice = std::bernoulli_distribution(0.5)(rng);
    int64_t &block = rows ? tile.blockM : tile.blockN;
    int64_t &thread = rows ? tile.threadM : tile.threadN;
    block = twice ? block * 2 : block / 2;
    thread = twice ? thread * 2 : std::max<int64_t>(1, thread / 2);
    change = llvm::formatv("block tile {0}x{1}", tile.blockM, tile.blockN);
    break;
  }
  case 3: { // another tile of the model's list
    llvm::SmallVector<ContractionTile> tiles =
        alternativeContractionTiles(loops);
    llvm::erase(tiles, op.contraction);
    if (tiles.empty())
      return "";
    tile = pickRandom<ContractionTile>(tiles, rng);
    change = llvm::formatv("tile {0}x{1}x{2}, {3} stages", tile.blockM,
                           tile.blockN, tile.blockK, tile.stages);
    break;
  }
  default: // fewer or more stages where K step 8 leaves room
    tile.blockK = 8;
    tile.stages = tile.stages == 4 ? 5 : 4;
    change = llvm::formatv("K step 8, {0} stages", tile.stages);
    break;
  }
  if (checkContractionTile(loops, tile))
    return "";
  op.contraction = tile;
  return llvm::formatv("op{0}: GEMM kernel {1}", index, change).str();
}

/// One parameter mutation of one op; returns a description, or "" when
/// none applies.
std::string mutateOp(OpSchedule &op, const OpShape &shape, unsigned index,
                     MutationAction action, std::mt19937_64 &rng) {
  unsigned n = shape.parallelSizes.size();
  if (n == 0)
    return "";
  unsigned inner = n - 1;
  // A GEMM kernel's genes are its tiles and stages; the loose mapping genes
  // below do not apply to it.
  if (op.contraction.isSet())
    return action == MutationAction::StageOperands && shape.contraction
               ? retuneGemm(op, shape, index, rng)
               : "";
  // A staged op's tiles are tuned as a whole (each thread's tile is
  // blockTile / threads, which the other mutations assume to be 1).
  if (op.stageTile > 0 && action != MutationAction::StageOperands)
    return "";
  // So is an op whose reduction lanes share: its mapping follows them.
  if (op.reductionLanes > 0 && action != MutationAction::ReductionLanes)
    return "";
  switch (action) {
  case MutationAction::ReductionLanes: {
    if (!shape.laneReduction)
      return "";
    llvm::SmallVector<int64_t> choices;
    if (op.reductionLanes == 0) {
      choices.push_back(std::max<int64_t>(defaultReductionLanes(shape), 32));
    } else {
      // Half or twice as many; a warp and a block of 256 are the usual
      // sizes.
      for (int64_t lanes : {op.reductionLanes / 2, op.reductionLanes * 2,
                            int64_t(32), int64_t(256)})
        if (lanes != op.reductionLanes && isValidReductionLanes(lanes))
          choices.push_back(lanes);
    }
    if (choices.empty() ||
        !setReductionLanes(op, shape, pickRandom<int64_t>(choices, rng)))
      return "";
    return llvm::formatv("op{0}: {1} reduction lanes", index, op.reductionLanes)
        .str();
  }
  case MutationAction::StageOperands: {
    if (op.stageTile > 0)
      return retuneStaging(op, shape, index, rng);
    if (!canStage(shape) || !applyStaging(op, shape, 64, 4, 16, 4))
      return "";
    return llvm::formatv("op{0}: stage inputs in shared memory, 4x4 outputs "
                         "per thread",
                         index)
        .str();
  }
  case MutationAction::VectorWidth: {
    // Vector width of the innermost loop (elementwise and reductions alike:
    // each thread then owns that many consecutive outputs).
    llvm::SmallVector<int64_t> widths;
    for (int64_t w : {1, 2, 4})
      if (shape.parallelSizes[inner] % w == 0 && w != op.vectorWidth &&
          (w == 1 || shape.vectorizable))
        widths.push_back(w);
    if (widths.empty() || op.threads[inner] == 0)
      return "";
    op.vectorWidth = pickRandom<int64_t>(widths, rng);
    makeStaticTiles(op, shape);
    return llvm::formatv("op{0}: vector width {1}", index, op.vectorWidth)
        .str();
  }
  case MutationAction::ReductionStep: {
    if (shape.innerReductionSize <= 1)
      return "";
    llvm::SmallVector<int64_t> steps;
    for (int64_t s : {0, 4, 8, 16})
      if ((s == 0 ||
           (shape.innerReductionSize % s == 0 && shape.vectorizable)) &&
          s != op.reductionStep)
        steps.push_back(s);
    if (steps.empty())
      return "";
    op.reductionStep = pickRandom<int64_t>(steps, rng);
    if (op.reductionStep > 0)
      makeStaticTiles(op, shape);
    return llvm::formatv("op{0}: reduction step {1}", index, op.reductionStep)
        .str();
  }
  case MutationAction::Threads: {
    // Threads along one mapped loop; block tiles follow.
    llvm::SmallVector<unsigned> mapped;
    for (unsigned p = 0; p < n; ++p)
      if (op.threads[p] > 0)
        mapped.push_back(p);
    if (mapped.empty())
      return "";
    unsigned p = pickRandom<unsigned>(mapped, rng);
    int64_t width = p == inner ? op.vectorWidth : 1;
    llvm::SmallVector<int64_t> counts;
    for (int64_t t : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024})
      if (t != op.threads[p] && t * width <= shape.parallelSizes[p] &&
          totalThreads(op) / op.threads[p] * t <= 1024)
        counts.push_back(t);
    if (counts.empty())
      return "";
    op.threads[p] = pickRandom<int64_t>(counts, rng);
    op.blockTile[p] = op.threads[p] * width;
    if (op.vectorWidth > 1 || op.reductionStep > 0)
      makeStaticTiles(op, shape);
    return llvm::formatv("op{0}: {1} threads on loop {2}", index, op.threads[p],
                         p)
        .str();
  }
  default:
    return "";
  }
}

/// Gives the ops of a restructured genome the parent's mapping where a
/// parent op has the same shape (each used once, in order), the default
/// mapping elsewhere.
void remapOps(Schedule &genome, const Schedule &parent,
              const Restructured &before, const Restructured &after) {
  llvm::SmallVector<bool> used(parent.ops.size(), false);
  // New ops get what the default schedule would give them (16-byte vectors,
  // a copy's 4 x 4 tiles), not the plain mapping.
  Schedule tuned = genome;
  tuned.ops = after.defaults;
  tuneDefaultOps(tuned, after);
  genome.ops.clear();
  for (auto [shape, fallback] : llvm::zip_equal(after.shapes, tuned.ops)) {
    std::optional<unsigned> match;
    for (unsigned j = 0; j < parent.ops.size() && j < before.shapes.size(); ++j)
      if (!used[j] && before.shapes[j] == shape) {
        match = j;
        break;
      }
    if (match)
      used[*match] = true;
    // Sizes alone do not say what the op became: a producer fused into it
    // may make the vectorizer refuse it (a transposed convolution's weight
    // flip), and the parent's vectors would then fail the whole candidate
    // at the transform stage.
    bool vectors = match && (parent.ops[*match].vectorWidth > 1 ||
                             parent.ops[*match].reductionStep > 0);
    genome.ops.push_back(match && (shape.vectorizable || !vectors)
                             ? parent.ops[*match]
                             : fallback);
  }
}

/// The split factors worth trying for a reduction of `size` elements:
/// powers of two from 16 to 8192 that divide it and leave at least 8
/// elements per partial sum; when none does (group norm's 4 x 31 x 63 x 63
/// = 492156 elements), the other divisors in that range, so that an odd
/// size is not left to one thread.
llvm::SmallVector<int64_t> splitFactorsFor(int64_t size) {
  llvm::SmallVector<int64_t> factors;
  for (int64_t f = 16; f <= 8192 && f * 8 <= size; f *= 2)
    if (size % f == 0)
      factors.push_back(f);
  if (factors.empty())
    for (int64_t f = 16; f <= 8192 && f * 8 <= size; ++f)
      if (size % f == 0)
        factors.push_back(f);
  return factors;
}

/// The largest of splitFactorsFor(size) up to `limit`; 0 when none.
int64_t largestSplitFactor(int64_t size, int64_t limit) {
  int64_t largest = 0;
  for (int64_t f : splitFactorsFor(size))
    if (f <= limit)
      largest = f;
  return largest;
}

/// The split of a single-loop reduction that gives enough partial sums for
/// outputs x split to fill about half the H200's 270336 resident threads,
/// and at least 256 (one block's worth per output): 256 ways for softmax's
/// 4096 rows, 8192 for layer norm's 16 samples; 0 when nothing divides.
int64_t parallelSplitFactor(const OpShape &shape) {
  int64_t outputs = 1;
  for (int64_t size : shape.parallelSizes)
    outputs *= size;
  int64_t wanted = 256;
  while (wanted < 8192 && outputs * wanted < 131072)
    wanted *= 2;
  return largestSplitFactor(shape.innerReductionSize, wanted);
}

/// A structure mutation; returns a description, or "" when none applies.
/// Whether the restructured reference still has a contraction the GEMM
/// genes act on.
bool hasContraction(const Restructured &structure) {
  return llvm::any_of(structure.shapes, [](const OpShape &shape) {
    return shape.contraction.has_value();
  });
}

/// Toggles `gene`, a structure gene that only matters where a contraction
/// is left (or that is on already), and describes the change; "" when it
/// cannot apply.
std::string toggleContractionGene(Schedule &genome, bool &gene,
                                  const Restructured &structure,
                                  llvm::StringRef on, llvm::StringRef off) {
  if (!gene && !hasContraction(structure))
    return "";
  gene = !gene;
  genome.splitFactors.clear();
  return (gene ? on : off).str();
}

std::string mutateStructure(Schedule &genome, const Restructured &structure,
                            MutationAction action, std::mt19937_64 &rng) {
  switch (action) {
  case MutationAction::FuseElementwise:
    genome.fuseElementwise = !genome.fuseElementwise;
    genome.splitFactors.clear(); // the ops they index change
    return genome.fuseElementwise ? "fuse elementwise producers"
                                  : "unfuse elementwise producers";
  case MutationAction::CollapseReductions:
    genome.collapseReductions = !genome.collapseReductions;
    genome.splitFactors.clear();
    return genome.collapseReductions ? "collapse reduction loops"
                                     : "keep reduction loops apart";
  case MutationAction::DecomposeReductions:
    genome.decomposeReductions = !genome.decomposeReductions;
    genome.splitFactors.clear();
    return genome.decomposeReductions ? "decompose multi-loop reductions"
                                      : "keep multi-loop reductions whole";
  case MutationAction::ConvolutionsAsGemm:
    genome.convolutionsAsGemm = !genome.convolutionsAsGemm;
    genome.splitFactors.clear();
    return genome.convolutionsAsGemm ? "convolutions as im2col and a GEMM"
                                     : "convolutions computed directly";
  case MutationAction::TransposeOperands: {
    // Only where some contraction has an operand to copy.
    if (!hasContraction(structure) && genome.kOuterCopies == KOuterCopies::None)
      return "";
    KOuterCopies next[] = {KOuterCopies::B, KOuterCopies::AB,
                           KOuterCopies::None};
    genome.kOuterCopies = next[static_cast<int>(genome.kOuterCopies)];
    genome.splitFactors.clear();
    return llvm::formatv("K-outer operand copies: {0}",
                         kOuterCopiesName(genome.kOuterCopies))
        .str();
  }
  case MutationAction::FuseEpilogues:
    return toggleContractionGene(genome, genome.fuseEpilogues, structure,
                                 "fuse epilogues into GEMM kernels",
                                 "give epilogues kernels of their own");
  case MutationAction::CommuteSums:
    return toggleContractionGene(genome, genome.commuteSums, structure,
                                 "row sums of GEMMs as matrix-vector products",
                                 "row sums of GEMMs as computed");
  case MutationAction::FuseReductions:
    // Row groups form only around reductions that lanes share.
    if (!genome.fuseReductions &&
        llvm::none_of(structure.shapes,
                      [](const OpShape &shape) { return shape.laneReduction; }))
      return "";
    genome.fuseReductions = !genome.fuseReductions;
    return genome.fuseReductions ? "reductions in their consumers' kernels"
                                 : "reductions in kernels of their own";
  case MutationAction::SplitSoftmaxStatistics:
    // The rewrite needs the exp fused into the sum; whether it applies is
    // decided by restructuring (no change: no proposal).
    if (!genome.fuseElementwise)
      return "";
    genome.splitSoftmaxStatistics = !genome.splitSoftmaxStatistics;
    return genome.splitSoftmaxStatistics ? "softmax statistics per chunk"
                                         : "softmax statistics per row";
  case MutationAction::SplitReduction: {
    genome.splitFactors.resize(structure.splittable.size(), 0);
    llvm::SmallVector<unsigned> candidates;
    for (auto [index, shape] : llvm::enumerate(structure.splittable))
      if (shape.reductionLoops == 1 &&
          !splitFactorsFor(shape.innerReductionSize).empty())
        candidates.push_back(index);
    if (candidates.empty())
      return "";
    unsigned index = pickRandom<unsigned>(candidates, rng);
    int64_t &factor = genome.splitFactors[index];
    llvm::SmallVector<int64_t> factors;
    for (int64_t f :
         splitFactorsFor(structure.splittable[index].innerReductionSize))
      if (f != factor)
        factors.push_back(f);
    if (factor > 0)
      factors.push_back(0);
    factor = pickRandom<int64_t>(factors, rng);
    if (llvm::all_of(genome.splitFactors, [](int64_t f) { return f == 0; }))
      genome.splitFactors.clear();
    return factor
               ? llvm::formatv("split reduction op{0} {1} ways", index, factor)
                     .str()
               : llvm::formatv("unsplit reduction op{0}", index).str();
  }
  default:
    return "";
  }
}

bool isStructural(MutationAction action) {
  return action == MutationAction::FuseElementwise ||
         action == MutationAction::CollapseReductions ||
         action == MutationAction::DecomposeReductions ||
         action == MutationAction::TransposeOperands ||
         action == MutationAction::FuseEpilogues ||
         action == MutationAction::CommuteSums ||
         action == MutationAction::ConvolutionsAsGemm ||
         action == MutationAction::FuseReductions ||
         action == MutationAction::SplitSoftmaxStatistics ||
         action == MutationAction::SplitReduction;
}

} // namespace

std::optional<Proposal> kf::proposeMutation(const Schedule &parent,
                                            const Restructured &structure,
                                            MutationAction action,
                                            std::mt19937_64 &rng,
                                            const RestructureFn &restructure) {
  Proposal proposal{parent, action, ""};
  if (isStructural(action)) {
    proposal.change = mutateStructure(proposal.genome, structure, action, rng);
    if (proposal.change.empty())
      return std::nullopt;
    // Row groups change kernels, not the ops the schedule indexes.
    if (action == MutationAction::FuseReductions)
      return proposal;
    std::optional<Restructured> after = restructure(proposal.genome);
    // A rewrite that does not apply, or changes nothing, is no proposal.
    if (!after || after->shapes == structure.shapes)
      return std::nullopt;
    remapOps(proposal.genome, parent, structure, *after);
    return proposal;
  }
  // Try the ops in a random order until one accepts the mutation.
  llvm::SmallVector<unsigned> order;
  for (unsigned i = 0; i < structure.shapes.size() && i < parent.ops.size();
       ++i)
    order.push_back(i);
  std::shuffle(order.begin(), order.end(), rng);
  for (unsigned i : order) {
    proposal.change =
        mutateOp(proposal.genome.ops[i], structure.shapes[i], i, action, rng);
    if (!proposal.change.empty())
      return proposal;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, Schedule>>
kf::expertSeeds(const Schedule &defaultSchedule,
                const RestructureFn &restructure) {
  std::vector<std::pair<std::string, Schedule>> seeds;
  // Every op whose innermost loop allows it: 4-wide vectors, 64 threads.
  auto vectorize = [](Schedule &genome, const Restructured &structure) {
    bool changed = false;
    for (auto [op, shape] : llvm::zip_equal(genome.ops, structure.shapes)) {
      if (shape.parallelSizes.empty() || op.threads.back() == 0 ||
          op.contraction.isSet() || op.reductionLanes > 0 ||
          !shape.vectorizable)
        continue;
      // A loop left untiled (beyond the three the grid maps) would put its
      // whole extent into each thread's vectors, which renderSchedule
      // refuses; one such op used to cost the whole seed.
      bool untiledLoop = false;
      for (auto [tile, size] :
           llvm::zip_equal(op.blockTile, shape.parallelSizes))
        untiledLoop |= tile == 0 && size > 1;
      if (untiledLoop)
        continue;
      // Reductions: accumulate 8 steps at a time in registers (a vector
      // width would multiply each thread's tile by the whole reduction).
      if (shape.innerReductionSize > 0) {
        if (shape.innerReductionSize % 8 != 0 || op.reductionStep == 8)
          continue;
        op.reductionStep = 8;
      } else {
        if (shape.parallelSizes.back() % 4 != 0 || op.vectorWidth == 4)
          continue;
        op.vectorWidth = 4;
      }
      makeStaticTiles(op, shape);
      changed = true;
    }
    return changed;
  };
  std::optional<Restructured> plain = restructure(defaultSchedule);
  if (!plain)
    return seeds;
  // Vectorized ops in kernels of their own: the default's groups ignore
  // their consumers' vector widths, so the seed turns them off (the other
  // side of the groups; L2-89 ran 3.77 ms so, 5.69 ms with thread groups).
  Schedule vectorized = defaultSchedule;
  vectorized.fuseReductions = false;
  if (vectorize(vectorized, *plain))
    seeds.push_back({"vectorized", vectorized});
  // Contractions: inputs staged in shared memory, register tiles per
  // thread; a moderate and a large tiling (the classic 64x64 blocks of 4x4
  // and 128x128 blocks of 8x8 outputs per thread).
  for (auto [name, block, tile, stage] :
       {std::tuple<const char *, int64_t, int64_t, int64_t>{"staged-64", 64, 4,
                                                            16},
        {"staged-128", 128, 8, 8}}) {
    Schedule staged = vectorized;
    bool any = false;
    for (auto [op, shape] : llvm::zip_equal(staged.ops, plain->shapes)) {
      OpSchedule tiled = op;
      if (!op.contraction.isSet() && op.reductionLanes == 0 &&
          canStage(shape) &&
          applyStaging(tiled, shape, block, tile, stage, 4)) {
        op = tiled;
        any = true;
      }
    }
    if (any)
      seeds.push_back({name, staged});
  }
  // GEMM kernels: the model's second and third choices of tile.
  for (unsigned choice = 1; choice <= 2; ++choice) {
    Schedule alternative = vectorized;
    bool any = false;
    for (auto [op, shape] : llvm::zip_equal(alternative.ops, plain->shapes)) {
      if (!op.contraction.isSet() || !shape.contraction)
        continue;
      llvm::SmallVector<ContractionTile> tiles =
          alternativeContractionTiles(*shape.contraction);
      if (tiles.size() <= choice)
        continue;
      op.contraction = tiles[choice];
      any = true;
    }
    if (any)
      seeds.push_back({"gemm-tile-" + std::to_string(choice + 1), alternative});
  }

  Schedule split = defaultSchedule;
  split.fuseElementwise = split.collapseReductions = true;
  split.splitFactors.clear();
  // The reductions keep kernels of their own here, vectorized: the other
  // side of the default's row groups (L1-23 Softmax: 6.06 ms so against
  // 6.33 ms as one row group of scalar loads, H200).
  split.fuseReductions = false;
  std::optional<Restructured> rewritten = restructure(split);
  if (!rewritten)
    return seeds;
  // Reductions left over several loops (batch norm's n and h*w) become a
  // partial reduction over the inner loop and a combining one, when that
  // applies; the partial sums alone already spread the work over threads.
  split.decomposeReductions = true;
  std::optional<Restructured> decomposed = restructure(split);
  bool anyDecomposed = decomposed && decomposed->splittable.size() >
                                         rewritten->splittable.size();
  if (anyDecomposed)
    rewritten = std::move(decomposed);
  else
    split.decomposeReductions = false;
  bool anySplit = false;
  for (const OpShape &shape : rewritten->splittable) {
    // A contraction the GEMM kernel computes keeps its K loop: the kernel
    // splits K itself where that fills the GPU (splitKFactor), and a split
    // here writes a partial product per slice of K (8 GB for a 1024 x 8192
    // x 8192 Linear layer, which made the seed 2.5x slower than the
    // default on Level 2 problem 99 and kept its softmax unsplit).
    bool gemmKernel =
        shape.contraction && defaultContractionTile(*shape.contraction);
    // A contiguous reduction gets reduction lanes instead (its default):
    // the lanes read the row at the memory's speed without partial sums in
    // global memory.
    int64_t factor = 0;
    if (!gemmKernel && !shape.laneReduction && shape.reductionLoops == 1 &&
        shape.innerReductionSize >= 8192)
      factor = parallelSplitFactor(shape);
    split.splitFactors.push_back(factor);
    anySplit |= factor > 0;
  }
  if (!anySplit)
    split.splitFactors.clear();
  // Fused elementwise producers are worth a seed of their own where they
  // feed reductions that lanes share (a softmax's exp, a norm's squares):
  // one pass over the input fewer per producer.
  bool anyLanes = llvm::any_of(rewritten->splittable, [](const OpShape &shape) {
    return shape.laneReduction && defaultReductionLanes(shape) > 0;
  });
  if (!anySplit && !anyDecomposed && !anyLanes)
    return seeds;
  std::optional<Restructured> after = restructure(split);
  if (!after)
    return seeds;
  split.ops = after->defaults;
  vectorize(split, *after);
  seeds.push_back({"split-reductions", split});
  return seeds;
}

std::optional<Schedule> kf::adaptGenome(const Schedule &genome,
                                        const RestructureFn &restructure) {
  Schedule adapted = genome;
  adapted.splitFactors.clear();
  std::optional<Restructured> base = restructure(adapted);
  if (!base)
    return std::nullopt;
  if (!genome.splitFactors.empty()) {
    if (genome.splitFactors.size() != base->splittable.size())
      return std::nullopt;
    for (auto [factor, shape] :
         llvm::zip_equal(genome.splitFactors, base->splittable)) {
      int64_t fitted = 0;
      if (factor > 0 && shape.reductionLoops == 1) {
        fitted = parallelSplitFactor(shape);
        if (!fitted)
          fitted = largestSplitFactor(shape.innerReductionSize, factor);
      }
      adapted.splitFactors.push_back(fitted);
    }
  }
  std::optional<Restructured> after = restructure(adapted);
  if (!after || after->shapes.size() != genome.ops.size())
    return std::nullopt;
  for (auto [op, shape] : llvm::zip_equal(adapted.ops, after->shapes)) {
    unsigned n = shape.parallelSizes.size();
    if (op.threads.size() != n || op.blockTile.size() != n || n == 0)
      return std::nullopt;
    for (unsigned p = 0; p < n; ++p) {
      op.threads[p] = std::min(op.threads[p], shape.parallelSizes[p]);
      op.blockTile[p] = std::min(op.blockTile[p], shape.parallelSizes[p]);
    }
    if (shape.parallelSizes[n - 1] % op.vectorWidth != 0)
      op.vectorWidth = 1;
    if (op.stageTile > 0) {
      // Refit the staging to the new shape with the same (power-of-two)
      // tiles where they still divide, or drop it.
      if (canStage(shape)) {
        OpSchedule staged = op;
        int64_t block = llvm::bit_floor(uint64_t(std::max<int64_t>(
            1, std::max(op.blockTile[n - 1], op.blockTile[n - 2]))));
        int64_t tile = llvm::bit_floor(uint64_t(std::max<int64_t>(
            1, op.blockTile[n - 1] / std::max<int64_t>(1, op.threads[n - 1]))));
        if (applyStaging(staged, shape, block, tile, op.stageTile,
                         op.reductionStep)) {
          op = staged;
          continue;
        }
      }
      unstage(op);
    }
    if (op.reductionStep > 0 &&
        (shape.innerReductionSize == 0 ||
         shape.innerReductionSize % op.reductionStep != 0))
      op.reductionStep = 0;
    // An op upstream's vectorizer refuses stays scalar (a schedule found
    // for another problem's op may vectorize it).
    if (!shape.vectorizable) {
      op.vectorWidth = 1;
      op.reductionStep = 0;
    }
    if (op.vectorWidth > 1 || op.reductionStep > 0)
      makeStaticTiles(op, shape);
  }
  return adapted;
}
