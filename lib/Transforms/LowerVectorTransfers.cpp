//===- LowerVectorTransfers.cpp - A schedule's post-bufferization patterns ===//

#include "kf/Transforms/Passes.h"

#include "BoundedRewrite.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFLOWERVECTORTRANSFERS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFLowerVectorTransfersPass
    : kf::impl::KFLowerVectorTransfersBase<KFLowerVectorTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // The same sets as transform.apply_patterns.vector.
    // cast_away_vector_leading_one_dim, lower_transfer (max_transfer_rank =
    // 1), transfer_permutation_patterns and canonicalization.
    RewritePatternSet patterns(context);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    if (!loadsAndStoresOnly) {
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      for (Dialect *dialect : context->getLoadedDialects())
        dialect->getCanonicalizationPatterns(patterns);
      for (RegisteredOperationName op : context->getRegisteredOperations())
        op.getCanonicalizationPatterns(patterns, context);
    }
    if (failed(kf::applyBoundedPatterns(getOperation(), std::move(patterns),
                                        "vector transfer lowering")))
      return signalPassFailure();
  }
};
} // namespace
