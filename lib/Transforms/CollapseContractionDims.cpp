//===- CollapseContractionDims.cpp - One M loop and one N loop per GEMM ---===//
//
// The pipelined GEMM kernel (ContractionSchedule.h) tiles one M loop and
// one N loop over the grid's y and x, and at most one other loop over z. A
// 4-D tensor times a matrix (Level 1 problem 11: A[b, i, j, m] B[m, l]) has
// three M loops, two of them larger than 1, and fell back to the generic
// mapping at 0.3x eager. Its M loops are adjacent in A and in the output, so
// they are one M loop of b*i*j rows in disguise: collapsing them (upstream's
// populateCollapseDimensions, with tensor.collapse_shape on the operands and
// tensor.expand_shape on the result, both free views after bufferization)
// makes it a plain GEMM. Upstream has the rewrite but no pass that picks a
// contraction's M and N loops for it.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFCOLLAPSECONTRACTIONDIMS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFCollapseContractionDimsPass
    : kf::impl::KFCollapseContractionDimsBase<KFCollapseContractionDimsPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateCollapseDimensions(patterns,
                                       kf::collapsibleContractionLoops);
    // The output's linalg.fill follows the reshape (fill of an empty tensor
    // of the collapsed shape), so that the contraction is still zeroed by a
    // fill of its own, which the GEMM kernel fuses.
    linalg::FillOp::getCanonicalizationPatterns(patterns, context);
    // collapse_shape(tensor.empty) -> tensor.empty of the collapsed shape:
    // the GEMM kernel must write its output buffer itself, not through a
    // view, or its accumulators are not hoisted out of the K loop (they
    // were loaded and stored at every K step, 0.53x eager on L1-10 where
    // the uncollapsed kernel ran at 0.85x).
    tensor::populateFoldTensorEmptyPatterns(patterns);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
