//===- BoundedRewrite.cpp - Greedy rewrites that must end -----------------===//

#include "BoundedRewrite.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

static constexpr int64_t kMaxRounds = 10;
static constexpr int64_t kMaxRewrites = 200000;

LogicalResult kf::applyBoundedPatterns(Operation *op,
                                       RewritePatternSet &&patterns,
                                       StringRef what) {
  GreedyRewriteConfig config;
  config.setMaxIterations(kMaxRounds);
  config.setMaxNumRewrites(kMaxRewrites);
  // Failure: a bound was reached before a fixpoint.
  if (succeeded(applyPatternsGreedily(op, std::move(patterns), config)))
    return success();
  return op->emitError()
         << what << " did not converge within " << kMaxRounds << " rounds and "
         << kMaxRewrites
         << " rewrites; this schedule's vectorization is not supported (try "
            "another reduction step or vector width)";
}
