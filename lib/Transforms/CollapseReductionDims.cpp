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
/// map of `op` keeps adjacent and in order. A run that some map breaks up
/// (batch norm over (c, n, h, w) reading x[n, c, h, w]) still gives its
/// longest pieces that every map keeps ([h, w]).
SmallVector<ReassociationIndices>
collapsibleReductionRuns(linalg::LinalgOp op) {
  SmallVector<ReassociationIndices> runs;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // areDimSequencesPreserved is only defined for projected permutations
  // (LLVM 22 does not check): a pooling window's (h * 2 + kh) was collapsed
  // into an op that fails to verify.
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return runs;
  SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
  for (int64_t dim = 0, e = kinds.size(); dim < e;) {
    if (kinds[dim] != utils::IteratorType::reduction) {
      ++dim;
      continue;
    }
    ReassociationIndices run;
    while (dim < e && kinds[dim] == utils::IteratorType::reduction)
      run.push_back(dim++);
    // Greedily take the longest piece from each start that all maps keep.
    for (size_t start = 0; start + 1 < run.size();) {
      size_t end = start + 1;
      while (end < run.size() &&
             linalg::areDimSequencesPreserved(
                 maps, {ReassociationIndices(run.begin() + start,
                                             run.begin() + end + 1)}))
        ++end;
      if (end - start >= 2)
        runs.push_back(
            ReassociationIndices(run.begin() + start, run.begin() + end));
      start = end;
    }
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
