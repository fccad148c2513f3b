//===- Schedule.cpp - Schedules: transform scripts for a problem ----------===//

#include "kf/Schedule/Schedule.h"
#include "kf/Analysis/ScanAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "ScheduleStructure.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
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
using namespace kf::schedule_detail;

namespace {
/// How many threads a default mapping wants at least before it tiles loops
/// beyond the grid's three dimensions over blocks: the H200's 132 SMs hold
/// 270,336 threads; four times that hides the last wave.
constexpr int64_t kMinDefaultThreads = int64_t{1} << 20;
} // namespace

namespace kf::schedule_detail {

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

/// kf::OpShape::contiguousElementwise.
bool isContiguousElementwise(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || op.getNumReductionLoops() != 0)
    return false;
  AffineExpr inner = getAffineDimExpr(numLoops - 1, op.getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(numLoops - 1)) {
      if (op.isDpsInit(&operand))
        return false;
      continue;
    }
    if (map.getResults().back() != inner ||
        llvm::any_of(map.getResults().drop_back(), [&](AffineExpr result) {
          return result.isFunctionOfDim(numLoops - 1);
        }))
      return false;
  }
  return !op->walk([](tensor::ExtractOp) {
              return WalkResult::interrupt();
            }).wasInterrupted();
}

/// kf::OpShape::transposedInputLoop: the loop along which the only input
/// of a transposing copy is contiguous, as a position among the op's
/// loops (all parallel).
std::optional<unsigned> transposedInputLoop(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.getNumLoops() < 2 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !inputMap.isPermutation())
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || body.getOperations().size() != 1 ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(input->getOperandNumber()))
    return std::nullopt;
  unsigned loop =
      cast<AffineDimExpr>(inputMap.getResults().back()).getPosition();
  if (loop + 1 == op.getNumLoops())
    return std::nullopt;
  return loop;
}

/// See kf::OpShape::stridedReduction.
bool isStridedReduction(linalg::LinalgOp op, const ScheduledOp &info) {
  if (!info.innerReduction || info.parallelLoops.empty() ||
      info.numLoops - info.parallelLoops.size() != 1 ||
      op.getNumDpsInits() != 1)
    return false;
  MLIRContext *context = op.getContext();
  AffineExpr reduction = getAffineDimExpr(*info.innerReduction, context);
  AffineExpr innermost = getAffineDimExpr(info.parallelLoops.back(), context);
  bool coalesced = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0)
      continue;
    if (map.getResults().back() == reduction)
      return false;
    coalesced |= map.getResults().back() == innermost &&
                 map.isFunctionOfDim(*info.innerReduction);
  }
  return coalesced;
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
    // Lanes pay off where consecutive elements of the reduction are
    // consecutive in memory for some input (the one they stream).
    if (kf::isLaneReduction(op)) {
      AffineExpr reduction =
          getAffineDimExpr(*info.innerReduction, op.getContext());
      info.laneReduction =
          llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
            AffineMap map = op.getMatchingIndexingMap(input);
            return map.getNumResults() > 0 &&
                   map.getResults().back() == reduction;
          });
    }
    info.stridedReduction = isStridedReduction(op, info);
    if (FailureOr<kf::ScanLoops> scan = kf::analyzeScan(op); succeeded(scan))
      info.scanPosition = llvm::find(info.parallelLoops, scan->scanLoop) -
                          info.parallelLoops.begin();
    info.vectorizable = succeeded(linalg::vectorizeOpPrecondition(
        op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
        /*vectorizeNDExtract=*/true));
    info.contiguousElementwise = isContiguousElementwise(op);
    info.transposedInputLoop = transposedInputLoop(op);
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

} // namespace kf::schedule_detail

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

static bool setScanLanes(kf::OpSchedule &schedule, const kf::OpShape &shape,
                         int64_t lanes);

