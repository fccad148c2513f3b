//===- ScheduleRendering.cpp - A schedule genome as a transform script ----===//
//
// renderSchedule: the genome's structure genes as transform ops, then each
// op tiled over blocks and threads (or scheduled as a pipelined GEMM
// kernel, or with its inputs staged in shared memory), bufferized and
// mapped to a GPU launch.
//
//===----------------------------------------------------------------------===//

#include "kf/Schedule/ContractionSchedule.h"
#include "kf/Schedule/Schedule.h"
#include "kf/Transforms/Passes.h"

#include "ScheduleStructure.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace kf::schedule_detail;

namespace {
/// Padding of each shared-memory row of a staged tile, in elements: with
/// 4-byte elements, 16-byte vector reads of a row stay aligned, and rows 4
/// apart start in different banks.
constexpr int64_t kWorkgroupPadding = 4;
/// The static shared memory a kernel may declare (ptxas: 0xc000).
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// The output size (elements) from which a reduction each thread runs
/// alone takes its output's fill into its threads: below it, the fill's
/// kernel and the output's first read are too small to matter.
constexpr int64_t kMinOwnFillElements = int64_t(1) << 22;
/// The most steps (rows x n^2) a schedule may leave a scan as a masked
/// reduction: Level 1's blocked scans take 3.4 x 10^10 (32768 rows of 1,024
/// block totals), the trusted reference's way; a whole row of 32768 would
/// take 3.5 x 10^13.
constexpr double kMaxUnloweredScanSteps = 1.5e11;
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

/// Whether the generic mapping `schedule` tiles more loops over blocks
/// than the grid has dimensions, or more blocks along y or z than it takes.
bool tilesOverLinearBlocks(const kf::OpSchedule &schedule,
                           ArrayRef<int64_t> parallelSizes) {
  if (llvm::count_if(schedule.blockTile,
                     [](int64_t tile) { return tile > 0; }) > 3)
    return true;
  // Or when the grid's y or z would hold more than the 65,535 blocks the
  // hardware allows there (map_forall_to_blocks refuses such a launch; x
  // takes 2^31 - 1): a tile of one row of a 262,144-row op.
  unsigned position = 0;
  for (int p = static_cast<int>(schedule.blockTile.size()) - 1; p >= 0; --p) {
    if (schedule.blockTile[p] <= 0)
      continue;
    if (position > 0 && static_cast<size_t>(p) < parallelSizes.size() &&
        llvm::divideCeil(parallelSizes[p], schedule.blockTile[p]) > 65535)
      return true;
    ++position;
  }
  return false;
}

} // namespace

/// Checks the block tiles (and the thread counts' shape) of an op's
/// generic mapping and renders its block forall, %block and %bforall: one
/// block per tile, the innermost tiled loop on the grid's x. More than
/// three tiled loops (a 5-D op's batch and channels beside its depth, rows
/// and columns), or more than 65,535 tiles along y or z, get linear block
/// dimensions, which kf-linearize-block-foralls maps onto the grid's x
/// after bufferization.
LogicalResult
kf::schedule_detail::renderBlockTiling(llvm::raw_ostream &os, unsigned index,
                                       const ScheduledOp &info,
                                       const kf::OpSchedule &schedule) {
  linalg::LinalgOp op = info.op;
  unsigned numParallel = info.parallelSizes.size();
  if (schedule.blockTile.size() != numParallel ||
      schedule.threads.size() != numParallel)
    return op.emitError() << "the schedule gives " << schedule.blockTile.size()
                          << " block tile sizes and " << schedule.threads.size()
                          << " thread counts, but this op has " << numParallel
                          << " parallel loops";
  if (llvm::any_of(schedule.blockTile, [](int64_t tile) { return tile < 0; }) ||
      llvm::any_of(schedule.threads, [](int64_t count) { return count < 0; }))
    return op.emitError() << "negative tile size or thread count";
  if (llvm::none_of(schedule.blockTile, [](int64_t tile) { return tile > 0; }))
    return op.emitError() << "the schedule tiles no loop over blocks";
  bool linear = tilesOverLinearBlocks(schedule, info.parallelSizes);
  // Tile sizes are per loop of the op (reduction loops untiled).
  SmallVector<int64_t> blockTileSizes(info.numLoops, 0);
  SmallVector<std::string> blockMapping;
  // Mapped loops are numbered from the innermost tiled one (x) outwards.
  unsigned blockPosition = 0;
  for (int p = numParallel - 1; p >= 0; --p) {
    blockTileSizes[info.parallelLoops[p]] = schedule.blockTile[p];
    if (schedule.blockTile[p] == 0)
      continue;
    blockMapping.push_back(
        linear
            ? llvm::formatv("#gpu.block<linear_dim_{0}>", blockPosition).str()
            : mappingName("block", blockPosition));
    ++blockPosition;
  }
  // Mapping lists follow the loop order (outermost first).
  std::reverse(blockMapping.begin(), blockMapping.end());
  os << llvm::formatv(
      "    %block{0}, %bforall{0} = transform.structured.tile_using_forall "
      "%op{0} tile_sizes [{1}] (mapping = [{2}]) : (!transform.any_op) -> "
      "(!transform.any_op, !transform.any_op)\n",
      index, llvm::interleaved(blockTileSizes),
      llvm::interleaved(blockMapping));
  return success();
}

