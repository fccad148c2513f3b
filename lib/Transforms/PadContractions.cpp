//===- PadContractions.cpp - Contractions padded to GEMM tiles -----------===//
//
// The pipelined GEMM kernel (ContractionSchedule.h) needs tiles that divide
// M, N and K and operand rows that start 16-byte aligned (its cp.async
// copies are 16 bytes). A contraction of odd sizes (L1-8: 8205 x 5921 x
// 2949) fits neither: it fell back to the generic mapping and ran at 0.14x
// eager on the H200. Predicated copies inside the kernel would not help the
// alignment: with 2949-element rows only 4-byte copies are aligned. This
// pass pads such a contraction's operands with zeros to the sizes
// kf::paddedContractionLoops gives (a copy of each operand whose sizes
// change, one read and one write of it), computes the padded contraction,
// whose tiles the kernel then takes, and copies the result back out of the
// padded product (one more read and write of the output). The padding adds
// zero products at the end of each K sum, which leave its value unchanged.
//
//===----------------------------------------------------------------------===//

#include "PaddedGather.h"

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFPADCONTRACTIONS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// The padded size of each loop of the contraction.
SmallVector<int64_t> paddedLoopSizes(linalg::LinalgOp op,
                                     const kf::ContractionLoops &padded) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  sizes[padded.mLoop] = padded.m;
  sizes[padded.nLoop] = padded.n;
  sizes[padded.kLoop] = padded.k;
  return sizes;
}

/// The shape of `operand` when the loops have `loopSizes`.
SmallVector<int64_t> paddedShape(linalg::LinalgOp op, OpOperand *operand,
                                 ArrayRef<int64_t> loopSizes) {
  SmallVector<int64_t> shape;
  for (AffineExpr result : op.getMatchingIndexingMap(operand).getResults())
    shape.push_back(loopSizes[cast<AffineDimExpr>(result).getPosition()]);
  return shape;
}

/// `input` padded with zeros to `shape` (itself where it already has it).
Value padInput(OpBuilder &builder, Location loc, Value input,
               ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> sizes = cast<RankedTensorType>(input.getType()).getShape();
  if (sizes == shape)
    return input;
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  for (auto [size, padded] : llvm::zip_equal(sizes, shape))
    bounds.push_back({size, padded});
  return kf::buildPaddedGather(
      builder, loc, bounds,
      [&](OpBuilder &nested, Location nestedLoc, ArrayRef<Value> indices) {
        return tensor::ExtractOp::create(nested, nestedLoc, input, indices)
            .getResult();
      });
}

/// The elements of `product` (padded) that an output of `type` has: the
/// product is flattened and read by a map that linearizes the output's
/// indices over the padded shape. A slice of it would be a strided view on
/// the host, which kf's launch plans do not make, and linalg wants an
/// operand dimension read by a plain loop to be the loop's size.
Value readBack(OpBuilder &builder, Location loc, Value product,
               RankedTensorType type) {
  MLIRContext *context = builder.getContext();
  ArrayRef<int64_t> padded =
      cast<RankedTensorType>(product.getType()).getShape();
  unsigned rank = type.getRank();
  ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value flat = tensor::CollapseShapeOp::create(
      builder, loc, product, ArrayRef<ReassociationIndices>{all});
  SmallVector<int64_t> strides(rank, 1);
  for (int dim = rank - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * padded[dim + 1];
  AffineExpr linear = getAffineConstantExpr(0, context);
  for (unsigned dim = 0; dim < rank; ++dim)
    linear = linear + getAffineDimExpr(dim, context) * strides[dim];
  return linalg::GenericOp::create(
             builder, loc, TypeRange{type}, ValueRange{flat},
             ValueRange{tensor::EmptyOp::create(builder, loc, type.getShape(),
                                                type.getElementType())},
             ArrayRef<AffineMap>{
                 AffineMap::get(rank, 0, linear, context),
                 AffineMap::getMultiDimIdentityMap(rank, context)},
             kf::allParallel(rank),
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc, args[0]);
             })
      .getResult(0);
}

/// Rewrites `op` as its padded form and the copy back out of it.
void padContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                    const kf::ContractionLoops &padded) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> loopSizes = paddedLoopSizes(op, padded);
  SmallVector<Value> operands;
  for (OpOperand *input : op.getDpsInputOperands())
    operands.push_back(padInput(rewriter, loc, input->get(),
                                paddedShape(op, input, loopSizes)));
  OpOperand *init = op.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  auto outputType = cast<RankedTensorType>(init->get().getType());
  SmallVector<int64_t> outputShape = paddedShape(op, init, loopSizes);
  Value filled = linalg::FillOp::create(
                     rewriter, loc, fill.getInputs().front(),
                     tensor::EmptyOp::create(rewriter, loc, outputShape,
                                             outputType.getElementType())
                         .getResult())
                     .getResult(0);
  operands.push_back(filled);
  auto productType =
      RankedTensorType::get(outputShape, outputType.getElementType());
  Operation *product = mlir::clone(rewriter, op.getOperation(),
                                   TypeRange{productType}, operands);
  Value result = product->getResult(0);
  if (productType != outputType)
    result = readBack(rewriter, loc, result, outputType);
  rewriter.replaceOp(op, result);
  if (!fill->use_empty())
    return;
  Operation *empty = fill.getOutputs().front().getDefiningOp();
  rewriter.eraseOp(fill);
  if (isa_and_nonnull<tensor::EmptyOp>(empty) && empty->use_empty())
    rewriter.eraseOp(empty);
}

struct KFPadContractionsPass
    : kf::impl::KFPadContractionsBase<KFPadContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, kf::ContractionLoops>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(op);
      if (failed(loops))
        return;
      if (std::optional<kf::ContractionLoops> padded =
              kf::paddedContractionLoops(*loops, maxOverhead))
        work.push_back({op, *padded});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, padded] : work) {
      padContraction(rewriter, op, padded);
      ++numPadded;
    }
  }
};
} // namespace
