//===- DistributeReductions.cpp - Lanes of a block share one reduction ----===//
//
// The generic mapping runs every reduction loop sequentially in one thread:
// a row sum over a contiguous row has each thread of a warp walk its own
// row, so one load instruction touches 32 rows' cache lines, and a long row
// (65535 to 393216 elements in Level 1's norms and softmax) is one thread's
// work. Upstream has the pieces of a cooperative reduction but no rewrite
// that builds one from a linalg op: transform.structured
// .tile_reduction_using_forall gives each thread a contiguous chunk (the
// loads do not coalesce) and combines the partials with a serial loop, and
// gpu.subgroup_reduce has no production lowering to shuffles in MLIR 22
// (../shared/notes/memory-bound.md). This pass writes the kernel for a
// linalg op that a schedule marked, inside its gpu.launch: lane t of the
// block's x dimension takes elements t, t + R, t + 2R, ... of the row (so
// consecutive lanes read consecutive addresses), folds them into four
// independent partials (four loads in flight per thread), and the R lanes
// combine their partials with a butterfly of gpu.shuffle (R <= 32) or with
// gpu.all_reduce (R > 32: shuffles, then one value per warp in shared
// memory, as convert-gpu-to-nvvm lowers it). Lane 0 folds the total into
// the output. The op's outputs go to the groups of lanes along the block's
// y dimension in turn.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ScanAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

namespace kf {
#define GEN_PASS_DEF_KFDISTRIBUTEREDUCTIONS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// Independent partial results per lane: loads in flight per thread.
constexpr int64_t kChains = 4;

/// What a marked op folds: its combining op, and the same fold as
/// gpu.all_reduce names it.
struct Combiner {
  Operation *op = nullptr;
  gpu::AllReduceOperation reduceKind;
};

/// The combining op of a reduction body `yield combine(h, acc)`, where acc
/// (the output's block argument) is used by that op alone and h does not
/// depend on it; failure for any other body.
FailureOr<Combiner> findCombiner(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  BlockArgument acc = body->getArgument(op.getNumDpsInputs());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 || !acc.hasOneUse() ||
      *acc.getUsers().begin() != combine)
    return failure();
  using R = gpu::AllReduceOperation;
  std::optional<R> kind =
      llvm::TypeSwitch<Operation *, std::optional<R>>(combine)
          .Case([](arith::AddFOp) { return R::ADD; })
          .Case([](arith::MulFOp) { return R::MUL; })
          .Case([](arith::MaximumFOp) { return R::MAXIMUMF; })
          .Case([](arith::MinimumFOp) { return R::MINIMUMF; })
          .Case([](arith::MaxNumFOp) { return R::MAXNUMF; })
          .Case([](arith::MinNumFOp) { return R::MINNUMF; })
          .Case([](arith::AddIOp) { return R::ADD; })
          .Case([](arith::MulIOp) { return R::MUL; })
          .Case([](arith::MaxSIOp) { return R::MAXSI; })
          .Case([](arith::MinSIOp) { return R::MINSI; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind || !arith::getNeutralElement(combine))
    return failure();
  return Combiner{combine, *kind};
}

/// combine(lhs, rhs) with the combining op's kind and attributes (its
/// fast-math flags).
Value combine(OpBuilder &b, Location loc, const Combiner &combiner, Value lhs,
              Value rhs) {
  return kf::buildCombine(b, loc, combiner.op, lhs, rhs);
}

/// The element type of `op`'s output, if it is 32 bits wide.
bool hasLaneElementType(linalg::LinalgOp op) {
  Type type = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  return type.isF32() || type.isInteger(32);
}

/// The launch's constant block size along x, if it has one.
std::optional<int64_t> blockSizeX(gpu::LaunchOp launch) {
  APInt size;
  if (!matchPattern(launch.getBlockSizeX(), m_ConstantInt(&size)))
    return std::nullopt;
  return size.getSExtValue();
}

/// The indices `map` gives for the loop indices `ivs`.
SmallVector<Value> accessIndices(OpBuilder &builder, Location loc,
                                 AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned result = 0; result < map.getNumResults(); ++result)
    indices.push_back(
        affine::makeComposedAffineApply(builder, loc, map.getSubMap({result}),
                                        llvm::to_vector_of<OpFoldResult>(ivs)));
  return indices;
}

