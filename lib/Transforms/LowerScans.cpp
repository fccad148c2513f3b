//===- LowerScans.cpp - Scans a schedule marked, run as scans -------------===//
//
// A scan written as a masked reduction (ScanAnalysis.h) runs n^2 steps per
// row as written. For an op a schedule marked with reduction lanes
// (kf.reduction_lanes = R, R a power of two up to 32) inside its
// gpu.launch, this pass writes the scan out in one pass over each row: the
// R lanes along the block's x walk the row in chunks of R x E elements
// (E = 8 consecutive elements per lane, read as 16-byte vectors where the
// row is contiguous), each lane folds its own elements, the lanes scan
// their totals with shuffles (Kogge-Stone: log2 R steps of gpu.shuffle up,
// or down for a reverse scan), and a carry holds the fold of every earlier
// chunk. Elements past the last whole chunk go one per lane. Groups of
// lanes along y take the rows in turn, as kf-distribute-reductions hands
// out outputs. A neutral linalg.fill of the output just before the op (the
// schedule fuses it into the op's block) is dropped: the scan writes every
// element without reading it.
//
// Upstream has no scan op and no lowering that builds one (gpu.subgroup
// _reduce reduces, and has no production lowering to shuffles in MLIR 22).
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ScanAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace kf {
#define GEN_PASS_DEF_KFLOWERSCANS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// Consecutive elements each lane takes per chunk.
constexpr int64_t kElementsPerLane = 8;
/// Elements one vector load or store moves (16 bytes of 32-bit elements).
constexpr int64_t kVectorElements = 4;

/// Whether `value` (a memref) is contiguous along its innermost dimension,
/// with 32-bit elements: rows it can read and write as 16-byte vectors.
bool hasContiguousRows(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getRank() == 0 ||
      type.getElementType().getIntOrFloatBitWidth() != 32)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The launch's constant block size along `dim`, if it has one.
std::optional<int64_t> blockSize(gpu::LaunchOp launch, gpu::Dimension dim) {
  Value size = dim == gpu::Dimension::x   ? launch.getBlockSizeX()
               : dim == gpu::Dimension::y ? launch.getBlockSizeY()
                                          : launch.getBlockSizeZ();
  APInt constant;
  if (!matchPattern(size, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

/// Rewrites one marked scan.
class ScanWriter {
public:
  ScanWriter(linalg::GenericOp op, kf::ScanLoops scan, int64_t lanes)
      : op(op), scan(scan), lanes(lanes), b(op), loc(op.getLoc()) {}

  LogicalResult write(gpu::LaunchOp launch);

private:
  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value combine(Value lhs, Value rhs) {
    return kf::buildCombine(b, loc, scan.combiner, lhs, rhs);
  }
  SmallVector<Value> indicesOf(AffineMap map) {
    SmallVector<Value> indices;
    for (unsigned result = 0; result < map.getNumResults(); ++result)
      indices.push_back(affine::makeComposedAffineApply(
          b, loc, map.getSubMap({result}),
          llvm::to_vector_of<OpFoldResult>(ivs)));
    return indices;
  }
  /// The elements at memory positions `pos`, `pos` + 1, ... (`count` of
  /// them) of the row, with the inputs read as vectors where `vectors`.
  SmallVector<Value> loadElements(Value pos, int64_t count, bool vectors);
  /// Stores `values` at `pos`, `pos` + 1, ... of the output's row (folding
  /// in its old value unless the output starts neutral).
  void storeOutputs(Value pos, ArrayRef<Value> values, bool vectors);
  /// One chunk: each lane's `count` elements from memory position `pos`
  /// (only where `valid`, when given), scanned after `carry`; returns the
  /// carry for the next chunk.
  Value scanChunk(Value pos, int64_t count, Value valid, Value carry,
                  bool vectors);

  linalg::GenericOp op;
  kf::ScanLoops scan;
  int64_t lanes;
  OpBuilder b;
  Location loc;
  SmallVector<Value> ivs;
  Value lane, laneRank, identity, segmentFirst;
  bool initNeutral = false;
};

SmallVector<Value> ScanWriter::loadElements(Value pos, int64_t count,
                                            bool vectors) {
  Block *body = op.getBody();
  unsigned l = scan.reductionLoop;
  // Per input, its `count` values.
  SmallVector<SmallVector<Value>> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<Value> &values = inputs.emplace_back();
    bool contiguous =
        vectors && map.getNumResults() > 0 &&
        map.getResults().back() == getAffineDimExpr(l, op.getContext()) &&
        hasContiguousRows(input->get()) && count % kVectorElements == 0;
    if (!map.isFunctionOfDim(l)) {
      ivs[l] = pos;
      Value value =
          memref::LoadOp::create(b, loc, input->get(), indicesOf(map));
      values.assign(count, value);
      continue;
    }
    for (int64_t e = 0; e < count; e += contiguous ? kVectorElements : 1) {
      ivs[l] = e == 0 ? pos : arith::AddIOp::create(b, loc, pos, constant(e));
      SmallVector<Value> indices = indicesOf(map);
      if (!contiguous) {
        values.push_back(memref::LoadOp::create(b, loc, input->get(), indices));
        continue;
      }
      Type element = getElementTypeOrSelf(input->get().getType());
      Value vector = vector::LoadOp::create(
          b, loc, VectorType::get({kVectorElements}, element), input->get(),
          indices);
      for (int64_t i = 0; i < kVectorElements; ++i)
        values.push_back(vector::ExtractOp::create(b, loc, vector, i));
    }
  }
  // The element at each position: the body's ops up to the element, with
  // the inputs' values and the loop indices at that position.
  SmallVector<Value> elements;
  for (int64_t e = 0; e < count; ++e) {
    Value at = e == 0 ? pos : arith::AddIOp::create(b, loc, pos, constant(e));
    IRMapping mapping;
    for (auto [index, values] : llvm::enumerate(inputs))
      mapping.map(body->getArgument(index), values[e]);
    for (Operation &nested : body->without_terminator()) {
      if (&nested == scan.combiner || &nested == scan.mask.getOperation() ||
          &nested == scan.mask.getCondition().getDefiningOp())
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
        unsigned dim = index.getDim();
        mapping.map(index.getResult(),
                    dim == scan.scanLoop || dim == l ? at : ivs[dim]);
        continue;
      }
      b.clone(nested, mapping);
    }
    elements.push_back(mapping.lookupOrDefault(scan.element));
  }
  return elements;
}

void ScanWriter::storeOutputs(Value pos, ArrayRef<Value> values, bool vectors) {
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(init);
  unsigned k = scan.scanLoop;
  bool contiguous =
      vectors &&
      map.getResults().back() == getAffineDimExpr(k, op.getContext()) &&
      hasContiguousRows(init->get()) && values.size() % kVectorElements == 0;
  int64_t count = values.size();
  for (int64_t e = 0; e < count; e += contiguous ? kVectorElements : 1) {
    ivs[k] = e == 0 ? pos : arith::AddIOp::create(b, loc, pos, constant(e));
    SmallVector<Value> indices = indicesOf(map);
    if (!contiguous) {
      Value value = values[e];
      if (!initNeutral)
        value = combine(value,
                        memref::LoadOp::create(b, loc, init->get(), indices));
      memref::StoreOp::create(b, loc, value, init->get(), indices);
      continue;
    }
    auto type = VectorType::get({kVectorElements}, values.front().getType());
    Value vector = vector::FromElementsOp::create(
        b, loc, type, values.slice(e, kVectorElements));
    if (!initNeutral)
      vector = combine(
          vector, vector::LoadOp::create(b, loc, type, init->get(), indices));
    vector::StoreOp::create(b, loc, vector, init->get(), indices);
  }
}

Value ScanWriter::scanChunk(Value pos, int64_t count, Value valid, Value carry,
                            bool vectors) {
  SmallVector<Value> values = loadElements(pos, count, vectors);
  if (valid)
    for (Value &value : values)
      value = arith::SelectOp::create(b, loc, valid, value, identity);
  // The lane's elements in scan order, folded: prefix[i] covers the first
  // i + 1 of them.
  SmallVector<int64_t> order;
  for (int64_t e = 0; e < count; ++e)
    order.push_back(scan.reverse ? count - 1 - e : e);
  SmallVector<Value> prefix(count);
  Value run;
  for (int64_t i = 0; i < count; ++i) {
    run = i == 0 ? values[order[i]] : combine(run, values[order[i]]);
    prefix[i] = run;
  }
  // The lanes' totals scanned across the lanes (in scan order: ascending
  // lanes, or descending for a reverse scan), then shifted by one lane.
  Value before = identity, chunkTotal = run;
  if (lanes > 1) {
    auto mode = scan.reverse ? gpu::ShuffleMode::DOWN : gpu::ShuffleMode::UP;
    Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
    auto shuffle = [&](Value value, int64_t offset) {
      Value by = arith::ConstantIntOp::create(b, loc, offset, 32);
      return gpu::ShuffleOp::create(b, loc, value, by, width, mode)
          .getShuffleResult();
    };
    Value inclusive = run;
    for (int64_t offset = 1; offset < lanes; offset *= 2) {
      Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        laneRank, constant(offset));
      Value other = shuffle(inclusive, offset);
      inclusive = arith::SelectOp::create(b, loc, has,
                                          combine(other, inclusive), inclusive);
    }
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneRank, constant(0));
    before =
        arith::SelectOp::create(b, loc, first, identity, shuffle(inclusive, 1));
    // The chunk's total: the inclusive scan of the last lane in scan order.
    Value last =
        arith::IndexCastOp::create(b, loc, b.getI32Type(), segmentFirst);
    if (!scan.reverse)
      last = arith::AddIOp::create(
          b, loc, last, arith::ConstantIntOp::create(b, loc, lanes - 1, 32));
    chunkTotal = gpu::ShuffleOp::create(b, loc, inclusive, last, width,
                                        gpu::ShuffleMode::IDX)
                     .getShuffleResult();
  }
  Value base = combine(carry, before);
  SmallVector<Value> outputs(count);
  for (int64_t i = 0; i < count; ++i) {
    Value folded = scan.exclusive
                       ? (i == 0 ? base : combine(base, prefix[i - 1]))
                       : combine(base, prefix[i]);
    outputs[order[i]] = folded;
  }
  if (valid) {
    auto ifOp = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    storeOutputs(pos, outputs, /*vectors=*/false);
  } else {
    storeOutputs(pos, outputs, vectors);
  }
  return combine(carry, chunkTotal);
}

