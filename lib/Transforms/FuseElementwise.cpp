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
    // pattern); the only policy here is "always, whatever the use count".
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *) { return true; });
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
