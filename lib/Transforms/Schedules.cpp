//===- Schedules.cpp - Schedules: transform scripts for a problem ---------===//

#include "kf/Transforms/Schedules.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <mutex>

using namespace mlir;

namespace {

/// Facts about one linalg op of the reference that a schedule needs.
struct ScheduledOp {
  linalg::LinalgOp op;
  /// Static loop ranges of the parallel loops, outermost first.
  SmallVector<int64_t> parallelSizes;
  /// Positions of the parallel loops among all loops.
  SmallVector<unsigned> parallelLoops;
  /// The innermost reduction loop and its static range, if any.
  std::optional<unsigned> innerReduction;
  int64_t innerReductionSize = 0;
  /// Iterations of all reduction loops together (1 without any).
  int64_t reductionIterations = 1;
  unsigned numLoops = 0;
  /// Rank of the op's first output (where a split inserts its dimension).
  int64_t outputRank = 0;
  /// The op's loops when the GEMM kernel can compute it
  /// (kf::analyzeContraction); kept here because a split erases the op
  /// that was analyzed.
  /// (Shared: ScheduledOp stays small enough for SmallVector.)
  std::shared_ptr<const kf::ContractionLoops> contraction;
  /// For such an op: the index of its in-place epilogue among the ops.
  std::optional<unsigned> epilogue;
};

/// The elementwise op that computes in place on the result of `op` (see
/// kf-fuse-contraction-epilogues): the only reader of the result, through
/// its init, with all loops parallel and the identity as output map.
Operation *inPlaceEpilogue(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  OpOperand &use = *op->getResult(0).getUses().begin();
  auto epilogue = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      !epilogue.isDpsInit(&use) || epilogue.getNumReductionLoops() != 0 ||
      !epilogue.getMatchingIndexingMap(&use).isIdentity())
    return nullptr;
  return epilogue;
}

