//===- FuseElementwise.cpp - Recompute elementwise producers in consumers -===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFFUSEELEMENTWISE
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFFuseElementwisePass
    : kf::impl::KFFuseElementwiseBase<KFFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Legality is upstream's (areElementwiseOpsFusable, checked by the
    // pattern); the policy here is "always, whatever the use count", except
    // into a contraction: its body would no longer be a multiply-add, and
    // the GEMM kernel would refuse it (an im2col gather fused into its
    // GEMM is a direct convolution again).
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return !consumer || !linalg::isaContractionOpInterface(consumer);
        });
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