bool kf::setReductionLanes(OpSchedule &schedule, const OpShape &shape,
                           int64_t lanes) {
  unsigned n = shape.parallelSizes.size();
  if (shape.scanPosition)
    return setScanLanes(schedule, shape, lanes);
  if (!shape.laneReduction || n == 0 || !isValidReductionLanes(lanes))
    return false;
  OpSchedule mapped;
  mapped.reductionLanes = lanes;
  mapped.blockTile.assign(n, 0);
  mapped.threads.assign(n, 0);
  // The grid takes the three innermost parallel loops, one output of each
  // per block; outer ones (rare) stay loops in the block.
  for (unsigned p = n - std::min(n, 3u); p < n; ++p)
    mapped.blockTile[p] = 1;
  if (lanes <= 32) {
    // 256 threads: 256 / lanes groups of lanes, one output each, along the
    // innermost parallel loop (as many as divide it: no group idles while
    // the others of its warp shuffle).
    int64_t groups = 256 / lanes;
    int64_t size = shape.parallelSizes[n - 1];
    while (groups > 1 && size % groups != 0)
      groups /= 2;
    mapped.blockTile[n - 1] = groups;
    mapped.threads[n - 1] = groups;
  }
  schedule = std::move(mapped);
  return true;
}

/// Makes every mapped loop's block tile divide its loop and its thread
/// count divide the tile, keeping the innermost tile = threads x width:
/// what vector widths and reduction steps need.
void kf::makeStaticTiles(OpSchedule &op, const OpShape &shape) {
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

/// setReductionLanes for a scan: its lanes walk whole rows (kf-lower-scans),
/// so the scanned loop stays untiled; the grid takes up to three of the
/// other parallel loops, one row of each per block, and 256 / lanes groups
/// of lanes take rows along the innermost of them (as many as divide it).
static bool setScanLanes(kf::OpSchedule &schedule, const kf::OpShape &shape,
                         int64_t lanes) {
  unsigned n = shape.parallelSizes.size();
  if (lanes > 32 || !kf::isValidReductionLanes(lanes))
    return false;
  SmallVector<unsigned> rowLoops;
  for (unsigned p = 0; p < n; ++p)
    if (p != *shape.scanPosition)
      rowLoops.push_back(p);
  // A single row: no loop to tile over blocks.
  if (rowLoops.empty())
    return false;
  kf::OpSchedule mapped;
  mapped.reductionLanes = lanes;
  mapped.blockTile.assign(n, 0);
  mapped.threads.assign(n, 0);
  for (unsigned i = rowLoops.size() - std::min<size_t>(rowLoops.size(), 3);
       i < rowLoops.size(); ++i)
    mapped.blockTile[rowLoops[i]] = 1;
  unsigned inner = rowLoops.back();
  int64_t groups = 256 / lanes;
  while (groups > 1 && shape.parallelSizes[inner] % groups != 0)
    groups /= 2;
  mapped.blockTile[inner] = groups;
  mapped.threads[inner] = groups;
  schedule = std::move(mapped);
  return true;
}

bool kf::readsOneInput(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  unsigned used = 0;
  for (OpOperand *input : op.getDpsInputOperands())
    used += !body->getArgument(input->getOperandNumber()).use_empty();
  return used <= 1;
}

/// Outputs from which a thread per output fills the GPU without lanes.
static constexpr int64_t kManyOutputs = int64_t(1) << 20;

int64_t kf::defaultReductionLanes(const OpShape &shape) {
  // A scan's lanes take 8 elements each per chunk: a warp for rows of 256
  // and more, fewer lanes for shorter rows (a blocked scan's blocks of 32
  // get 4); under 16 elements the masked reduction is as short.
  if (shape.scanPosition) {
    if (shape.innerReductionSize < 16 || shape.parallelSizes.size() < 2)
      return 0;
    return std::min<int64_t>(
        32, int64_t(1) << llvm::Log2_64(shape.innerReductionSize / 8));
  }
  if (!shape.laneReduction || shape.innerReductionSize < 32)
    return 0;
  int64_t outputs = computeProduct(shape.parallelSizes);
  if (shape.innerReductionSize < 4096) {
    // With a million outputs or more, a thread per output already gives
    // every SM its 2048 threads several times over: lanes would only add
    // their shuffles (the blocked scans of L1-89..93 reduce 32 and 1,024
    // elements for 10^9 and 3.4 x 10^7 outputs, and ran 3.5 times slower
    // with lanes).
    return outputs >= kManyOutputs ? 0 : 32;
  }
  // 132 SMs hold 2048 threads each: with few outputs, wider blocks keep
  // them busy.
  return outputs < 512 ? 1024 : 256;
}

int64_t kf::stridedSplitFactor(const OpShape &shape) {
  if (!shape.stridedReduction || shape.reductionLoops != 1)
    return 0;
  int64_t outputs = computeProduct(shape.parallelSizes);
  int64_t length = shape.innerReductionSize, factor = 1;
  while (outputs * factor < kMinDefaultThreads && length % (factor * 2) == 0 &&
         length / (factor * 2) >= 32)
    factor *= 2;
  return factor > 1 ? factor : 0;
}

namespace kf::schedule_detail {
void setContractionTile(kf::OpSchedule &schedule, const ScheduledOp &info,
                        const kf::ContractionLoops &loops,
                        const kf::ContractionTile &tile) {
  kf::setContractionTile(schedule, linalg::LinalgOp(info.op), loops, tile);
}

kf::OpShape shapeOf(const ScheduledOp &info) {
  // Not info.op: after a split it may be erased.
  return kf::OpShape{
      info.parallelSizes,
      info.innerReductionSize,
      static_cast<unsigned>(info.numLoops - info.parallelLoops.size()),
      info.contraction ? std::optional(*info.contraction) : std::nullopt,
      info.epilogue,
      info.laneReduction,
      info.stridedReduction,
      info.vectorizable,
      info.scanPosition,
      info.contiguousElementwise,
      info.transposedInputLoop};
}

FailureOr<kf::OpSchedule> defaultOpSchedule(const ScheduledOp &info,
                                            kf::DefaultSchedule kind) {
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
  // third -> z (1); outer loops beyond three: see below.
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
  // A long contiguous reduction is shared among the lanes of a warp or a
  // block: one thread per output walks its own row, and a warp's loads
  // then touch 32 rows at once.
  kf::OpShape shape = shapeOf(info);
  if (!opSchedule.contraction.isSet())
    if (int64_t lanes = kf::defaultReductionLanes(shape))
      kf::setReductionLanes(opSchedule, shape, lanes);
  // Loops beyond the grid's three dimensions (a 5-D op's batch and
  // channels) stay loops in every thread unless the three that the grid
  // takes leave the GPU short of threads: then they are tiled by one over
  // blocks as well, innermost first, on linear block dimensions (a Conv3d's
  // epilogue had 13,440 threads of 1,920 elements each). (The naive mapping
  // above keeps them in the threads: it maps the trusted reference, which
  // shares no more code with the candidates than it must.)
  if (!opSchedule.contraction.isSet()) {
    // A lane reduction's outputs each take `lanes` threads.
    int64_t threads = std::max<int64_t>(opSchedule.reductionLanes, 1);
    for (unsigned p = numParallel - std::min(numParallel, 3u); p < numParallel;
         ++p)
      threads *= opSchedule.blockTile[p] > 0
                     ? llvm::divideCeil(info.parallelSizes[p],
                                        opSchedule.blockTile[p]) *
                           std::max<int64_t>(opSchedule.threads[p], 1)
                     : 1;
    for (int p = static_cast<int>(numParallel) - 4;
         p >= 0 && threads < kMinDefaultThreads; --p) {
      if (opSchedule.blockTile[p] != 0)
        continue;
      opSchedule.blockTile[p] = 1;
      threads *= info.parallelSizes[p];
    }
  }
  return opSchedule;
}

/// Whether `info`'s op is a pooling window (a named linalg.pooling_* op, or
/// a generic reduction reading one input, through a window, i + r: not a
/// convolution, which reads weights too) whose windowed input an
/// all-parallel linalg.generic produces (its padded copy).
bool isPoolingOfElementwise(const ScheduledOp &info) {
  linalg::LinalgOp op = info.op;
  if (!info.innerReduction)
    return false;
  if (!kf::isNamedPooling(op) &&
      (!isa<linalg::GenericOp>(op.getOperation()) || !kf::readsOneInput(op)))
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer.getNumReductionLoops() != 0)
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::any_of(map.getResults(),
                     [](AffineExpr expr) { return !isa<AffineDimExpr>(expr); }))
      return true;
  }
  return false;
}