FailureOr<SmallVector<ScheduledOp>> collectOps(func::FuncOp reference) {
  SmallVector<ScheduledOp> ops;
  WalkResult result = reference.walk([&](linalg::LinalgOp op) {
    ScheduledOp info;
    info.op = op;
    info.numLoops = op.getNumLoops();
    if (op.getNumDpsInits() > 0)
      if (auto shaped = dyn_cast<ShapedType>(op.getDpsInits()[0].getType()))
        info.outputRank = shaped.getRank();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    for (auto [index, type] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (type != utils::IteratorType::parallel) {
        info.innerReduction = index;
        info.innerReductionSize = ranges[index];
        info.reductionIterations *=
            ShapedType::isDynamic(ranges[index]) ? 1 : ranges[index];
        continue;
      }
      if (ShapedType::isDynamic(ranges[index])) {
        op.emitError() << "loop " << index
                       << " has a dynamic range; schedules need static shapes";
        return WalkResult::interrupt();
      }
      info.parallelLoops.push_back(index);
      info.parallelSizes.push_back(ranges[index]);
    }
    if (FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(op);
        succeeded(loops))
      info.contraction = std::make_shared<kf::ContractionLoops>(*loops);
    ops.push_back(std::move(info));
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (ScheduledOp &info : ops) {
    if (!info.contraction)
      continue;
    Operation *epilogue = inPlaceEpilogue(info.op);
    auto it = llvm::find_if(
        ops, [&](const ScheduledOp &other) { return other.op == epilogue; });
    if (epilogue && it != ops.end())
      info.epilogue = it - ops.begin();
  }
  return ops;
}

/// The gpu mapping attribute for the `position`-th mapped loop counted from
/// the innermost (0 = x).
std::string mappingName(StringRef kind, unsigned position) {
  static const char *dims[] = {"x", "y", "z"};
  return llvm::formatv("#gpu.{0}<{1}>", kind, dims[position]).str();
}

} // namespace

void kf::setContractionTile(OpSchedule &schedule, linalg::LinalgOp op,
                            const ContractionLoops &loops,
                            const ContractionTile &tile) {
  schedule.contraction = tile;
  schedule.vectorWidth = 1;
  schedule.reductionStep = 0;
  schedule.stageTile = 0;
  // Block tile and threads over the parallel loops, for the record.
  schedule.blockTile.clear();
  schedule.threads.clear();
  for (auto [loop, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (type != utils::IteratorType::parallel)
      continue;
    if (loop == loops.mLoop) {
      schedule.blockTile.push_back(tile.blockM);
      schedule.threads.push_back(tile.blockM / tile.threadM);
    } else if (loop == loops.nLoop) {
      schedule.blockTile.push_back(tile.blockN);
      schedule.threads.push_back(tile.blockN / tile.threadN);
    } else {
      schedule.blockTile.push_back(op.getStaticLoopRanges()[loop] > 1 ? 1 : 0);
      schedule.threads.push_back(0);
    }
  }
}

namespace {
void setContractionTile(kf::OpSchedule &schedule, const ScheduledOp &info,
                        const kf::ContractionLoops &loops,
                        const kf::ContractionTile &tile) {
  kf::setContractionTile(schedule, linalg::LinalgOp(info.op), loops, tile);
}

/// The default mapping of one op (see buildDefaultSchedule).
FailureOr<kf::OpSchedule>
defaultOpSchedule(const ScheduledOp &info,
                  kf::DefaultSchedule kind = kf::DefaultSchedule::Tuned) {
  if (info.parallelSizes.empty())
    return linalg::LinalgOp(info.op).emitError()
           << "has no parallel loop: the default schedule maps parallel "
              "loops to threads and cannot place a full reduction; write "
              "the reduction with a unit parallel dimension";
  kf::OpSchedule opSchedule;
  unsigned numParallel = info.parallelSizes.size();
  opSchedule.blockTile.assign(numParallel, 0);
  opSchedule.threads.assign(numParallel, 0);
  // Innermost parallel loop -> x (64 wide: coalesced), next -> y (4), the
  // third -> z (1); outer loops beyond three stay loops in each thread.
  const int64_t preferred[] = {64, 4, 1};
  for (unsigned position = 0; position < std::min(numParallel, 3u);
       ++position) {
    unsigned loop = numParallel - 1 - position;
    int64_t tile = std::min(preferred[position], info.parallelSizes[loop]);
    opSchedule.blockTile[loop] = tile;
    opSchedule.threads[loop] = tile;
  }
  // A contraction the pipelined GEMM kernel can compute gets it, with the
  // analytic model's tile.
  if (kind == kf::DefaultSchedule::Naive)
    return opSchedule;
  if (info.contraction)
    if (std::optional<kf::ContractionTile> tile =
            kf::defaultContractionTile(*info.contraction))
      setContractionTile(opSchedule, info, *info.contraction, *tile);
  return opSchedule;
}

/// Whether the structure genes other than splits rewrite the reference.
bool rewritesOps(const kf::Schedule &schedule) {
  return schedule.fuseElementwise || schedule.collapseReductions ||
         schedule.decomposeReductions || schedule.collapseContractionLoops ||
         schedule.fuseEpilogues || schedule.commuteSums ||
         schedule.kOuterCopies != kf::KOuterCopies::None;
}

bool hasSplits(const kf::Schedule &schedule) {
  return llvm::any_of(schedule.splitFactors,
                      [](int64_t factor) { return factor > 0; });
}

/// The transform ops that rewrite the reference (fusion, collapsing) or, with
/// `splits`, split its reductions; `numOps` is the op count before splits.
/// Emits into a sequence whose root handle is %root.
void renderStructure(llvm::raw_ostream &os, const kf::Schedule &schedule,
                     bool splits, unsigned numOps,
                     ArrayRef<ScheduledOp> splittable) {
  if (!splits) {
    if (!rewritesOps(schedule))
      return;
    os << "    %sfunc0 = transform.structured.match ops{[\"func.func\"]} in "
          "%root : (!transform.any_op) -> !transform.any_op\n";
    unsigned next = 0;
    for (auto [enabled, pass] :
         {std::pair<bool, StringRef>{schedule.fuseElementwise,
                                     "kf-fuse-elementwise"},
          {schedule.collapseReductions, "kf-collapse-reduction-dims"},
          {schedule.decomposeReductions, "kf-decompose-reductions"},
          {schedule.collapseContractionLoops, "kf-collapse-contraction-dims"},
          {schedule.fuseEpilogues, "kf-fuse-contraction-epilogues"},
          {schedule.commuteSums, "kf-commute-sum-contraction"}}) {
      if (!enabled)
        continue;
      os << llvm::formatv("    %sfunc{0} = transform.apply_registered_pass "
                          "\"{1}\" to %sfunc{2} : (!transform.any_op) -> "
                          "!transform.any_op\n",
                          next + 1, pass, next);
      ++next;
    }
    // Last: fusion would fuse the copies (elementwise) back into their
    // contractions.
    if (schedule.kOuterCopies != kf::KOuterCopies::None)
      os << llvm::formatv(
          "    %sfunc{0} = transform.apply_registered_pass "
          "\"kf-transpose-contraction-operands\" with options = {{ \"a\" = "
          "{1}, \"b\" = true } to %sfunc{2} : (!transform.any_op) -> "
          "!transform.any_op\n",
          next + 1,
          schedule.kOuterCopies == kf::KOuterCopies::AB ? "true" : "false",
          next);
    return;
  }
  os << "    %sops = transform.structured.match interface{LinalgOp} in %root "
        ": (!transform.any_op) -> !transform.any_op\n    ";
  for (unsigned i = 0; i < numOps; ++i)
    os << (i ? ", " : "") << "%s" << i;
  os << " = transform.split_handle %sops : (!transform.any_op) -> (";
  for (unsigned i = 0; i < numOps; ++i)
    os << (i ? ", " : "") << "!transform.any_op";
  os << ")\n";
  for (auto [index, factor] : llvm::enumerate(schedule.splitFactors)) {
    if (factor <= 0)
      continue;
    // A contraction is split over K (split-K): the parts are the partial
    // op's outermost loop and the partial sums' outermost dimension, so
    // that each part is a batch of the GEMM kernel with contiguous operand
    // rows.
    // Only where the GEMM kernel can take the parts (a matrix-vector
    // product is a contraction no GEMM tile fits: its split stays inner).
    if (splittable[index].contraction &&
        kf::defaultContractionTile(*splittable[index].contraction)) {
      os << llvm::formatv(
          "    %s{0}_init, %s{0}_fill, %s{0}_partial, %s{0}_combine = "
          "transform.structured.split_reduction %s{0} {{ split_factor = {1}, "
          "insert_split_dimension = 0 } : (!transform.any_op) -> "
          "(!transform.any_op, !transform.any_op, !transform.any_op, "
          "!transform.any_op)\n",
          index, factor);
      continue;
    }
    // The partial results get the split as their innermost dimension, and
    // the split loop is innermost too (inner_parallel): consecutive threads
    // then read consecutive elements.
    os << llvm::formatv(
        "    %s{0}_init, %s{0}_fill, %s{0}_partial, %s{0}_combine = "
        "transform.structured.split_reduction %s{0} {{ split_factor = {1}, "
        "insert_split_dimension = {2}, inner_parallel } : (!transform.any_op) "
        "-> (!transform.any_op, !transform.any_op, !transform.any_op, "
        "!transform.any_op)\n",
        index, factor, splittable[index].outputRank);
  }
}

/// The reference after the structure genes of `schedule`, in its own
/// module, with its ops before and after splitting.
struct AppliedStructure {
  OwningOpRef<ModuleOp> payload;
  SmallVector<ScheduledOp> splittable, ops;
};

FailureOr<AppliedStructure> applyStructure(func::FuncOp reference,
                                           const kf::Schedule &schedule) {
  AppliedStructure applied;
  applied.payload = ModuleOp::create(reference.getLoc());
  applied.payload->push_back(reference.clone());
  auto func = [&] {
    return cast<func::FuncOp>(applied.payload->getBody()->front());
  };
  auto run = [&](bool splits) -> LogicalResult {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "module attributes {transform.with_named_sequence} {\n"
       << "  transform.named_sequence @__transform_main("
          "%root: !transform.any_op {transform.readonly}) {\n";
    renderStructure(os, schedule, splits, applied.splittable.size(),
                    applied.splittable);
    os << "    transform.yield\n  }\n}\n";
    OwningOpRef<ModuleOp> script =
        kf::parseSchedule(text, "structure", reference.getContext());
    return success(script &&
                   succeeded(kf::applySchedule(*applied.payload, *script)));
  };
  if (rewritesOps(schedule) && failed(run(/*splits=*/false)))
    return failure();
  FailureOr<SmallVector<ScheduledOp>> splittable = collectOps(func());
  if (failed(splittable))
    return failure();
  applied.splittable = std::move(*splittable);
  if (!hasSplits(schedule)) {
    applied.ops = applied.splittable;
    return applied;
  }
  if (schedule.splitFactors.size() != applied.splittable.size())
    return reference.emitError()
           << "the schedule gives " << schedule.splitFactors.size()
           << " split factors but the rewritten reference has "
           << applied.splittable.size() << " linalg operations";
  for (auto [factor, info] :
       llvm::zip_equal(schedule.splitFactors, applied.splittable)) {
    if (factor <= 0)
      continue;
    unsigned reductions = info.numLoops - info.parallelLoops.size();
    if (reductions != 1)
      return info.op.emitError()
             << "cannot split a reduction over " << reductions
             << " loops; split an op with exactly one reduction loop "
                "(collapse or decompose its reduction loops first)";
    if (factor < 2 || info.innerReductionSize % factor != 0 ||
        factor >= info.innerReductionSize)
      return info.op.emitError()
             << "split factor " << factor
             << " must be at least 2, below and dividing the reduction loop "
                "of "
             << info.innerReductionSize;
    if (linalg::LinalgOp(info.op).getNumDpsInits() != 1)
      return linalg::LinalgOp(info.op).emitError()
             << "only an op with one output can be split";
  }
  if (failed(run(/*splits=*/true)))
    return failure();
  FailureOr<SmallVector<ScheduledOp>> ops = collectOps(func());
  if (failed(ops))
    return failure();
  applied.ops = std::move(*ops);
  return applied;
}

SmallVector<kf::OpShape> shapesOf(ArrayRef<ScheduledOp> ops) {
  SmallVector<kf::OpShape> shapes;
  for (const ScheduledOp &info : ops) {
    // Not info.op: after a split it may be erased.
    shapes.push_back(kf::OpShape{
        info.parallelSizes, info.innerReductionSize,
        static_cast<unsigned>(info.numLoops - info.parallelLoops.size()),
        info.contraction ? std::optional(*info.contraction) : std::nullopt,
        info.epilogue});
  }
  return shapes;
}

} // namespace

FailureOr<SmallVector<kf::OpShape>> kf::describeOps(func::FuncOp reference) {
  FailureOr<SmallVector<ScheduledOp>> ops = collectOps(reference);
  if (failed(ops))
    return failure();
  return shapesOf(*ops);
}

FailureOr<kf::Restructured> kf::restructure(func::FuncOp reference,
                                            const Schedule &schedule) {
  FailureOr<AppliedStructure> applied = applyStructure(reference, schedule);
  if (failed(applied))
    return failure();
  Restructured result;
  result.splittable = shapesOf(applied->splittable);
  result.shapes = shapesOf(applied->ops);
  for (const ScheduledOp &info : applied->ops) {
    FailureOr<OpSchedule> op = defaultOpSchedule(info);
    if (failed(op))
      return failure();
    result.defaults.push_back(std::move(*op));
  }
  return result;
}

FailureOr<kf::Schedule> kf::buildDefaultSchedule(func::FuncOp reference,
                                                 DefaultSchedule kind) {
  FailureOr<SmallVector<ScheduledOp>> ops = collectOps(reference);
  if (failed(ops))
    return failure();
  if (ops->empty())
    return reference.emitError()
           << "the reference has no linalg operation to schedule";
  Schedule schedule;
  SmallVector<OpShape> shapes;
  if (kind == DefaultSchedule::Tuned) {
    // Contractions the GEMM kernel refuses that have several M (or N)
    // loops in a row become GEMMs. Where the kernel already takes the op
    // (one batch loop over the grid's z: L1-10), the measured kernel stays.
    schedule.collapseContractionLoops =
        llvm::any_of(*ops, [](const ScheduledOp &info) {
          return !info.contraction &&
                 !collapsibleContractionLoops(info.op).empty();
        });
    // The elementwise ops after a GEMM kernel's contraction run in that
    // kernel, on its accumulators.
    schedule.fuseEpilogues = true;
    FailureOr<Restructured> structure = restructure(reference, schedule);
    if (failed(structure))
      return failure();
    if (llvm::none_of(structure->shapes, [](const OpShape &shape) {
          return shape.contraction && shape.epilogue &&
                 defaultContractionTile(*shape.contraction);
        })) {
      schedule.fuseEpilogues = false;
      structure = restructure(reference, schedule);
      if (failed(structure))
        return failure();
    }
    // A row sum of a GEMM's output becomes two matrix-vector products
    // where the rewrite applies (fewer contractions remain).
    auto contractions = [](const Restructured &shapes) {
      return llvm::count_if(shapes.shapes, [](const OpShape &shape) {
        return shape.contraction.has_value();
      });
    };
    schedule.commuteSums = true;
    FailureOr<Restructured> commuted = restructure(reference, schedule);
    if (failed(commuted))
      return failure();
    if (contractions(*commuted) < contractions(*structure))
      structure = std::move(commuted);
    else
      schedule.commuteSums = false;
    // A GEMM kernel reading an operand down the columns of its tile (rows
    // along K) reads a K-outer copy instead.
    if (llvm::any_of(structure->shapes, [](const OpShape &shape) {
          return shape.contraction &&
                 defaultContractionTile(*shape.contraction) &&
                 shape.contraction->bRowsAlongK;
        })) {
      schedule.kOuterCopies = KOuterCopies::B;
      structure = restructure(reference, schedule);
      if (failed(structure))
        return failure();
    }
    schedule.ops = structure->defaults;
    shapes = structure->shapes;
  } else {
    for (ScheduledOp &info : *ops) {
      FailureOr<OpSchedule> op = defaultOpSchedule(info, kind);
      if (failed(op))
        return failure();
      schedule.ops.push_back(std::move(*op));
    }
    shapes = shapesOf(*ops);
  }
  bool anySplit = false;
  for (auto [op, shape] : llvm::zip_equal(schedule.ops, shapes)) {
    // A GEMM kernel whose blocks leave SMs idle splits its K loop.
    int64_t split = 0;
    if (op.contraction.isSet() && shape.contraction)
      split = kf::splitKFactor(*shape.contraction, op.contraction);
    schedule.splitFactors.push_back(split);
    anySplit |= split > 0;
  }
  if (!anySplit) {
    schedule.splitFactors.clear();
    return schedule;
  }
  FailureOr<Restructured> split = restructure(reference, schedule);
  if (failed(split))
    return failure();
  schedule.ops = split->defaults;
  return schedule;
}

namespace {
/// Padding of each shared-memory row of a staged tile, in elements: with
/// 4-byte elements, 16-byte vector reads of a row stay aligned, and rows 4
/// apart start in different banks.
constexpr int64_t kWorkgroupPadding = 4;
/// The static shared memory a kernel may declare (ptxas: 0xc000).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// Each thread's op becomes one set of vectors: keep it small (a larger one
/// makes LLVM's instruction selection recurse until the stack ends).
constexpr int64_t kMaxVectorElements = 256;

/// What the script needs, after bufferization, of an op whose inputs are
/// staged in shared memory.
struct StagedOp {
  unsigned index = 0;
  unsigned numInputs = 0;
  unsigned numLoops = 0;
  /// Per loop of the op: each thread's tile (0 for reduction loops).
  SmallVector<int64_t> threadTile;
  SmallVector<std::string> threadMapping;
  /// The innermost reduction loop (the staged one).
  unsigned reductionLoop = 0;
  /// The inner step over the staged reduction tile (0: none).
  int64_t step = 0;
};

/// Checks a staged op's schedule and renders its block-level reduction
/// tiling (the block forall is already rendered): the loop over the tiles
/// of the reduction, whose op is marked for the threads' part after
/// bufferization (renderStagedThreads).
FailureOr<StagedOp> renderStagedTiling(llvm::raw_ostream &os, unsigned index,
                                       const ScheduledOp &info,
                                       const kf::OpSchedule &schedule,
                                       ArrayRef<std::string> threadMapping) {
  // Op handles are values; their methods are not const.
  linalg::LinalgOp op = info.op;
  auto fail = [&]() { return op.emitError(); };
  if (schedule.stageTile < 0)
    return fail() << "the stage tile must be positive";
  if (!info.innerReduction)
    return fail() << "staging in shared memory needs a reduction loop to tile";
  if (ShapedType::isDynamic(info.innerReductionSize))
    return fail() << "staging in shared memory needs a static reduction loop";
  if (info.innerReductionSize % schedule.stageTile != 0)
    return fail() << "the stage tile " << schedule.stageTile
                  << " does not divide the reduction loop of "
                  << info.innerReductionSize;
  if (schedule.vectorWidth != 1)
    return fail() << "a staged op computes register tiles: give it vector "
                     "width 1";
  int64_t step = schedule.reductionStep;
  if (step < 0 || (step > 0 && schedule.stageTile % step != 0))
    return fail() << "the reduction step " << step
                  << " must divide the stage tile " << schedule.stageTile;
  StagedOp staged;
  staged.index = index;
  staged.numInputs = op.getNumDpsInputs();
  staged.numLoops = info.numLoops;
  staged.reductionLoop = *info.innerReduction;
  staged.step = step;
  staged.threadTile.assign(info.numLoops, 0);
  unsigned numParallel = info.parallelSizes.size();
  int64_t perThread = 1;
  for (int p = numParallel - 1; p >= 0; --p) {
    int64_t size = info.parallelSizes[p], tile = schedule.blockTile[p];
    int64_t threads = schedule.threads[p];
    if (tile == 0 || threads == 0)
      return fail() << "a staged op needs every parallel loop tiled over "
                       "blocks and mapped to threads";
    if (size % tile != 0 || tile % threads != 0)
      return fail() << "a staged op needs block tiles that divide their loops "
                       "and thread counts that divide the tiles: "
                    << tile << " of " << size << " over " << threads
                    << " threads";
    staged.threadTile[info.parallelLoops[p]] = tile / threads;
    perThread *= tile / threads;
  }
  // Every parallel loop is mapped: the mapping renderSchedule derived.
  staged.threadMapping.assign(threadMapping.begin(), threadMapping.end());
  perThread *= info.reductionIterations / info.innerReductionSize *
               (step > 0 ? step : schedule.stageTile);
  if (perThread > kMaxVectorElements)
    return fail() << "a staged thread tile of " << perThread
                  << " elements per step is too large (at most "
                  << kMaxVectorElements
                  << "): use more threads or a smaller reduction step";
  // Each input's tile in shared memory: the block's part of every loop it
  // is indexed by (the stage of the tiled reduction, all of the others),
  // rows padded by kWorkgroupPadding elements.
  SmallVector<int64_t> loopTile = op.getStaticLoopRanges();
  for (unsigned p = 0; p < numParallel; ++p)
    loopTile[info.parallelLoops[p]] = schedule.blockTile[p];
  loopTile[*info.innerReduction] = schedule.stageTile;
  int64_t sharedBytes = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (!type || type.getRank() == 0)
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    int64_t elements = 1;
    for (auto [position, result] : llvm::enumerate(map.getResults())) {
      int64_t extent = type.getDimSize(position);
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        extent = loopTile[dim.getPosition()];
      if (ShapedType::isDynamic(extent))
        return fail() << "staging in shared memory needs static input tiles";
      elements *= extent +
                  (position + 1 == map.getNumResults() ? kWorkgroupPadding : 0);
    }
    sharedBytes +=
        elements * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  if (sharedBytes > kMaxStaticSharedBytes)
    return fail() << "the staged tiles need " << sharedBytes
                  << " bytes of shared memory; a block may declare at most "
                  << kMaxStaticSharedBytes
                  << " statically (ptxas refuses more): use smaller block or "
                     "stage tiles";
  SmallVector<int64_t> stageTile(info.numLoops, 0);
  stageTile[*info.innerReduction] = schedule.stageTile;
  os << llvm::formatv(
      "    %stage{0}, %stageloop{0} = transform.structured.tile_using_for "
      "%block{0} tile_sizes [{1}] : (!transform.any_op) -> (!transform.any_op, "
      "!transform.any_op)\n"
      "    transform.annotate %stage{0} \"kf.staged{0}\" : !transform.any_op\n",
      index, llvm::interleaved(stageTile));
  return staged;
}

/// After bufferization: promotes each staged op's input tiles to workgroup
/// memory (kf-materialize-workgroup-memory then distributes the copies
/// over the block), tiles the promoted op over threads and vectorizes each
/// thread's part.
void renderStagedThreads(llvm::raw_ostream &os, ArrayRef<StagedOp> stagedOps) {
  if (stagedOps.empty())
    return;
  for (const StagedOp &staged : stagedOps) {
    unsigned i = staged.index;
    os << llvm::formatv(
        "    %staged{0} = transform.structured.match attributes{{kf.staged{0}} "
        "in %func : (!transform.any_op) -> !transform.any_op\n"
        "    %promoted{0} = transform.structured.promote %staged{0} "
        "{{operands_to_promote = [{1}], mapping = "
        "[#gpu.memory_space<workgroup>]} : (!transform.any_op) -> "
        "!transform.any_op\n"
        "    %sthread{0}, %stforall{0} = "
        "transform.structured.tile_using_forall "
        "%promoted{0} tile_sizes [{2}] (mapping = [{3}]) : (!transform.any_op) "
        "-> (!transform.any_op, !transform.any_op)\n",
        i, llvm::interleaved(llvm::seq<unsigned>(0, staged.numInputs)),
        llvm::interleaved(staged.threadTile),
        llvm::interleaved(staged.threadMapping));
    if (staged.step > 0) {
      SmallVector<int64_t> stepTile(staged.numLoops, 0);
      stepTile[staged.reductionLoop] = staged.step;
      os << llvm::formatv(
          "    %sstep{0}, %ssteploop{0} = transform.structured.tile_using_for "
          "%sthread{0} tile_sizes [{1}] : (!transform.any_op) -> "
          "(!transform.any_op, !transform.any_op)\n",
          i, llvm::interleaved(stepTile));
    }
    os << llvm::formatv(
        "    transform.structured.vectorize %{0}{1} : !transform.any_op\n",
        staged.step > 0 ? "sstep" : "sthread", i);
  }
  // Only workgroup allocations read the padding.
  os << "    %wgallocs = transform.structured.match ops{[\"memref.alloc\"]} "
        "in %func : (!transform.any_op) -> !transform.any_op\n"
     << "    %wgpadding = transform.param.constant " << kWorkgroupPadding
     << " : i64 -> !transform.param<i64>\n"
        "    transform.annotate %wgallocs \"kf.workgroup_padding\" = "
        "%wgpadding : !transform.any_op, !transform.param<i64>\n";
}
} // namespace

FailureOr<std::string> kf::renderSchedule(func::FuncOp reference,
                                          const Schedule &schedule) {
  FailureOr<AppliedStructure> applied = applyStructure(reference, schedule);
  if (failed(applied))
    return failure();
  SmallVector<ScheduledOp> *ops = &applied->ops;
  bool rewritten = rewritesOps(schedule) || hasSplits(schedule);
  if (ops->size() != schedule.ops.size())
    return reference.emitError()
           << "the schedule describes " << schedule.ops.size()
           << " operations but the "
           << (rewritten ? "rewritten reference" : "reference") << " has "
           << ops->size() << " linalg operations";

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "module attributes {transform.with_named_sequence} {\n"
     << "  transform.named_sequence @__transform_main("
        "%root: !transform.any_op {transform.consumed}) {\n";
  renderStructure(os, schedule, /*splits=*/false, 0, {});
  if (hasSplits(schedule))
    renderStructure(os, schedule, /*splits=*/true, applied->splittable.size(),
                    applied->splittable);
  os << "    %ops = transform.structured.match interface{LinalgOp} in %root "
        ": (!transform.any_op) -> !transform.any_op\n";
  unsigned numOps = ops->size();
  os << "    ";
  for (unsigned i = 0; i < numOps; ++i)
    os << (i ? ", " : "") << "%op" << i;
  os << " = transform.split_handle %ops : (!transform.any_op) -> (";
  for (unsigned i = 0; i < numOps; ++i)
    os << (i ? ", " : "") << "!transform.any_op";
  os << ")\n";

  // Contractions scheduled as pipelined GEMM kernels, and the fills fused
  // into them (which get no kernel of their own).
  SmallVector<std::optional<kf::ContractionLoops>> gemms(numOps);
  SmallVector<bool> fusedFills(numOps, false);
  // Per GEMM op: the index of the fill fused into it.
  SmallVector<unsigned> gemmFills(numOps, 0);
  // Per GEMM op: the index of its epilogue (kf-fuse-contraction-epilogues),
  // and the epilogues fused so (which get no kernel of their own).
  SmallVector<std::optional<unsigned>> gemmEpilogues(numOps);
  SmallVector<bool> fusedEpilogues(numOps, false);
  for (auto [index, info, opSchedule] : llvm::enumerate(*ops, schedule.ops)) {
    if (!opSchedule.contraction.isSet())
      continue;
    linalg::LinalgOp op = info.op;
    std::string whyNot;
    FailureOr<ContractionLoops> loops = analyzeContraction(op, &whyNot);
    if (failed(loops))
      return op.emitError()
             << "cannot be scheduled as a GEMM kernel: " << whyNot;
    if (std::optional<std::string> problem =
            checkContractionTile(*loops, opSchedule.contraction))
      return op.emitError() << "GEMM kernel tile: " << *problem;
    Operation *fill = op.getDpsInitOperand(0)->get().getDefiningOp();
    auto fillIt = llvm::find_if(
        *ops, [&](const ScheduledOp &other) { return other.op == fill; });
    if (fillIt == ops->end())
      return op.emitError() << "the fill of a GEMM kernel's output is not "
                               "among the scheduled ops";
    gemms[index] = *loops;
    gemmFills[index] = fillIt - ops->begin();
    fusedFills[gemmFills[index]] = true;
    if (info.epilogue) {
      gemmEpilogues[index] = *info.epilogue;
      fusedEpilogues[*info.epilogue] = true;
    }
  }

  // Per op with a kernel: its block dims, and how many foralls it leaves
  // (thread foralls before the block forall, in match's post-order).
  SmallVector<SmallVector<int64_t, 3>> blockDims(numOps);
  SmallVector<unsigned> foralls(numOps, 0);
  SmallVector<StagedOp> stagedOps;
  // The ops vectorized per thread (their block foralls' handles).
  SmallVector<unsigned> vectorizedOps;
  for (auto [index, info, opSchedule] : llvm::enumerate(*ops, schedule.ops)) {
    if (fusedFills[index] || fusedEpilogues[index])
      continue;
    if (gemms[index]) {
      std::string epilogueHandle =
          gemmEpilogues[index] ? "%op" + std::to_string(*gemmEpilogues[index])
                               : std::string();
      renderContractionTiling(
          os, index, info.op, *gemms[index], opSchedule.contraction,
          "%op" + std::to_string(gemmFills[index]), epilogueHandle);
      blockDims[index] = contractionBlockDims(opSchedule.contraction);
      // The fill's threads, A's and B's copies, the compute threads, and
      // the epilogue's threads.
      foralls[index] = gemmEpilogues[index] ? 6 : 5;
      continue;
    }
    foralls[index] = 2;
    unsigned numParallel = info.parallelSizes.size();
    if (opSchedule.blockTile.size() != numParallel ||
        opSchedule.threads.size() != numParallel)
      return info.op.emitError()
             << "the schedule gives " << opSchedule.blockTile.size()
             << " block tile sizes and " << opSchedule.threads.size()
             << " thread counts, but this op has " << numParallel
             << " parallel loops";
    // Tile sizes are per loop of the op (reduction loops untiled).
    SmallVector<int64_t> blockTileSizes(info.numLoops, 0);
    SmallVector<int64_t> threadCounts(info.numLoops, 0);
    SmallVector<std::string> blockMapping, threadMapping;
    SmallVector<int64_t, 3> dims = {1, 1, 1};
    // Mapped loops are numbered from the innermost tiled one (x) outwards.
    unsigned blockPosition = 0, threadPosition = 0;
    for (int p = numParallel - 1; p >= 0; --p) {
      unsigned loop = info.parallelLoops[p];
      blockTileSizes[loop] = opSchedule.blockTile[p];
      threadCounts[loop] = opSchedule.threads[p];
      if (opSchedule.blockTile[p] < 0 || opSchedule.threads[p] < 0)
        return info.op.emitError() << "negative tile size or thread count";
      if (opSchedule.blockTile[p] > 0) {
        if (blockPosition == 3)
          return info.op.emitError()
                 << "the schedule tiles more than three parallel loops over "
                    "blocks; the grid has three dimensions";
        blockMapping.push_back(mappingName("block", blockPosition++));
      }
      if (opSchedule.threads[p] > 0) {
        if (threadPosition == 3)
          return info.op.emitError()
                 << "the schedule maps more than three parallel loops to "
                    "threads; a block has three dimensions";
        dims[threadPosition] = opSchedule.threads[p];
        threadMapping.push_back(mappingName("thread", threadPosition++));
      }
    }
    if (blockMapping.empty())
      return info.op.emitError() << "the schedule tiles no loop over blocks";
    if (threadMapping.empty())
      return info.op.emitError() << "the schedule maps no loop to threads";
    int64_t threadsPerBlock = dims[0] * dims[1] * dims[2];
    if (threadsPerBlock > 1024)
      return info.op.emitError()
             << "the schedule asks for " << threadsPerBlock
             << " threads per block; a CUDA block holds at most 1024";
    blockDims[index] = dims;
    // Mapping lists follow the loop order (outermost first).
    std::reverse(blockMapping.begin(), blockMapping.end());
    std::reverse(threadMapping.begin(), threadMapping.end());

    os << llvm::formatv(
        "    %block{0}, %bforall{0} = transform.structured.tile_using_forall "
        "%op{0} tile_sizes [{1}] (mapping = [{2}]) : (!transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        index, llvm::interleaved(blockTileSizes),
        llvm::interleaved(blockMapping));
    if (opSchedule.stageTile != 0) {
      FailureOr<StagedOp> staged =
          renderStagedTiling(os, index, info, opSchedule, threadMapping);
      if (failed(staged))
        return failure();
      stagedOps.push_back(*staged);
      continue;
    }
    bool staticThreadTiles =
        opSchedule.vectorWidth > 1 || opSchedule.reductionStep > 0;
    if (opSchedule.vectorWidth < 1 || opSchedule.reductionStep < 0)
      return info.op.emitError()
             << "vector width must be at least 1 and the reduction step "
                "non-negative";
    if (!staticThreadTiles) {
      os << llvm::formatv(
          "    %thread{0}, %tforall{0} = "
          "transform.structured.tile_using_forall %block{0} num_threads [{1}] "
          "(mapping = [{2}]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n",
          index, llvm::interleaved(threadCounts),
          llvm::interleaved(threadMapping));
      continue;
    }
    // Vectorized ops need static tiles per thread: each thread's share of
    // every mapped loop, exactly.
    vectorizedOps.push_back(index);
    SmallVector<int64_t> threadTile(info.numLoops, 0);
    for (unsigned p = 0; p < numParallel; ++p) {
      unsigned loop = info.parallelLoops[p];
      int64_t size = info.parallelSizes[p], tile = opSchedule.blockTile[p];
      int64_t threads = opSchedule.threads[p];
      int64_t width = p + 1 == numParallel ? opSchedule.vectorWidth : 1;
      if (tile > 0 && size % tile != 0)
        return info.op.emitError()
               << "a vectorized schedule needs block tiles that divide their "
                  "loops: "
               << tile << " does not divide " << size;
      int64_t extent = tile > 0 ? tile : size;
      if (threads == 0) {
        if (width > 1)
          return info.op.emitError()
                 << "the vectorized innermost loop must be mapped to threads";
        continue;
      }
      if (extent != threads * width && (width > 1 || extent % threads != 0))
        return info.op.emitError()
               << "the block tile " << extent << " must be " << threads
               << " threads x a vector width of " << width;
      threadTile[loop] = extent / threads;
    }
    // Each thread's op becomes one set of vectors: keep it small (an
    // untiled loop would make a vector of its whole extent, which LLVM's
    // instruction selection then recurses through until the stack ends).
    int64_t perThread = 1;
    for (unsigned p = 0; p < numParallel; ++p)
      perThread *= threadTile[info.parallelLoops[p]] > 0
                       ? threadTile[info.parallelLoops[p]]
                       : (opSchedule.blockTile[p] > 0 ? opSchedule.blockTile[p]
                                                      : info.parallelSizes[p]);
    perThread *= opSchedule.reductionStep > 0
                     ? info.reductionIterations / info.innerReductionSize *
                           opSchedule.reductionStep
                     : info.reductionIterations;
    if (perThread > kMaxVectorElements)
      return info.op.emitError()
             << "a vectorized thread tile of " << perThread
             << " elements is too large (at most " << kMaxVectorElements
             << "): map more loops to threads or use a reduction step";
    os << llvm::formatv(
        "    %thread{0}, %tforall{0} = transform.structured.tile_using_forall "
        "%block{0} tile_sizes [{1}] (mapping = [{2}]) : (!transform.any_op) "
        "-> (!transform.any_op, !transform.any_op)\n",
        index, llvm::interleaved(threadTile), llvm::interleaved(threadMapping));
    if (opSchedule.reductionStep > 0) {
      if (!info.innerReduction)
        return info.op.emitError()
               << "a reduction step is given, but this op has no reduction "
                  "loop";
      if (info.innerReductionSize % opSchedule.reductionStep != 0)
        return info.op.emitError()
               << "the reduction step " << opSchedule.reductionStep
               << " does not divide the reduction loop of "
               << info.innerReductionSize;
      SmallVector<int64_t> stepTile(info.numLoops, 0);
      stepTile[*info.innerReduction] = opSchedule.reductionStep;
      os << llvm::formatv(
          "    %step{0}, %steploop{0} = transform.structured.tile_using_for "
          "%thread{0} tile_sizes [{1}] : (!transform.any_op) -> "
          "(!transform.any_op, !transform.any_op)\n",
          index, llvm::interleaved(stepTile));
    }
    // Only this op is vectorized (the others keep their scalar loops).
    os << llvm::formatv("    transform.structured.vectorize %{0}{1} : "
                        "!transform.any_op\n",
                        opSchedule.reductionStep > 0 ? "step" : "thread",
                        index);
  }

  bool anyGemm =
      llvm::any_of(gemms, [](const auto &loops) { return loops.has_value(); });
  bool vectorize = !vectorizedOps.empty();
  if (vectorize && anyGemm) {
    // The same clean-up, confined to the vectorized ops: canonicalizing the
    // whole function also rewrites the GEMM kernels' operand copies, which
    // nvgpu.create_async_groups then no longer recognizes ("no shared
    // memory copy").
    for (unsigned index : vectorizedOps)
      os << llvm::formatv(
          "    transform.apply_patterns to %bforall{0} {{\n"
          "      transform.apply_patterns.canonicalization\n"
          "    } : !transform.any_op\n"
          "    %vloops{0} = transform.structured.match ops{{[\"scf.for\"]} in "
          "%bforall{0} : (!transform.any_op) -> !transform.any_op\n"
          "    transform.loop.hoist_loop_invariant_subsets %vloops{0} : "
          "!transform.any_op\n",
          index);
  } else if (vectorize) {
    // Keep loop-carried accumulators in registers
    // (on tensors, before bufferization), and after bufferization lower
    // transfers to plain vector loads and stores. fold_memref_alias_ops is
    // left out: LLVM 22 folds reshapes into multi-dimensional transfers
    // with the wrong dimensions.
    // Passes, not transform.apply_patterns, whose tracking listener prints
    // an op on every failed match (see kf-lower-vector-transfers).
    os << "    %vfunc = transform.structured.match ops{[\"func.func\"]} in "
          "%root : (!transform.any_op) -> !transform.any_op\n"
       << "    %cfunc = transform.apply_registered_pass \"canonicalize\" to "
          "%vfunc : (!transform.any_op) -> !transform.any_op\n"
       << "    %loops = transform.structured.match ops{[\"scf.for\"]} in "
          "%cfunc : (!transform.any_op) -> !transform.any_op\n"
       << "    transform.loop.hoist_loop_invariant_subsets %loops : "
          "!transform.any_op\n";
  }
  if (anyGemm)
    // The GEMM kernels' vectorized copies must write into their workgroup
    // buffers in place, not through a private temporary per thread.
    os << "    %efunc = transform.structured.match ops{[\"func.func\"]} in "
          "%root : (!transform.any_op) -> !transform.any_op\n"
          "    transform.apply_dce to %efunc : !transform.any_op\n"
          "    transform.bufferization.eliminate_empty_tensors %efunc : "
          "!transform.any_op\n";
  os << "    %bufferized = transform.bufferization.one_shot_bufferize %root "
        "{bufferize_function_boundaries = true, "
        "function_boundary_type_conversion = 1 : i32} : (!transform.any_op) "
        "-> !transform.any_op\n"
     << "    %" << (vectorize ? "bfunc" : "func")
     << " = transform.structured.match ops{[\"func.func\"]} in "
        "%bufferized : (!transform.any_op) -> !transform.any_op\n";
  if (vectorize)
    os << "    %func = transform.apply_registered_pass "
          "\"kf-lower-vector-transfers\" to %bfunc : (!transform.any_op) -> "
          "!transform.any_op\n";
  renderStagedThreads(os, stagedOps);
  if (anyGemm)
    // Workgroup buffers allocated in the K loop move out of it, so that
    // they can become the pipeline's ring buffers.
    os << "    %func_h = transform.apply_registered_pass "
          "\"buffer-loop-hoisting\" to %func : (!transform.any_op) -> "
          "!transform.any_op\n";
  std::string funcHandle = anyGemm ? "%func_h" : "%func";
  os << "    %foralls = transform.structured.match ops{[\"scf.forall\"]} in "
     << funcHandle << " : (!transform.any_op) -> !transform.any_op\n";
  // match walks in post-order: each op's thread foralls come before the
  // block forall that holds them.
  unsigned numForalls = 0;
  os << "    ";
  for (unsigned i = 0; i < numOps; ++i) {
    for (unsigned f = 0; f < foralls[i]; ++f)
      os << (numForalls++ ? ", " : "") << (f + 1 == foralls[i] ? "%b" : "%t")
         << i << (f + 1 == foralls[i] ? "" : "_" + std::to_string(f));
  }
  os << " = transform.split_handle %foralls : (!transform.any_op) -> (";
  for (unsigned i = 0; i < numForalls; ++i)
    os << (i ? ", " : "") << "!transform.any_op";
  os << ")\n";
  for (unsigned i = 0; i < numOps; ++i) {
    if (fusedFills[i] || fusedEpilogues[i])
      continue;
    os << llvm::formatv("    %launch{0} = transform.gpu.map_forall_to_blocks "
                        "%b{0} generate_gpu_launch : (!transform.any_op) -> "
                        "!transform.any_op\n",
                        i);
    os << llvm::formatv(
        "    %mapped{0} = transform.gpu.map_nested_forall_to_threads "
        "%launch{0} block_dims = [{1}] : (!transform.any_op) -> "
        "!transform.any_op\n",
        i, llvm::interleaved(blockDims[i]));
    // The GEMM kernel's later steps find its launch by this mark.
    if (gemms[i])
      os << llvm::formatv(
          "    transform.annotate %mapped{0} \"kf.gemm_kernel{0}\" "
          ": !transform.any_op\n",
          i);
    // kf-hoist-accumulators keeps a staged op's outputs in registers, and a
    // GEMM kernel's.
    if (gemms[i] || llvm::any_of(stagedOps, [&](const StagedOp &staged) {
          return staged.index == i;
        }))
      os << llvm::formatv("    transform.annotate %mapped{0} \"{1}\" : "
                          "!transform.any_op\n",
                          i, kf::kHoistAccumulatorsAttrName);
  }
  for (unsigned i = 0; i < numOps; ++i) {
    if (!gemms[i])
      continue;
    std::string gemmFunc = "%gfunc" + std::to_string(i);
    os << "    " << gemmFunc
       << " = transform.structured.match ops{[\"func.func\"]} in "
          "%bufferized : (!transform.any_op) -> !transform.any_op\n";
    renderContractionPipeline(os, i, schedule.ops[i].contraction, gemmFunc);
  }
  os << "    transform.yield\n  }\n}\n";
  return text;
}

namespace {
llvm::json::Array toArray(ArrayRef<int64_t> values) {
  return llvm::json::Array(values);
}

/// Reads an array of integers (llvm::json maps std::vector, not
/// SmallVector).
bool mapSizes(const llvm::json::Value &value, llvm::StringLiteral key,
              SmallVectorImpl<int64_t> &out, llvm::json::Path path) {
  std::vector<int64_t> values;
  const llvm::json::Value *field = value.getAsObject()->get(key);
  if (!field || !llvm::json::fromJSON(*field, values, path.field(key))) {
    if (!field)
      path.field(key).report("expected an array of integers");
    return false;
  }
  out.assign(values.begin(), values.end());
  return true;
}
} // namespace

llvm::json::Value kf::toJSON(const Schedule &schedule) {
  llvm::json::Array ops;
  for (const OpSchedule &op : schedule.ops) {
    llvm::json::Object object{{"block", toArray(op.blockTile)},
                              {"threads", toArray(op.threads)},
                              {"vector", op.vectorWidth},
                              {"step", op.reductionStep},
                              {"stage", op.stageTile}};
    if (op.contraction.isSet())
      object["gemm"] = toJSON(op.contraction);
    ops.push_back(std::move(object));
  }
  llvm::json::Object object{{"fuse", schedule.fuseElementwise},
                            {"collapse", schedule.collapseReductions},
                            {"decompose", schedule.decomposeReductions},
                            {"splits", toArray(schedule.splitFactors)},
                            {"ops", std::move(ops)}};
  if (schedule.collapseContractionLoops)
    object["collapse_mn"] = true;
  if (schedule.fuseEpilogues)
    object["epilogue"] = true;
  if (schedule.commuteSums)
    object["commute_sums"] = true;
  if (schedule.kOuterCopies != KOuterCopies::None)
    object["transpose"] = kOuterCopiesName(schedule.kOuterCopies);
  return object;
}

llvm::StringRef kf::kOuterCopiesName(KOuterCopies copies) {
  switch (copies) {
  case KOuterCopies::None:
    return "none";
  case KOuterCopies::B:
    return "b";
  case KOuterCopies::AB:
    return "ab";
  }
  llvm_unreachable("unknown KOuterCopies");
}

/// Reads the optional "transpose" gene ("none", "b" or "ab").
static bool mapKOuterCopies(const llvm::json::Value &value,
                            kf::KOuterCopies &copies, llvm::json::Path path) {
  copies = kf::KOuterCopies::None;
  const llvm::json::Value *field = value.getAsObject()->get("transpose");
  if (!field)
    return true;
  std::optional<llvm::StringRef> name = field->getAsString();
  for (kf::KOuterCopies candidate :
       {kf::KOuterCopies::None, kf::KOuterCopies::B, kf::KOuterCopies::AB})
    if (name && *name == kf::kOuterCopiesName(candidate)) {
      copies = candidate;
      return true;
    }
  path.field("transpose").report("expected \"none\", \"b\" or \"ab\"");
  return false;
}

bool kf::fromJSON(const llvm::json::Value &value, Schedule &schedule,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("fuse", schedule.fuseElementwise) ||
      !mapper.map("collapse", schedule.collapseReductions) ||
      // Absent in schedules stored before the gene existed.
      !mapper.mapOptional("decompose", schedule.decomposeReductions) ||
      !mapper.mapOptional("collapse_mn", schedule.collapseContractionLoops) ||
      !mapper.mapOptional("epilogue", schedule.fuseEpilogues) ||
      !mapper.mapOptional("commute_sums", schedule.commuteSums) ||
      !mapKOuterCopies(value, schedule.kOuterCopies, path) ||
      !mapSizes(value, "splits", schedule.splitFactors, path))
    return false;
  const llvm::json::Array *ops = value.getAsObject()->getArray("ops");
  if (!ops) {
    path.field("ops").report("expected an array of op schedules");
    return false;
  }
  schedule.ops.clear();
  for (auto [index, opValue] : llvm::enumerate(*ops)) {
    OpSchedule op;
    llvm::json::ObjectMapper opMapper(opValue, path.field("ops").index(index));
    llvm::json::Path opPath = path.field("ops").index(index);
    if (!opMapper || !mapSizes(opValue, "block", op.blockTile, opPath) ||
        !mapSizes(opValue, "threads", op.threads, opPath) ||
        !opMapper.map("vector", op.vectorWidth) ||
        !opMapper.map("step", op.reductionStep) ||
        // Absent in schedules stored before the gene existed.
        !opMapper.mapOptional("stage", op.stageTile) ||
        !opMapper.mapOptional("gemm", op.contraction))
      return false;
    schedule.ops.push_back(std::move(op));
  }
  return true;
}

OwningOpRef<ModuleOp> kf::parseSchedule(StringRef text, StringRef bufferName,
                                        MLIRContext *context) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, bufferName);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
  OwningOpRef<ModuleOp> script =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
  if (!script)
    return nullptr;
  if (!transform::detail::findTransformEntryPoint(
          *script, /*module=*/nullptr,
          transform::TransformDialect::kTransformEntryPointSymbolName)) {
    return nullptr;
  }
  return script;
}

