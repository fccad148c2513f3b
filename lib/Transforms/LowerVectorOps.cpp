//===- LowerVectorOps.cpp - n-D vector ops to 1-D ones in kernels ---------===//

#include "kf/Transforms/Passes.h"

#include "BoundedRewrite.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFLOWERVECTOROPS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFLowerVectorOpsPass
    : kf::impl::KFLowerVectorOpsBase<KFLowerVectorOpsPass> {
  using Base::Base;

  LogicalResult applyBounded(RewritePatternSet &&patterns) {
    return kf::applyBoundedPatterns(getOperation(), std::move(patterns),
                                    "lowering the kernels' vector operations");
  }
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Two rounds: unit dimensions must be gone before the reductions are
    // lowered, or the lowering unrolls them element by element.
    RewritePatternSet unitDims(context);
    vector::populateCastAwayVectorLeadingOneDimPatterns(unitDims);
    vector::populateVectorTransferDropUnitDimsPatterns(unitDims);
    vector::populateDropUnitDimWithShapeCastPatterns(unitDims);
    vector::populateVectorTransferPermutationMapLoweringPatterns(unitDims);
    vector::ShapeCastOp::getCanonicalizationPatterns(unitDims, context);
    vector::BroadcastOp::getCanonicalizationPatterns(unitDims, context);
    vector::MultiDimReductionOp::getCanonicalizationPatterns(unitDims, context);
    if (failed(applyBounded(std::move(unitDims))))
      return signalPassFailure();

    RewritePatternSet lowering(context);
    vector::populateVectorMultiReductionLoweringPatterns(
        lowering, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorBroadcastLoweringPatterns(lowering);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorMaskOpLoweringPatterns(lowering);
    vector::ShapeCastOp::getCanonicalizationPatterns(lowering, context);
    if (failed(applyBounded(std::move(lowering))))
      return signalPassFailure();
  }
};
} // namespace
