//===- SplitSoftmaxStatistics.cpp - A softmax's statistics per chunk ------===//
//
// A softmax's statistics read each row twice: the max M, then
// sum(exp(x - M)). Over a long row (1.5 MB in Level 1's softmax) the second
// read misses every cache, so the statistics cost two DRAM passes. This
// pass computes them per chunk of the row instead, a chunk's max and its
// sum of exp(x - chunk max) reading the chunk twice while it is in cache
// (a row group of the two, RowGroups.cpp), and combines the chunks'
// statistics with the rescaling exp(m_c - M): the identity behind online
// softmax (Milakov and Gimelshein), applied to chunks on tensors so that
// every op stays a plain linalg reduction that kf's lanes can run.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFSPLITSOFTMAXSTATISTICS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// A row sum of exp(x - max) and the row max it reads.
struct SoftmaxStatistics {
  linalg::GenericOp max;
  linalg::GenericOp sum;
  /// The row input both reduce.
  Value input;
  /// The ops of the bodies, cloned into the chunked ops.
  Operation *maximum, *subtract, *exponential, *add;
};

/// Whether `op` reduces its innermost loop alone into one output that
/// holds its other loops in order, on static tensors, reading `input`
/// through the identity map.
bool isRowReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || op.getNumReductionLoops() != 1 ||
      op.getNumLoops() < 2)
    return false;
  unsigned numLoops = op.getNumLoops();
  if (op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return outputMap ==
         AffineMap::getMultiDimIdentityMap(numLoops, op.getContext())
             .getMajorSubMap(numLoops - 1);
}

/// The body's value that `op` yields, if its body is `ops` operations
/// long.
Value yielded(linalg::GenericOp op, unsigned ops) {
  Block *body = op.getBody();
  if (body->getOperations().size() != ops + 1)
    return Value();
  return body->getTerminator()->getOperand(0);
}

/// The input operand whose block argument `value` is, if it is one.
OpOperand *inputOf(linalg::GenericOp op, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != op.getBody() ||
      argument.getArgNumber() >= op.getNumDpsInputs())
    return nullptr;
  return op.getDpsInputOperand(argument.getArgNumber());
}

/// Matches `sum` as a row sum of exp(x - max(x)).
std::optional<SoftmaxStatistics> match(linalg::GenericOp sum) {
  if (!isRowReduction(sum) || sum.getNumDpsInputs() != 2)
    return std::nullopt;
  Value accumulator = sum.getRegionOutputArgs()[0];
  auto add = dyn_cast_or_null<arith::AddFOp>(yielded(sum, 3).getDefiningOp());
  if (!add)
    return std::nullopt;
  Value term = add.getLhs() == accumulator ? add.getRhs() : add.getLhs();
  if (term == accumulator ||
      (add.getLhs() != accumulator && add.getRhs() != accumulator))
    return std::nullopt;
  auto exponential = term.getDefiningOp<math::ExpOp>();
  auto subtract = exponential
                      ? exponential.getOperand().getDefiningOp<arith::SubFOp>()
                      : arith::SubFOp();
  if (!subtract)
    return std::nullopt;
  OpOperand *row = inputOf(sum, subtract.getLhs());
  OpOperand *shift = inputOf(sum, subtract.getRhs());
  if (!row || !shift || row == shift ||
      !sum.getMatchingIndexingMap(row).isIdentity() ||
      sum.getMatchingIndexingMap(shift) !=
          sum.getMatchingIndexingMap(sum.getDpsInitOperand(0)))
    return std::nullopt;
  auto max = shift->get().getDefiningOp<linalg::GenericOp>();
  if (!max || !isRowReduction(max) || max.getNumDpsInputs() != 1 ||
      max.getDpsInputOperand(0)->get() != row->get() ||
      !max.getMatchingIndexingMap(max.getDpsInputOperand(0)).isIdentity() ||
      max.getStaticLoopRanges() != sum.getStaticLoopRanges())
    return std::nullopt;
  auto maximum =
      dyn_cast_or_null<arith::MaximumFOp>(yielded(max, 1).getDefiningOp());
  Value maxAccumulator = max.getRegionOutputArgs()[0];
  if (!maximum ||
      !((inputOf(max, maximum.getLhs()) &&
         maximum.getRhs() == maxAccumulator) ||
        (inputOf(max, maximum.getRhs()) && maximum.getLhs() == maxAccumulator)))
    return std::nullopt;
  // The combined max replaces the max at the sum's place: its other
  // readers must come after the sum.
  if (max->getBlock() != sum->getBlock() ||
      llvm::any_of(max->getUsers(), [&](Operation *user) {
        return user != sum.getOperation() &&
               (user->getBlock() != sum->getBlock() ||
                user->isBeforeInBlock(sum));
      }))
    return std::nullopt;
  return SoftmaxStatistics{max,      sum,         row->get(), maximum,
                           subtract, exponential, add};
}