/// Whether the structure genes other than splits rewrite the reference.
bool rewritesOps(const kf::Schedule &schedule) {
  return schedule.gatherSelections || schedule.foldScans ||
         schedule.fuseElementwise || schedule.convolutionsAsGemm ||
         schedule.interchangeLoops || schedule.collapseReductions ||
         schedule.decomposeReductions || schedule.collapseContractionLoops ||
         schedule.transposeProducts || schedule.fuseEpilogues ||
         schedule.commuteSums || schedule.splitSoftmaxStatistics ||
         schedule.padContractions ||
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
         {std::pair<bool, StringRef>{schedule.gatherSelections,
                                     "kf-gather-selected-elements"},
          {schedule.foldScans, "kf-fold-blocked-scans"},
          {schedule.convolutionsAsGemm, "kf-convolution-to-gemm"},
          {schedule.interchangeLoops, "kf-interchange-to-output-order"},
          {schedule.fuseElementwise, "kf-fuse-elementwise"},
          {schedule.splitSoftmaxStatistics, "kf-split-softmax-statistics"},
          {schedule.collapseReductions, "kf-collapse-reduction-dims"},
          {schedule.decomposeReductions, "kf-decompose-reductions"},
          {schedule.collapseContractionLoops, "kf-collapse-contraction-dims"},
          {schedule.transposeProducts, "kf-transpose-contraction-products"},
          {schedule.fuseEpilogues, "kf-fuse-contraction-epilogues"},
          {schedule.commuteSums, "kf-commute-sum-contraction"},
          {schedule.padContractions, "kf-pad-contractions"}}) {
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
    // A strided reduction (a column sum) is split the same way: its parts
    // become the partial op's outermost parallel loop, and the threads
    // stay along the columns, each summing a contiguous run of rows.
    if ((splittable[index].contraction &&
         kf::defaultContractionTile(*splittable[index].contraction)) ||
        splittable[index].stridedReduction) {
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
  for (const ScheduledOp &info : ops)
    shapes.push_back(shapeOf(info));
  return shapes;
}

} // namespace kf::schedule_detail