/// Schedule mistakes that make upstream transforms crash instead of
/// failing, checked before anything runs. A tile_using_forall whose mapping
/// has fewer entries than it tiles dimensions builds an invalid scf.forall
/// that map_forall_to_blocks dereferences out of bounds (LLVM 22).
static LogicalResult lintSchedule(ModuleOp script) {
  WalkResult result = script.walk([](transform::TileUsingForallOp tile) {
    std::optional<ArrayAttr> mapping = tile.getMapping();
    if (!mapping)
      return WalkResult::advance();
    SmallVector<OpFoldResult> sizes = tile.getMixedNumThreads();
    if (sizes.empty())
      sizes = tile.getMixedTileSizes();
    int64_t tiled = llvm::count_if(sizes, [](OpFoldResult size) {
      std::optional<int64_t> constant = getConstantIntValue(size);
      return !constant || *constant != 0;
    });
    if ((int64_t)mapping->size() == tiled)
      return WalkResult::advance();
    tile.emitOpError() << "has " << mapping->size()
                       << " mapping entries but tiles " << tiled
                       << " dimensions (the nonzero sizes); give one mapping "
                          "entry per tiled dimension";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult kf::applySchedule(ModuleOp payload, ModuleOp script) {
  transform::TransformOpInterface entry =
      transform::detail::findTransformEntryPoint(
          script, /*module=*/nullptr,
          transform::TransformDialect::kTransformEntryPointSymbolName);
  if (!entry || failed(lintSchedule(script)))
    return failure();
  // The passes rendered schedules run (transform.apply_registered_pass:
  // canonicalize and kf's own), registered here so that the schedules apply
  // whatever the program registered (registering twice is harmless).
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerCanonicalizerPass();
    kf::registerKFPasses();
  });
  transform::TransformOptions options;
  // Upstream transforms still crash on some malformed schedules; a crash
  // rejects the schedule instead of ending the process (the payload is then
  // in an unknown state and must be discarded, as callers do on failure).
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  LogicalResult applied = failure();
  if (!recovery.RunSafely([&] {
        applied = transform::applyTransformNamedSequence(payload, entry, script,
                                                         options);
      })) {
    emitError(script.getLoc())
        << "applying the schedule crashed the transform interpreter (an MLIR "
           "bug triggered by this schedule); the schedule is rejected";
    return failure();
  }
  return applied;
}
