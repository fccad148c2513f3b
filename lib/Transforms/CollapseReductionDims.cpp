//===- CollapseReductionDims.cpp - One loop per run of reduction dims -----===//

#include "kf/Analysis/LoopRuns.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFCOLLAPSEREDUCTIONDIMS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Runs of adjacent reduction loops that every indexing map of `op` keeps
/// adjacent and in order (their longest such pieces: batch norm over (c, n,
/// h, w) reading x[n, c, h, w] gives [h, w]).
SmallVector<ReassociationIndices>
collapsibleReductionRuns(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  llvm::sort(reductions);
  return kf::preservedLoopRuns(op.getIndexingMapsArray(), reductions);
}

struct KFCollapseReductionDimsPass
    : kf::impl::KFCollapseReductionDimsBase<KFCollapseReductionDimsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleReductionRuns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
