//===- LowerVectorTransfers.cpp - A schedule's post-bufferization patterns ===//

#include "kf/Transforms/Passes.h"

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
constexpr int64_t kMaxRewrites = 200000;

struct KFLowerVectorTransfersPass
    : kf::impl::KFLowerVectorTransfersBase<KFLowerVectorTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // The same sets as transform.apply_patterns.vector.
    // cast_away_vector_leading_one_dim, lower_transfer (max_transfer_rank =
    // 1), transfer_permutation_patterns and canonicalization.
    RewritePatternSet patterns(context);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    // Some vectorized schedules make these patterns undo each other
    // forever (a split 3-D reduction with register steps): stop after a
    // bound far above what converging schedules need, and say so.
    GreedyRewriteConfig config;
    config.setMaxNumRewrites(kMaxRewrites);
    // Failure: the rewrite limit was reached before a fixpoint.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation().emitError()
          << "vector transfer lowering did not converge within " << kMaxRewrites
          << " rewrites; this schedule's vectorization is not supported "
             "(try another reduction step or vector width)";
      return signalPassFailure();
    }
  }
};
} // namespace
