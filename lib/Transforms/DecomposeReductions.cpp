//===- DecomposeReductions.cpp - One reduction loop per op ----------------===//
//
// A reduction over loops that no reshape makes one (batch norm's sum over n
// and h*w, with c between them in memory) cannot be split across threads by
// transform.structured.split_reduction, which takes a single reduction
// loop; and run sequentially, one thread sums 10^5-10^6 terms, slowly and
// with an fp32 error beyond a tight tolerance. This pass turns such an op
// into a partial reduction over its innermost reduction loop alone, with the
// outer reduction loops made parallel and kept as trailing dimensions of
// its result, followed by a reduction of those dimensions into the original
// output.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFDECOMPOSEREDUCTIONS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// Rewrites `op` into a fill, a partial reduction and a combining reduction
/// when it reduces over several loops, the innermost of them has at least
/// `minInnerRange` iterations, and its body is one floating-point combiner
/// with a neutral element (sum, product, max, min). Fails, changing
/// nothing, otherwise.
LogicalResult decompose(RewriterBase &rewriter, linalg::GenericOp op,
                        int64_t minInnerRange) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1)
    return failure();
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  if (reductionDims.size() < 2)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      ranges[reductionDims.back()] < minInnerRange)
    return failure();
  OpOperand *init = op.getDpsInitOperand(0);
  auto initType = dyn_cast<RankedTensorType>(init->get().getType());
  AffineMap outputMap = op.getMatchingIndexingMap(init);
  if (!initType || !outputMap.isProjectedPermutation(
                       /*allowZeroInResults=*/true))
    return failure();
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return failure();
  Operation *combiner = combiners.front();
  // Floating-point combiners only: reassociating an integer sum that
  // carries nsw/nuw could overflow where the original order did not.
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 ||
      !isa<FloatType>(combiner->getResult(0).getType()))
    return failure();
  BlockArgument accumulator = op.getRegionOutputArgs()[0];

  // The partial result: the output's dimensions, then one per outer
  // reduction loop, in loop order.
  ArrayRef<unsigned> outerDims = ArrayRef(reductionDims).drop_back();
  SmallVector<int64_t> partialShape(initType.getShape());
  SmallVector<AffineExpr> partialResults(outputMap.getResults());
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned dim : outerDims) {
    partialShape.push_back(ranges[dim]);
    partialResults.push_back(rewriter.getAffineDimExpr(dim));
    iterators[dim] = utils::IteratorType::parallel;
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.back() = AffineMap::get(op.getNumLoops(), 0, partialResults,
                               rewriter.getContext());

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape,
                                        initType.getElementType());
  Value identity = arith::ConstantOp::create(rewriter, loc, *neutral);
  Value filled =
      linalg::FillOp::create(rewriter, loc, identity, empty).getResult(0);
  auto partial = linalg::GenericOp::create(rewriter, loc, filled.getType(),
                                           op.getDpsInputs(),
                                           ValueRange{filled}, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), partial.getRegion(),
                              partial.getRegion().begin());

  // Combine: loops over the output's dimensions (parallel), then over the
  // partial result's extra ones (reduction), into the original output.
  unsigned outputRank = initType.getRank();
  unsigned combineLoops = outputRank + outerDims.size();
  SmallVector<utils::IteratorType> combineIterators(
      outputRank, utils::IteratorType::parallel);
  combineIterators.append(outerDims.size(), utils::IteratorType::reduction);
  AffineMap all = rewriter.getMultiDimIdentityMap(combineLoops);
  auto combine = linalg::GenericOp::create(
      rewriter, loc, initType, ValueRange{partial.getResult(0)},
      ValueRange{init->get()},
      ArrayRef<AffineMap>{all, all.getMajorSubMap(outputRank)},
      combineIterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping mapping;
        for (Value operand : combiner->getOperands())
          mapping.map(operand, operand == accumulator ? args[1] : args[0]);
        Operation *combined = b.clone(*combiner, mapping);
        linalg::YieldOp::create(b, l, combined->getResult(0));
      });
  rewriter.replaceOp(op, combine.getResults());
  return success();
}

struct KFDecomposeReductionsPass
    : kf::impl::KFDecomposeReductionsBase<KFDecomposeReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    // Collect first: the combining ops this creates may reduce over several
    // loops too, and are not to be decomposed again.
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops)
      (void)decompose(rewriter, op, minInnerRange);
  }
};
} // namespace
