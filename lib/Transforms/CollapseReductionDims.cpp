//===- CollapseReductionDims.cpp - One loop per run of reduction dims -----===//

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
/// Maximal runs of two or more adjacent reduction loops that every indexing
/// map of `op` keeps adjacent and in order.
SmallVector<ReassociationIndices>
collapsibleReductionRuns(linalg::LinalgOp op) {
  SmallVector<ReassociationIndices> runs;
  SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int64_t dim = 0, e = kinds.size(); dim < e;) {
    if (kinds[dim] != utils::IteratorType::reduction) {
      ++dim;
      continue;
    }
    ReassociationIndices run;
    while (dim < e && kinds[dim] == utils::IteratorType::reduction)
      run.push_back(dim++);
    if (run.size() >= 2 && linalg::areDimSequencesPreserved(maps, {run}))
      runs.push_back(run);
  }
  return runs;
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