/// Rewrites one marked op. `lanes` threads along x share each output.
LogicalResult distribute(linalg::GenericOp op, gpu::LaunchOp launch,
                         int64_t lanes) {
  if (!op.hasPureBufferSemantics())
    return op.emitError() << "a distributed reduction must be on buffers";
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return op.emitError() << "a distributed reduction needs one output and "
                             "one reduction loop";
  FailureOr<Combiner> combiner = findCombiner(op);
  if (failed(combiner))
    return op.emitError()
           << "a distributed reduction's body must fold each element into the "
              "output with one add, mul, max or min";
  Type elementType =
      getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (!hasLaneElementType(op))
    return op.emitError() << "a distributed reduction's output must be f32 "
                             "or i32 (the lanes exchange 32-bit values)";
  if (!kf::isValidReductionLanes(lanes))
    return op.emitError() << lanes
                          << " lanes per output: a power of two below 32 or "
                             "a multiple of 32 up to 1024";
  if (blockSizeX(launch) != lanes)
    return op.emitError() << "the launch's block must have " << lanes
                          << " threads along x, one per lane";
  // Groups of lanes along y; z is not used.
  APInt y, z;
  if (!matchPattern(launch.getBlockSizeZ(), m_ConstantInt(&z)) ||
      z.getSExtValue() != 1)
    return op.emitError() << "groups of lanes go along y: the block's z size "
                             "must be 1";
  // gpu.all_reduce combines the whole block: it must hold one group.
  if (lanes > 32 && (!matchPattern(launch.getBlockSizeY(), m_ConstantInt(&y)) ||
                     y.getSExtValue() != 1))
    return op.emitError() << "more than 32 lanes combine across the whole "
                             "block, which must then be one group";

  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops();
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  unsigned reductionDim = reductionDims.front();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  for (const Range &range : ranges)
    if (!isZeroInteger(range.offset) || !isOneInteger(range.stride))
      return op.emitError() << "loop ranges must start at 0 with step 1";

  Value lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value identity = arith::ConstantOp::create(
      b, loc, kf::foldIdentity(combiner->op, elementType));

  // The op's outputs (its parallel iterations, linearized) go to the
  // groups of lanes along y in turn: group g computes outputs g, g + G, ...
  // A thread forall over y would not do: mapped to threads, it runs its
  // body in lane 0 alone (the x dimension it does not use is predicated).
  Value group = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value groups = launch.getBlockSizeY();
  Value outputs = one;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (loop != reductionDim)
      outputs = arith::MulIOp::create(
          b, loc, outputs,
          getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size));
  SmallVector<Value> ivs(numLoops);
  OpBuilder::InsertionGuard guard(b);
  auto outputLoop = scf::ForOp::create(b, loc, group, outputs, groups);
  b.setInsertionPoint(outputLoop.getBody()->getTerminator());
  Value linear = outputLoop.getInductionVar();
  for (int loop = numLoops - 1; loop >= 0; --loop) {
    if (unsigned(loop) == reductionDim)
      continue;
    Value size = getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size);
    ivs[loop] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }

  auto indicesOf = [&](OpBuilder &builder, AffineMap map) {
    return accessIndices(builder, loc, map, ivs);
  };
  // Inputs that do not vary along the reduction are read once per output.
  Block *body = op.getBody();
  SmallVector<Value> invariant(op.getNumDpsInputs());
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(reductionDim))
      continue;
    ivs[reductionDim] = zero;
    invariant[input->getOperandNumber()] =
        memref::LoadOp::create(b, loc, input->get(), indicesOf(b, map));
  }

  // One element at reduction index `index`: the body with the output's
  // argument replaced by `acc`.
  auto fold = [&](OpBuilder &builder, Value index, Value acc) {
    ivs[reductionDim] = index;
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      unsigned number = input->getOperandNumber();
      Value value = invariant[number];
      if (!value)
        value = memref::LoadOp::create(
            builder, loc, input->get(),
            indicesOf(builder, op.getMatchingIndexingMap(input)));
      mapping.map(body->getArgument(number), value);
    }
    mapping.map(body->getArgument(op.getNumDpsInputs()), acc);
    for (Operation &nested : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      builder.clone(nested, mapping);
    }
    return mapping.lookup(body->getTerminator()->getOperand(0));
  };

  // Lane t folds elements t, t + R, ..., kChains of them per iteration into
  // kChains partials; the elements past the last whole round go one per
  // lane.
  Value length =
      getValueOrCreateConstantIndexOp(b, loc, ranges[reductionDim].size);
  Value laneCount = arith::ConstantIndexOp::create(b, loc, lanes);
  Value round = arith::ConstantIndexOp::create(b, loc, lanes * kChains);
  Value rounds = arith::DivUIOp::create(b, loc, length, round);
  Value mainEnd = arith::MulIOp::create(b, loc, rounds, round);
  SmallVector<Value> inits(kChains, identity);
  auto main = scf::ForOp::create(b, loc, zero, mainEnd, round, inits);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(main.getBody());
    SmallVector<Value> next;
    for (int64_t chain = 0; chain < kChains; ++chain) {
      Value offset = arith::ConstantIndexOp::create(b, loc, chain * lanes);
      Value index =
          arith::AddIOp::create(b, loc, main.getInductionVar(),
                                arith::AddIOp::create(b, loc, offset, lane));
      next.push_back(fold(b, index, main.getRegionIterArg(chain)));
    }
    scf::YieldOp::create(b, loc, next);
  }
  Value tailStart = arith::AddIOp::create(b, loc, mainEnd, lane);
  auto tail = scf::ForOp::create(b, loc, tailStart, length, laneCount,
                                 ValueRange{main.getResult(0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(tail.getBody());
    scf::YieldOp::create(
        b, loc, fold(b, tail.getInductionVar(), tail.getRegionIterArg(0)));
  }
  Value partial = tail.getResult(0);
  for (int64_t chain = 1; chain < kChains; ++chain)
    partial = combine(b, loc, *combiner, partial, main.getResult(chain));

  // The lanes' partials combined: every lane gets the total.
  Value total = partial;
  if (lanes <= 32) {
    for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
      auto shuffle =
          gpu::ShuffleOp::create(b, loc, total, offset,
                                 /*width=*/32, gpu::ShuffleMode::XOR);
      total = combine(b, loc, *combiner, total, shuffle.getShuffleResult());
    }
  } else {
    total = gpu::AllReduceOp::create(
        b, loc, total.getType(), total,
        gpu::AllReduceOperationAttr::get(b.getContext(), combiner->reduceKind),
        /*uniform=*/b.getUnitAttr());
    // The next output's all_reduce reuses the same shared-memory slots:
    // every lane must have read this one's total first.
    gpu::BarrierOp::create(b, loc);
  }

  // Lane 0 folds the total into the output.
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<Value> outIndices = indicesOf(b, op.getMatchingIndexingMap(init));
  Value old = memref::LoadOp::create(b, loc, init->get(), outIndices);
  memref::StoreOp::create(b, loc, combine(b, loc, *combiner, total, old),
                          init->get(), outIndices);
  // In a row group, the block's threads read the output next (a softmax's
  // sum reads its max, the consumer reads both): lane 0's store must be
  // visible to them first.
  if (!op->getNextNode()->hasTrait<OpTrait::IsTerminator>()) {
    b.setInsertionPointAfter(ifOp);
    gpu::BarrierOp::create(b, loc);
  }
  op.erase();
  return success();
}