FailureOr<SmallVector<kf::OpShape>> kf::describeOps(func::FuncOp reference) {
  FailureOr<SmallVector<ScheduledOp>> ops = collectOps(reference);
  if (failed(ops))
    return failure();
  return shapesOf(*ops);
}

SmallVector<unsigned>
kf::schedule_detail::groupedReductions(ArrayRef<ScheduledOp> ops,
                                       ArrayRef<kf::OpSchedule> schedules) {
  SmallVector<unsigned> reductions;
  SmallVector<RowGroup> rowGroups = findRowGroups(ops, schedules);
  for (const RowGroup &group : rowGroups)
    llvm::append_range(reductions, group.reductions);
  for (const ThreadGroup &group : findThreadGroups(ops, schedules, rowGroups)) {
    reductions.push_back(group.reduction);
    if (group.fill)
      reductions.push_back(*group.fill);
  }
  return reductions;
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
  result.groupedReductions = groupedReductions(applied->ops, result.defaults);
  for (const RowGroup &group : findRowGroups(applied->ops, result.defaults))
    if (group.reducingConsumer)
      result.reducingGroupConsumers.push_back(group.consumer);
  return result;
}

FailureOr<kf::Schedule> kf::completeSchedule(func::FuncOp reference,
                                             const Schedule &schedule) {
  if (!schedule.ops.empty())
    return schedule;
  FailureOr<Restructured> structure = restructure(reference, schedule);
  if (failed(structure))
    return failure();
  Schedule completed = schedule;
  completed.ops = structure->defaults;
  // What the default schedule gives ops of these shapes, not the plain
  // mapping: a genome of structure genes alone is compared with defaults.
  tuneDefaultOps(completed, *structure);
  return completed;
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
