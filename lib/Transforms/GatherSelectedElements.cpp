//===- GatherSelectedElements.cpp - Index-selecting reductions as gathers -===//
//
// Cross-entropy picks each row's logit at its target class. Written as a
// reduction (L1-95), the pick is a second output of the row's sum of
// exponentials: acc = (j == target[i]) ? x[i, j] : acc over the reduced
// loop j. The pick reads the whole row to keep one element, and its second
// output keeps the reduction off kf-distribute-reductions (one output, one
// combiner): one thread per row walked 4096 logits alone, at 0.17 of the
// roofline floor on the H200. The pick is a gather: y[i] = x[i, target[i]]
// when 0 <= target[i] < J, its initial value otherwise (no j matches). This
// pass makes it one: a parallel linalg.generic reading x at the target
// with tensor.extract, and the reduction keeps its other outputs. The
// values are the same bits; only the order of the reads changes. Upstream
// MLIR has no such rewrite.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFGATHERSELECTEDELEMENTS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// An output of a reduction that selects one element of an input by the
/// reduced loop's index: yield select(index(d) == t, x, acc).
struct IndexSelection {
  unsigned output;      // the output's position among the inits
  unsigned reducedLoop; // d
  OpOperand *source;    // the input x is read from
  OpOperand *target;    // the input t is read from
  arith::SelectOp select;
};

/// `value` as the reduced loop's index: linalg.index d, or an index_cast of
/// it to an integer type of at least 64 bits (a narrower one would wrap
/// indices the gather would not).
bool isLoopIndex(Value value, unsigned loop) {
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>()) {
    if (cast.getType().getIntOrFloatBitWidth() < 64)
      return false;
    value = cast.getIn();
  }
  auto index = value.getDefiningOp<linalg::IndexOp>();
  return index && index.getDim() == loop;
}

std::optional<IndexSelection> matchSelection(linalg::GenericOp op,
                                             unsigned output) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1)
    return std::nullopt;
  unsigned loop = reductions.front();
  Block *body = op.getBody();
  OpOperand *init = op.getDpsInitOperand(output);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  // The output holds one value per point of the parallel loops, in some
  // order: the gather runs over them.
  if (!initMap.isProjectedPermutation() ||
      initMap.getNumResults() != op.getNumLoops() - 1 ||
      initMap.isFunctionOfDim(loop))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto select = yield.getOperand(output).getDefiningOp<arith::SelectOp>();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  if (!select || select->getBlock() != body || !select->hasOneUse() ||
      select.getFalseValue() != acc || !acc.hasOneUse())
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value other;
  if (isLoopIndex(cmp.getLhs(), loop))
    other = cmp.getRhs();
  else if (isLoopIndex(cmp.getRhs(), loop))
    other = cmp.getLhs();
  else
    return std::nullopt;
  auto inputArg = [&](Value value) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || arg.getOwner() != body ||
        arg.getArgNumber() >= op.getNumDpsInputs())
      return nullptr;
    return op.getDpsInputOperand(arg.getArgNumber());
  };
  OpOperand *target = inputArg(other);
  OpOperand *source = inputArg(select.getTrueValue());
  if (!target || !source || !isa<RankedTensorType>(source->get().getType()))
    return std::nullopt;
  // The target is one per output point; the source is indexed by loops,
  // the reduced one among them.
  AffineMap targetMap = op.getMatchingIndexingMap(target);
  AffineMap sourceMap = op.getMatchingIndexingMap(source);
  if (!targetMap.isProjectedPermutation() || targetMap.isFunctionOfDim(loop) ||
      !sourceMap.isProjectedPermutation() || !sourceMap.isFunctionOfDim(loop))
    return std::nullopt;
  return IndexSelection{output, loop, source, target, select};
}

/// The position among `map`'s results of loop `loop`.
unsigned resultOf(AffineMap map, unsigned loop) {
  return *map.getResultPosition(getAffineDimExpr(loop, map.getContext()));
}