/// Rewrites one all-parallel op marked with row lanes (a row group's
/// consumer): its innermost loop is a row that `lanes` threads along x
/// share, lane t computing elements t, t + R, ... (four per round: four
/// loads in flight), from the row's end backwards: the row's end is what
/// the group's reductions read last, so what is likeliest still in the L2
/// cache. Its other loops run in every thread (a row group's block has one
/// row).
LogicalResult distributeRow(linalg::GenericOp op, gpu::LaunchOp launch,
                            int64_t lanes) {
  if (!op.hasPureBufferSemantics())
    return op.emitError() << "a distributed row must be on buffers";
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      op.getNumLoops() == 0)
    return op.emitError() << "a distributed row needs one output and "
                             "parallel loops only";
  if (lanes < 1 || lanes > 1024)
    return op.emitError() << lanes << " row lanes: 1 to 1024";
  if (blockSizeX(launch) != lanes)
    return op.emitError() << "the launch's block must have " << lanes
                          << " threads along x, one per lane";
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops(), rowDim = numLoops - 1;
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  for (const Range &range : ranges)
    if (!isZeroInteger(range.offset) || !isOneInteger(range.stride))
      return op.emitError() << "loop ranges must start at 0 with step 1";
  Value lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = one;
  for (unsigned loop = 0; loop < rowDim; ++loop)
    rows = arith::MulIOp::create(
        b, loc, rows,
        getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size));
  OpBuilder::InsertionGuard guard(b);
  auto rowLoop = scf::ForOp::create(b, loc, zero, rows, one);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  SmallVector<Value> ivs(numLoops);
  Value linear = rowLoop.getInductionVar();
  for (int loop = rowDim - 1; loop >= 0; --loop) {
    Value size = getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size);
    ivs[loop] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  auto indicesOf = [&](OpBuilder &builder, AffineMap map) {
    return accessIndices(builder, loc, map, ivs);
  };
  // Inputs that do not vary along the row (the group's reductions) are read
  // once per row.
  Block *body = op.getBody();
  SmallVector<Value> invariant(op->getNumOperands());
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(rowDim))
      continue;
    ivs[rowDim] = zero;
    invariant[input->getOperandNumber()] =
        memref::LoadOp::create(b, loc, input->get(), indicesOf(b, map));
  }
  Value length = getValueOrCreateConstantIndexOp(b, loc, ranges[rowDim].size);
  Value last = arith::SubIOp::create(b, loc, length, one);
  // Element `position` of the row counted from its end: its operands
  // loaded, then the body computed and stored.
  struct Element {
    IRMapping mapping;
    SmallVector<Value> ivs;
  };
  auto load = [&](OpBuilder &builder, Value position) {
    Element element;
    ivs[rowDim] = arith::SubIOp::create(builder, loc, last, position);
    element.ivs = ivs;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body->getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      Value value = invariant[operand.getOperandNumber()];
      if (!value)
        value = memref::LoadOp::create(
            builder, loc, operand.get(),
            indicesOf(builder, op.getMatchingIndexingMap(&operand)));
      element.mapping.map(arg, value);
    }
    return element;
  };
  auto store = [&](OpBuilder &builder, Element &element) {
    ivs = element.ivs;
    for (Operation &nested : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
        element.mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      builder.clone(nested, element.mapping);
    }
    OpOperand *init = op.getDpsInitOperand(0);
    memref::StoreOp::create(
        builder, loc,
        element.mapping.lookup(body->getTerminator()->getOperand(0)),
        init->get(), indicesOf(builder, op.getMatchingIndexingMap(init)));
  };
  Value round = arith::ConstantIndexOp::create(b, loc, lanes * kChains);
  Value mainEnd = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, length, round), round);
  auto main = scf::ForOp::create(b, loc, zero, mainEnd, round);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(main.getBody()->getTerminator());
    // The four elements' loads first, then their bodies and stores: LLVM
    // cannot move a load above a store to a buffer it may alias.
    SmallVector<Element> elements;
    for (int64_t chain = 0; chain < kChains; ++chain) {
      Value offset = arith::ConstantIndexOp::create(b, loc, chain * lanes);
      elements.push_back(load(
          b,
          arith::AddIOp::create(b, loc, main.getInductionVar(),
                                arith::AddIOp::create(b, loc, offset, lane))));
    }
    for (Element &element : elements)
      store(b, element);
  }
  Value tailStart = arith::AddIOp::create(b, loc, mainEnd, lane);
  Value laneCount = arith::ConstantIndexOp::create(b, loc, lanes);
  auto tail = scf::ForOp::create(b, loc, tailStart, length, laneCount);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(tail.getBody()->getTerminator());
    Element element = load(b, tail.getInductionVar());
    store(b, element);
  }
  op.erase();
  return success();
}

} // namespace