namespace {
/// Checks the schedule of an op whose reduction lanes share
/// (OpSchedule::reductionLanes) and renders its tiling: the block forall
/// and the mark kf-distribute-reductions rewrites after bufferization. The
/// block is the lanes along x and groups of them along y (the product of
/// `threads`), which the pass hands the block's outputs in turn; a thread
/// forall would run its body in lane 0 alone (map_nested_forall_to_threads
/// predicates the x it does not use). Returns the block's dimensions.
FailureOr<SmallVector<int64_t, 3>>
renderLaneTiling(llvm::raw_ostream &os, unsigned index, const ScheduledOp &info,
                 const kf::OpSchedule &schedule) {
  linalg::LinalgOp op = info.op;
  int64_t lanes = schedule.reductionLanes;
  unsigned numParallel = info.parallelSizes.size();
  // A scan's lanes walk its rows (kf-lower-scans): the scanned loop stays
  // whole in the block, and the rows are the outputs groups take in turn.
  std::optional<unsigned> scan = info.scanPosition;
  if (scan) {
    if (lanes > 32 || !llvm::isPowerOf2_64(lanes))
      return op.emitError()
             << lanes << " lanes per scan: a power of two up to 32";
    if (schedule.blockTile[*scan] != 0 || schedule.threads[*scan] != 0)
      return op.emitError() << "a scan's lanes walk whole rows: its scanned "
                               "loop takes no block tile and no threads";
  } else if (!info.laneReduction)
    return op.emitError()
           << "reduction lanes need one reduction loop that an input reads "
              "contiguously and a body folding each element into one 32-bit "
              "output with one add, mul, max or min";
  if (!kf::isValidReductionLanes(lanes))
    return op.emitError() << lanes
                          << " reduction lanes: a power of two below 32 or a "
                             "multiple of 32 up to 1024";
  if (schedule.vectorWidth != 1 || schedule.reductionStep != 0 ||
      schedule.stageTile != 0)
    return op.emitError() << "reduction lanes take no vector width, "
                             "reduction step or staging";
  if (failed(renderBlockTiling(os, index, info, schedule)))
    return failure();
  int64_t groups = 1, outputs = 1;
  bool wholeTiles = true;
  for (unsigned p = 0; p < numParallel; ++p) {
    if (scan == p)
      continue;
    int64_t tile = schedule.blockTile[p], size = info.parallelSizes[p];
    groups *= std::max<int64_t>(schedule.threads[p], 1);
    outputs *= tile > 0 ? tile : size;
    wholeTiles &= tile == 0 || size % tile == 0;
  }
  if (lanes > 32 && groups > 1)
    return op.emitError() << "more than 32 lanes combine across the whole "
                             "block: one group of lanes per block";
  // Groups sharing a warp shuffle together: each must get as many outputs.
  if (lanes < 32 && (!wholeTiles || outputs % groups != 0))
    return op.emitError()
           << "groups of fewer than 32 lanes need block tiles that divide "
              "their loops and as many outputs per group: "
           << outputs << " outputs per block over " << groups << " groups";
  if (lanes * groups > 1024)
    return op.emitError() << "the schedule asks for " << lanes * groups
                          << " threads per block; a CUDA block holds at most "
                             "1024";
  // kf-distribute-reductions rewrites linalg.generic ops: a named op (a
  // matrix-vector product) is generalized first.
  std::string marked = llvm::formatv("%block{0}", index).str();
  if (!isa<linalg::GenericOp>(op.getOperation())) {
    os << llvm::formatv(
        "    %lgeneric{0} = transform.structured.generalize "
        "%block{0} : (!transform.any_op) -> !transform.any_op\n",
        index);
    marked = llvm::formatv("%lgeneric{0}", index).str();
  }
  os << llvm::formatv("    %lanes{0} = transform.param.constant {1} : i64 -> "
                      "!transform.param<i64>\n"
                      "    transform.annotate {3} \"{2}\" = %lanes{0} : "
                      "!transform.any_op, !transform.param<i64>\n",
                      index, lanes, kf::kReductionLanesAttrName, marked);
  return SmallVector<int64_t, 3>{lanes, groups, 1};
}
} // namespace