void rewrite(linalg::GenericOp op, const IndexSelection &selection,
             IRRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  OpOperand *init = op.getDpsInitOperand(selection.output);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  AffineMap targetMap = op.getMatchingIndexingMap(selection.target);
  AffineMap sourceMap = op.getMatchingIndexingMap(selection.source);
  unsigned rank = initMap.getNumResults();
  Value source = selection.source->get();
  unsigned reducedDim = resultOf(sourceMap, selection.reducedLoop);

  // The gather: over the output's dimensions, the target read through its
  // map restated in them.
  rewriter.setInsertionPoint(op);
  SmallVector<AffineExpr> targetExprs;
  for (AffineExpr expr : targetMap.getResults())
    targetExprs.push_back(getAffineDimExpr(
        resultOf(initMap, cast<AffineDimExpr>(expr).getPosition()), context));
  AffineMap gatherTargetMap = AffineMap::get(rank, 0, targetExprs, context);
  Value extent = rewriter.createOrFold<tensor::DimOp>(loc, source, reducedDim);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  // The initial value is read as an input, not through the output: the
  // output is then free for elementwise fusion to drop once a consumer
  // takes the gather in.
  auto initType = cast<RankedTensorType>(init->get().getType());
  SmallVector<OpFoldResult> initSizes =
      tensor::getMixedSizes(rewriter, loc, init->get());
  Value empty = tensor::EmptyOp::create(rewriter, loc, initSizes,
                                        initType.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  auto gather = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initType},
      ValueRange{selection.target->get(), init->get()}, ValueRange{empty},
      ArrayRef<AffineMap>{gatherTargetMap, identity, identity}, parallel,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value target = args[0];
        Value index =
            target.getType().isIndex()
                ? target
                : arith::IndexCastOp::create(b, loc, b.getIndexType(), target)
                      .getResult();
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value notBelow = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sge, index, zero);
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            index, extent);
        Value inBounds = arith::AndIOp::create(b, loc, notBelow, below);
        // Out of range, no j matched: the initial value, read from a valid
        // address.
        Value safe = arith::SelectOp::create(b, loc, inBounds, index, zero);
        SmallVector<Value> indices;
        for (AffineExpr expr : sourceMap.getResults()) {
          unsigned loop = cast<AffineDimExpr>(expr).getPosition();
          indices.push_back(
              loop == selection.reducedLoop
                  ? safe
                  : linalg::IndexOp::create(b, loc, resultOf(initMap, loop))
                        .getResult());
        }
        Value element = tensor::ExtractOp::create(b, loc, source, indices);
        linalg::YieldOp::create(b, loc,
                                ValueRange{arith::SelectOp::create(
                                    b, loc, inBounds, element, args[1])});
      });

  // The reduction without that output: the select goes, with the compare
  // and index ops that only it used.
  SmallVector<Value> inits;
  SmallVector<AffineMap> maps;
  SmallVector<Type> types;
  for (OpOperand &operand : op->getOpOperands()) {
    if (&operand == init)
      continue;
    maps.push_back(op.getMatchingIndexingMap(&operand));
    if (op.isDpsInit(&operand)) {
      inits.push_back(operand.get());
      types.push_back(operand.get().getType());
    }
  }
  if (inits.empty()) {
    rewriter.replaceOp(op, gather.getResults());
    return;
  }
  auto reduced =
      linalg::GenericOp::create(rewriter, loc, types, op.getDpsInputs(), inits,
                                maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), reduced.getRegion(),
                              reduced.getRegion().end());
  Block *body = reduced.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  unsigned accArg = op.getNumDpsInputs() + selection.output;
  SmallVector<Value> yielded(yield.getOperands());
  yielded.erase(yielded.begin() + selection.output);
  rewriter.setInsertionPoint(yield);
  linalg::YieldOp::create(rewriter, yield.getLoc(), yielded);
  rewriter.eraseOp(yield);
  arith::SelectOp select = selection.select;
  Operation *condition = select.getCondition().getDefiningOp();
  rewriter.eraseOp(select);
  // The compare, then its operands' casts and index ops, where unused.
  SmallVector<Operation *> dead{condition};
  while (!dead.empty()) {
    Operation *next = dead.pop_back_val();
    if (next->getBlock() != body || !isOpTriviallyDead(next))
      continue;
    SmallVector<Value> operands(next->getOperands());
    rewriter.eraseOp(next);
    for (Value operand : operands)
      if (Operation *def = operand.getDefiningOp())
        dead.push_back(def);
  }
  body->eraseArgument(accArg);

  SmallVector<Value> results;
  for (unsigned i = 0, r = 0; i < op.getNumDpsInits(); ++i)
    results.push_back(i == selection.output ? gather.getResult(0)
                                            : reduced.getResult(r++));
  rewriter.replaceOp(op, results);
}

struct KFGatherSelectedElementsPass
    : kf::impl::KFGatherSelectedElementsBase<KFGatherSelectedElementsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      // One selection per op (the suite's losses have one).
      if (!op.hasPureTensorSemantics())
        continue;
      for (unsigned output = 0; output < op.getNumDpsInits(); ++output)
        if (auto selection = matchSelection(op, output)) {
          rewrite(op, *selection, rewriter);
          break;
        }
    }
  }
};
} // namespace