bool kf::isValidReductionLanes(int64_t lanes) {
  return lanes > 1 && lanes <= 1024 &&
         (lanes < 32 ? llvm::isPowerOf2_64(lanes) : lanes % 32 == 0);
}

bool kf::isLaneReduction(linalg::LinalgOp op) {
  // Named ops (a linalg.matmul with one output column) qualify by their
  // body; the schedule generalizes them before marking them, since the
  // pass rewrites linalg.generic ops.
  return op.getNumDpsInits() == 1 && op.getNumReductionLoops() == 1 &&
         op.getBlock() && succeeded(findCombiner(op)) && hasLaneElementType(op);
}

namespace {

struct KFDistributeReductionsPass
    : kf::impl::KFDistributeReductionsBase<KFDistributeReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, gpu::LaunchOp>> marked;
    bool misplaced = false;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(kf::kReductionLanesAttrName) &&
          !op->hasAttr(kf::kRowLanesAttrName))
        return;
      auto launch = op->getParentOfType<gpu::LaunchOp>();
      if (!launch) {
        op.emitError() << "a distributed reduction must be inside a "
                          "gpu.launch";
        misplaced = true;
        return;
      }
      marked.push_back({op, launch});
    });
    if (misplaced)
      return signalPassFailure();
    for (auto [op, launch] : marked) {
      if (auto rowLanes =
              op->getAttrOfType<IntegerAttr>(kf::kRowLanesAttrName)) {
        if (failed(distributeRow(op, launch, rowLanes.getInt())))
          return signalPassFailure();
        ++numRows;
        continue;
      }
      if (op->hasAttr(kf::kRowLanesAttrName)) {
        op.emitError() << "'" << kf::kRowLanesAttrName
                       << "' must be an integer";
        return signalPassFailure();
      }
      auto lanes = op->getAttrOfType<IntegerAttr>(kf::kReductionLanesAttrName);
      if (!lanes) {
        op.emitError() << "'" << kf::kReductionLanesAttrName
                       << "' must be an integer";
        return signalPassFailure();
      }
      if (failed(distribute(op, launch, lanes.getInt())))
        return signalPassFailure();
      ++numDistributed;
    }
  }
};

} // namespace