/// The largest divisor of `length` in [chunk / 2, chunk], if any.
std::optional<int64_t> chunkOf(int64_t length, int64_t chunk) {
  for (int64_t size = chunk; size >= std::max<int64_t>(chunk / 2, 1); --size)
    if (length % size == 0)
      return size;
  return std::nullopt;
}

/// A linalg.generic over `numLoops` loops, all parallel but the last,
/// whose output holds the parallel loops in order.
linalg::GenericOp createRowReduction(
    RewriterBase &rewriter, Location loc, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps, Value init, unsigned numLoops,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(
      rewriter.getMultiDimIdentityMap(numLoops).getMajorSubMap(numLoops - 1));
  return linalg::GenericOp::create(
      rewriter, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, body(b, l, args));
      });
}

/// Clones `op` with its operands replaced by `operands`.
Value cloneWith(OpBuilder &b, Operation *op, ValueRange operands) {
  IRMapping mapping;
  mapping.map(op->getOperands(), operands);
  return b.clone(*op, mapping)->getResult(0);
}

void split(RewriterBase &rewriter, const SoftmaxStatistics &statistics,
           int64_t chunk) {
  linalg::GenericOp max = statistics.max, sum = statistics.sum;
  Location loc = sum.getLoc();
  auto inputType = cast<RankedTensorType>(statistics.input.getType());
  unsigned rank = inputType.getRank();
  int64_t length = inputType.getShape().back();
  Type element = inputType.getElementType();

  // Chunk statistics: loops (outer..., c, k), results [outer..., c].
  SmallVector<int64_t> chunkedShape(inputType.getShape().drop_back());
  chunkedShape.append({length / chunk, chunk});
  SmallVector<ReassociationIndices> reassociation;
  for (unsigned d = 0; d + 1 < rank; ++d)
    reassociation.push_back({d});
  reassociation.push_back({rank - 1, rank});
  SmallVector<int64_t> statShape(chunkedShape.begin(), chunkedShape.end() - 1);
  unsigned chunkLoops = rank + 1;
  AffineMap all = rewriter.getMultiDimIdentityMap(chunkLoops);
  AffineMap perChunk = all.getMajorSubMap(rank);

  // All at the sum's place, in the order a row group of the chunk
  // statistics needs: the chunk max, the chunk sum (the group's last op),
  // then what reads them from outside the group.
  rewriter.setInsertionPoint(sum);
  Value chunked = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(chunkedShape, element),
      statistics.input, reassociation);
  auto filled = [&](TypedAttr value) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, statShape, element);
    Value constant = arith::ConstantOp::create(rewriter, loc, value);
    return linalg::FillOp::create(rewriter, loc, constant, empty).getResult(0);
  };
  auto negativeInfinity = rewriter.getFloatAttr(
      element, APFloat::getInf(cast<FloatType>(element).getFloatSemantics(),
                               /*Negative=*/true));
  auto zero = rewriter.getZeroAttr(element);
  Operation *maximum = statistics.maximum;
  auto maxOf = [&](OpBuilder &b, Location, ValueRange args) {
    return cloneWith(b, maximum, {args[0], args[1]});
  };
  linalg::GenericOp chunkMax = createRowReduction(
      rewriter, loc, chunked, {all}, filled(cast<TypedAttr>(negativeInfinity)),
      chunkLoops, maxOf);
  // The chunks' sums, each shifted by its own max.
  Operation *subtract = statistics.subtract,
            *exponential = statistics.exponential, *add = statistics.add;
  auto expSum = [&](OpBuilder &b, Location l, ValueRange args) {
    Value shifted = cloneWith(b, subtract, {args[0], args[1]});
    Value term = cloneWith(b, exponential, {shifted});
    return cloneWith(b, add, {term, args[2]});
  };
  linalg::GenericOp chunkSum = createRowReduction(
      rewriter, loc, ValueRange{chunked, chunkMax.getResult(0)},
      {all, perChunk}, filled(cast<TypedAttr>(zero)), chunkLoops, expSum);
  Value maxInit = max.getDpsInitOperand(0)->get();
  linalg::GenericOp rowMax = createRowReduction(
      rewriter, loc, chunkMax.getResult(0),
      {rewriter.getMultiDimIdentityMap(rank)}, maxInit, rank, maxOf);

  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  auto rescaledSum = [&](OpBuilder &b, Location l, ValueRange args) {
    // sum_c s_c * exp(m_c - M); a chunk of -inf alone (whose sum is NaN,
    // exp(-inf - -inf)) adds nothing, as its elements do to the row's sum.
    Value chunkSumValue = args[0], chunkMaxValue = args[1],
          rowMaxValue = args[2];
    Value scale = cloneWith(
        b, exponential, {cloneWith(b, subtract, {chunkMaxValue, rowMaxValue})});
    Value term = arith::MulFOp::create(b, l, chunkSumValue, scale);
    Value empty = arith::CmpFOp::create(
        b, l, arith::CmpFPredicate::OEQ, chunkMaxValue,
        arith::ConstantOp::create(b, l, cast<TypedAttr>(negativeInfinity)));
    term = arith::SelectOp::create(
        b, l, empty, arith::ConstantOp::create(b, l, cast<TypedAttr>(zero)),
        term);
    return cloneWith(b, add, {term, args[3]});
  };
  linalg::GenericOp rowSum = createRowReduction(
      rewriter, loc,
      ValueRange{chunkSum.getResult(0), chunkMax.getResult(0),
                 rowMax.getResult(0)},
      {identity, identity, identity.getMajorSubMap(rank - 1)},
      sum.getDpsInitOperand(0)->get(), rank, rescaledSum);

  rewriter.replaceOp(sum, rowSum.getResults());
  rewriter.replaceOp(max, rowMax.getResults());
}

struct KFSplitSoftmaxStatisticsPass
    : kf::impl::KFSplitSoftmaxStatisticsBase<KFSplitSoftmaxStatisticsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (chunk < 2 || minChunks < 2) {
      getOperation().emitError()
          << "kf-split-softmax-statistics: chunk and min-chunks must be at "
             "least 2";
      return signalPassFailure();
    }
    SmallVector<SoftmaxStatistics> matches;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<SoftmaxStatistics> statistics = match(op))
        matches.push_back(*statistics);
    });
    IRRewriter rewriter(&getContext());
    for (SoftmaxStatistics &statistics : matches) {
      // One sum per max: a second sum reading the same max would find it
      // already replaced.
      if (llvm::count_if(matches, [&](const SoftmaxStatistics &other) {
            return other.max == statistics.max;
          }) != 1)
        continue;
      int64_t length =
          cast<RankedTensorType>(statistics.input.getType()).getShape().back();
      std::optional<int64_t> size = chunkOf(length, chunk);
      if (!size || length / *size < minChunks)
        continue;
      split(rewriter, statistics, *size);
    }
  }
};
} // namespace