LogicalResult ScanWriter::write(gpu::LaunchOp launch) {
  if (!op.hasPureBufferSemantics())
    return op.emitError() << "a scan must be on buffers to be lowered";
  if (lanes < 1 || lanes > 32 || !llvm::isPowerOf2_64(lanes))
    return op.emitError() << lanes
                          << " lanes per scan: a power of two up to 32";
  Type elementType =
      getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (lanes > 1 && !elementType.isF32() && !elementType.isInteger(32))
    return op.emitError() << "a scan's lanes exchange 32-bit values: its "
                             "output must be f32 or i32";
  if (blockSize(launch, gpu::Dimension::x) != lanes ||
      blockSize(launch, gpu::Dimension::z) != 1)
    return op.emitError() << "the launch's block must have " << lanes
                          << " threads along x, one per lane, and 1 along z";
  unsigned numLoops = op.getNumLoops();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  for (const Range &range : ranges)
    if (!isZeroInteger(range.offset) || !isOneInteger(range.stride))
      return op.emitError() << "loop ranges must start at 0 with step 1";

  identity = arith::ConstantOp::create(
      b, loc, kf::foldIdentity(scan.combiner, elementType));
  // A fill of the output with the neutral element just before (views and
  // constants between them): the scan writes every element of the output
  // without reading it.
  linalg::FillOp fill;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto candidate = dyn_cast<linalg::FillOp>(prev)) {
      if (candidate.getOutputs()[0] == op.getDpsInitOperand(0)->get() &&
          kf::isNeutralFor(scan.combiner, candidate.getInputs()[0]))
        fill = candidate;
      break;
    }
    if (!isMemoryEffectFree(prev))
      break;
  }
  initNeutral = static_cast<bool>(fill);

  lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  laneRank = scan.reverse
                 ? arith::SubIOp::create(b, loc, constant(lanes - 1), lane)
                 : lane;
  // The warp lane of the group's first lane: groups of fewer than 32 lanes
  // share a warp, and the shuffles address lanes of the whole warp.
  Value warpLane = gpu::LaneIdOp::create(b, loc, IntegerAttr());
  segmentFirst = arith::SubIOp::create(b, loc, warpLane, lane);

  // The rows (the parallel iterations but the scanned loop, linearized) go
  // to the groups of lanes along y in turn.
  Value group = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value groups = launch.getBlockSizeY();
  Value rows = constant(1);
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (loop != scan.reductionLoop && loop != scan.scanLoop)
      rows = arith::MulIOp::create(
          b, loc, rows,
          getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size));
  ivs.assign(numLoops, Value());
  auto rowLoop = scf::ForOp::create(b, loc, group, rows, groups);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value linear = rowLoop.getInductionVar();
  for (int loop = numLoops - 1; loop >= 0; --loop) {
    if (unsigned(loop) == scan.reductionLoop || unsigned(loop) == scan.scanLoop)
      continue;
    Value size = getValueOrCreateConstantIndexOp(b, loc, ranges[loop].size);
    ivs[loop] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }

  // Whole chunks of lanes x kElementsPerLane, then the rest one element
  // per lane. A reverse scan walks the row from its end: its whole chunks
  // are the row's last ones.
  int64_t n = scan.length;
  int64_t chunk = lanes * kElementsPerLane;
  int64_t whole = n / chunk, rest = n - whole * chunk;
  Value carry = identity;
  if (whole > 0) {
    auto chunks = scf::ForOp::create(b, loc, constant(0), constant(whole),
                                     constant(1), ValueRange{carry});
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value index = chunks.getInductionVar();
    // The lane's first element: chunk c starts at c x chunk (reverse: at
    // n - (c + 1) x chunk).
    Value start = arith::MulIOp::create(b, loc, index, constant(chunk));
    if (scan.reverse)
      start = arith::SubIOp::create(b, loc, constant(n - chunk), start);
    Value pos = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, lane, constant(kElementsPerLane)));
    Value next = scanChunk(pos, kElementsPerLane, Value(),
                           chunks.getRegionIterArg(0), /*vectors=*/true);
    scf::YieldOp::create(b, loc, next);
    carry = chunks.getResult(0);
  }
  for (int64_t t = 0; t * lanes < rest; ++t) {
    // Forward: positions whole x chunk + t x lanes + lane, below n. Reverse:
    // rest - lanes - t x lanes + lane, from 0 (lane ranks descend).
    int64_t first =
        scan.reverse ? rest - lanes - t * lanes : whole * chunk + t * lanes;
    Value pos = arith::AddIOp::create(b, loc, constant(first), lane);
    Value valid = scan.reverse
                      ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              pos, constant(0))
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              pos, constant(n));
    // Loads stay inside the row; the lanes past it keep the identity.
    Value clamped =
        scan.reverse
            ? Value(arith::MaxSIOp::create(b, loc, pos, constant(0)))
            : Value(arith::MinSIOp::create(b, loc, pos, constant(n - 1)));
    carry = scanChunk(clamped, 1, valid, carry, /*vectors=*/false);
  }
  if (initNeutral)
    fill.erase();
  op.erase();
  return success();
}

struct KFLowerScansPass : kf::impl::KFLowerScansBase<KFLowerScansPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::tuple<linalg::GenericOp, kf::ScanLoops, gpu::LaunchOp>>
        marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->hasAttr(kf::kReductionLanesAttrName))
        return;
      FailureOr<kf::ScanLoops> scan = kf::analyzeScan(op);
      auto launch = op->getParentOfType<gpu::LaunchOp>();
      // kf-distribute-reductions takes (or refuses) the other marked ops.
      if (succeeded(scan) && launch)
        marked.push_back({op, *scan, launch});
    });
    for (auto &[op, scan, launch] : marked) {
      auto lanes = op->getAttrOfType<IntegerAttr>(kf::kReductionLanesAttrName);
      if (!lanes) {
        op.emitError() << "'" << kf::kReductionLanesAttrName
                       << "' must be an integer";
        return signalPassFailure();
      }
      if (failed(ScanWriter(op, scan, lanes.getInt()).write(launch)))
        return signalPassFailure();
      ++numLowered;
    }
  }
};

} // namespace
