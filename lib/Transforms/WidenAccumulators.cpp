//===- WidenAccumulators.cpp - f64 accumulators for the reference ---------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace kf {
#define GEN_PASS_DEF_KFWIDENACCUMULATORS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// An elementwise linalg.generic converting `input` to `elementType`.
Value convertElements(OpBuilder &builder, Location loc, Value input,
                      Type elementType) {
  auto type = cast<RankedTensorType>(input.getType());
  auto resultType = type.clone(elementType);
  Value empty =
      tensor::EmptyOp::create(builder, loc, type.getShape(), elementType);
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, ValueRange{input}, ValueRange{empty},
      ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value converted =
            elementType.getIntOrFloatBitWidth() >
                    type.getElementType().getIntOrFloatBitWidth()
                ? arith::ExtFOp::create(b, l, elementType, args[0]).getResult()
                : arith::TruncFOp::create(b, l, elementType, args[0])
                      .getResult();
        linalg::YieldOp::create(b, l, converted);
      });
  return generic.getResult(0);
}

/// The combiner of a single-output reduction: the one op using the
/// accumulator, whose result the body yields. Null when the body has
/// another shape.
Operation *findCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return nullptr;
  BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!acc.hasOneUse())
    return nullptr;
  Operation *combiner = *acc.getUsers().begin();
  if (!isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0).getDefiningOp() != combiner)
    return nullptr;
  return combiner;
}

struct KFWidenAccumulatorsPass
    : kf::impl::KFWidenAccumulatorsBase<KFWidenAccumulatorsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      // Only reductions on tensors: one on memrefs (no results) updates its
      // buffer in place, where an f64 accumulator has no place to live.
      if (op.getNumResults() != 1)
        return;
      auto type = dyn_cast<RankedTensorType>(op.getResultTypes()[0]);
      // Static shapes only: the conversions build tensor.empty of the
      // accumulator's shape.
      if (type && type.hasStaticShape() && type.getElementType().isF32() &&
          findCombiner(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates)
      widen(op);
  }

  void widen(linalg::GenericOp op) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type f64 = builder.getF64Type();
    Value init = convertElements(builder, loc, op.getDpsInits()[0], f64);
    auto wideType = cast<RankedTensorType>(op.getResultTypes()[0]).clone(f64);
    auto wide = linalg::GenericOp::create(
        builder, loc, TypeRange{wideType}, op.getDpsInputs(), ValueRange{init},
        op.getIndexingMapsArray(), op.getIteratorTypesArray());
    // The same body, the accumulator in f64.
    IRMapping mapping;
    op.getRegion().cloneInto(&wide.getRegion(), mapping);
    Block *body = wide.getBody();
    BlockArgument acc = body->getArguments().back();
    acc.setType(f64);
    Operation *combiner = *acc.getUsers().begin();
    OpBuilder inside(combiner);
    SmallVector<Value> operands;
    for (Value operand : combiner->getOperands())
      operands.push_back(
          operand == acc
              ? operand
              : arith::ExtFOp::create(inside, combiner->getLoc(), f64, operand)
                    .getResult());
    Operation *wideCombiner =
        inside.create(combiner->getLoc(), combiner->getName().getIdentifier(),
                      operands, TypeRange{f64}, combiner->getAttrs());
    combiner->replaceAllUsesWith(wideCombiner);
    combiner->erase();
    builder.setInsertionPointAfter(wide);
    Value narrow =
        convertElements(builder, loc, wide.getResult(0), builder.getF32Type());
    op.getResult(0).replaceAllUsesWith(narrow);
    op.erase();
    ++numWidened;
  }
};
} // namespace