FailureOr<std::string> kf::renderSchedule(func::FuncOp reference,
                                          const Schedule &schedule) {
  if (schedule.ops.empty()) {
    FailureOr<Schedule> completed = completeSchedule(reference, schedule);
    if (failed(completed))
      return failure();
    if (completed->ops.empty())
      return reference.emitError()
             << "the reference has no linalg operation to schedule";
    return renderSchedule(reference, *completed);
  }
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

  // Scans that lanes walk take the neutral fill of their output into their
  // blocks (kf-lower-scans then drops it: the scan writes every element).
  // A reduction each thread runs alone (not a convolution), with a large
  // output, takes its fill into its threads: each thread initializes its own
  // outputs just before reducing into them, instead of a kernel of its own
  // writing the whole output first (a pooling's output is as large as its
  // input).
  SmallVector<std::optional<unsigned>> ownFills(numOps);
  for (auto [index, info, opSchedule] : llvm::enumerate(*ops, schedule.ops)) {
    bool scanLanes = info.scanPosition && opSchedule.reductionLanes != 0;
    auto outputType = dyn_cast<ShapedType>(
        linalg::LinalgOp(info.op).getDpsInits().front().getType());
    bool largeOutput = outputType && outputType.hasStaticShape() &&
                       outputType.getNumElements() >= kMinOwnFillElements;
    // Not a convolution's or a contraction's (compute-bound: their fill
    // costs little beside them): a reduction of one input (a pooling's
    // window, a max), without multiplications.
    bool oneInput =
        (isa<linalg::GenericOp>(info.op.getOperation()) ||
         kf::isNamedPooling(info.op)) &&
        kf::readsOneInput(info.op) &&
        !linalg::LinalgOp(info.op)
             ->walk([](arith::MulFOp) { return WalkResult::interrupt(); })
             .wasInterrupted();
    bool perThread = largeOutput && oneInput && info.innerReduction &&
                     !gemms[index] && opSchedule.reductionLanes == 0 &&
                     opSchedule.stageTile == 0 && opSchedule.vectorWidth <= 1 &&
                     opSchedule.reductionStep <= 0 &&
                     linalg::LinalgOp(info.op).getNumDpsInits() == 1;
    if (!scanLanes && !perThread)
      continue;
    Operation *fill = linalg::LinalgOp(info.op)
                          .getDpsInitOperand(0)
                          ->get()
                          .getDefiningOp<linalg::FillOp>();
    auto fillIt = llvm::find_if(
        *ops, [&](const ScheduledOp &other) { return other.op == fill; });
    if (!fill || fillIt == ops->end() || !fill->getResult(0).hasOneUse() ||
        fusedFills[fillIt - ops->begin()])
      continue;
    ownFills[index] = fillIt - ops->begin();
    fusedFills[*ownFills[index]] = true;
  }

  // Row groups: reductions fused into their consumer's kernel (which get
  // no kernel of their own).
  SmallVector<RowGroup> rowGroups;
  if (schedule.fuseReductions)
    rowGroups = findRowGroups(*ops, schedule.ops);
  SmallVector<bool> fusedReductions(numOps, false);
  SmallVector<std::optional<unsigned>> groupOf(numOps);
  for (auto [g, group] : llvm::enumerate(rowGroups)) {
    groupOf[group.consumer] = g;
    for (unsigned r : group.reductions)
      fusedReductions[r] = true;
  }
  // Thread groups: a reduction (and its fill) fused into the threads of
  // the consumer that reads it.
  SmallVector<ThreadGroup> threadGroups;
  if (schedule.fuseReductions)
    threadGroups = findThreadGroups(*ops, schedule.ops, rowGroups);
  SmallVector<std::optional<unsigned>> threadGroupOf(numOps);
  for (auto [g, group] : llvm::enumerate(threadGroups)) {
    threadGroupOf[group.consumer] = g;
    fusedReductions[group.reduction] = true;
    if (group.fill)
      fusedFills[*group.fill] = true;
  }

  // Per op with a kernel: its block dims, and how many foralls it leaves
  // (thread foralls before the block forall, in match's post-order).
  SmallVector<SmallVector<int64_t, 3>> blockDims(numOps);
  SmallVector<unsigned> foralls(numOps, 0);
  SmallVector<StagedOp> stagedOps;
  // The ops vectorized per thread (their block foralls' handles).
  SmallVector<unsigned> vectorizedOps;
  // Whether a block forall tiles more loops than the grid has dimensions.
  bool linearBlocks = false;
  for (auto [index, info, givenSchedule] :
       llvm::enumerate(*ops, schedule.ops)) {
    if (fusedFills[index] || fusedEpilogues[index] || fusedReductions[index])
      continue;
    const kf::OpSchedule &opSchedule =
        threadGroupOf[index]
            ? threadGroupMapping(info, givenSchedule,
                                 threadGroups[*threadGroupOf[index]])
            : givenSchedule;
    if (groupOf[index] && rowGroups[*groupOf[index]].reducingConsumer) {
      // The consumer's own lane reduction makes the block; the group's
      // reductions join it.
      linearBlocks |= tilesOverLinearBlocks(opSchedule, info.parallelSizes);
      FailureOr<SmallVector<int64_t, 3>> dims =
          renderLaneTiling(os, index, info, opSchedule);
      if (failed(dims))
        return failure();
      renderRowGroupReductions(os, rowGroups[*groupOf[index]], *ops);
      blockDims[index] = *dims;
      foralls[index] = 1;
      continue;
    }
    if (groupOf[index]) {
      const RowGroup &group = rowGroups[*groupOf[index]];
      linearBlocks |=
          tilesOverLinearBlocks(rowGroupBlocks(info), info.parallelSizes);
      if (failed(renderRowGroup(os, group, *ops)))
        return failure();
      blockDims[index] = {group.lanes, 1, 1};
      foralls[index] = 1;
      continue;
    }
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
    linearBlocks |= tilesOverLinearBlocks(opSchedule, info.parallelSizes);
    if (opSchedule.reductionLanes != 0) {
      FailureOr<SmallVector<int64_t, 3>> dims =
          renderLaneTiling(os, index, info, opSchedule);
      if (failed(dims))
        return failure();
      if (ownFills[index])
        os << llvm::formatv(
            "    %sfill{0}, %sforall{0} = "
            "transform.structured.fuse_into_containing_op %op{1} into "
            "%bforall{0} : (!transform.any_op, !transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n",
            index, *ownFills[index]);
      blockDims[index] = *dims;
      foralls[index] = 1;
      continue;
    }
    // Written as a masked reduction, a scan runs n^2 steps per row: n per
    // output (the parallel sizes include the scanned loop's n).
    if (info.scanPosition) {
      int64_t n = info.innerReductionSize;
      double steps = double(n) * double(computeProduct(info.parallelSizes));
      if (steps > kMaxUnloweredScanSteps)
        return info.op.emitError()
               << "a scan of " << n
               << " elements per row needs reduction lanes (kf-lower-scans): "
                  "as a masked reduction it would take "
               << llvm::formatv("{0:e1}", steps) << " steps";
    }
    foralls[index] = 2;
    if (failed(renderBlockTiling(os, index, info, opSchedule)))
      return failure();
    unsigned numParallel = info.parallelSizes.size();
    SmallVector<int64_t> threadCounts(info.numLoops, 0);
    SmallVector<std::string> threadMapping;
    SmallVector<int64_t, 3> dims = {1, 1, 1};
    // Mapped loops are numbered from the innermost one (x) outwards.
    unsigned threadPosition = 0;
    for (int p = numParallel - 1; p >= 0; --p) {
      threadCounts[info.parallelLoops[p]] = opSchedule.threads[p];
      if (opSchedule.threads[p] == 0)
        continue;
      if (threadPosition == 3)
        return info.op.emitError()
               << "the schedule maps more than three parallel loops to "
                  "threads; a block has three dimensions";
      dims[threadPosition] = opSchedule.threads[p];
      threadMapping.push_back(mappingName("thread", threadPosition++));
    }
    if (threadMapping.empty())
      return info.op.emitError() << "the schedule maps no loop to threads";
    int64_t threadsPerBlock = dims[0] * dims[1] * dims[2];
    if (threadsPerBlock > 1024)
      return info.op.emitError()
             << "the schedule asks for " << threadsPerBlock
             << " threads per block; a CUDA block holds at most 1024";
    blockDims[index] = dims;
    // Mapping lists follow the loop order (outermost first).
    std::reverse(threadMapping.begin(), threadMapping.end());

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
      if (threadGroupOf[index])
        renderThreadGroup(os, threadGroups[*threadGroupOf[index]]);
      if (ownFills[index])
        os << llvm::formatv(
            "    %pfill{0}, %pbforall{0} = "
            "transform.structured.fuse_into_containing_op %op{1} into "
            "%bforall{0} : (!transform.any_op, !transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n"
            "    %tfill{0}, %ptforall{0} = "
            "transform.structured.fuse_into_containing_op %pfill{0} into "
            "%tforall{0} : (!transform.any_op, !transform.any_op) -> "
            "(!transform.any_op, !transform.any_op)\n",
            index, *ownFills[index]);
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
    // Only this op is vectorized (the others keep their scalar loops). A
    // gather (a tensor.extract in its body: padding, im2col) vectorizes only
    // with vectorize_nd_extract: its loads become vector.gather (scalar
    // loads in PTX), its stores stay 16-byte vectors.
    bool gathers =
        info.op->walk([](tensor::ExtractOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    os << llvm::formatv("    transform.structured.vectorize %{0}{1}{2} : "
                        "!transform.any_op\n",
                        opSchedule.reductionStep > 0 ? "step" : "thread", index,
                        gathers ? " {vectorize_nd_extract}" : "");
  }

  if (!rowGroups.empty())
    renderRowGroupBuffers(os, rowGroups);
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
  else if (llvm::any_of(ownFills, [](auto fill) { return fill.has_value(); }) ||
           !threadGroups.empty())
    // A fill an op took into its blocks stays outside them as well (the
    // block forall's shared output) until it is dead code; so do a thread
    // group's reduction and fill.
    os << "    %efunc = transform.structured.match ops{[\"func.func\"]} in "
          "%root : (!transform.any_op) -> !transform.any_op\n"
          "    transform.apply_dce to %efunc : !transform.any_op\n";
  if (!threadGroups.empty())
    renderThreadGroupBuffers(os, "%efunc");
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
  // Block foralls over more loops than the grid has dimensions go onto its
  // x (map_forall_to_blocks sizes linear mappings wrongly in MLIR 22).
  if (linearBlocks) {
    os << "    %func_l = transform.apply_registered_pass "
          "\"kf-linearize-block-foralls\" to "
       << funcHandle << " : (!transform.any_op) -> !transform.any_op\n";
    funcHandle = "%func_l";
  }
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
    if (fusedFills[i] || fusedEpilogues[i] || fusedReductions[i])
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
    // kf-hoist-accumulators keeps a staged op's outputs in registers, a
    // GEMM kernel's, and those of a reduction each thread runs alone (which
    // would otherwise store its output element on every step of the
    // reduction: nine stores per output of a 3x3 depthwise convolution).
    // Reductions that lanes share are written by kf-distribute-reductions.
    bool reductionPerThread = ((*ops)[i].innerReduction.has_value() &&
                               schedule.ops[i].reductionLanes == 0) ||
                              threadGroupOf[i].has_value();
    if (gemms[i] || reductionPerThread ||
        llvm::any_of(stagedOps,
                     [&](const StagedOp &staged) { return staged.index == i; }))
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
