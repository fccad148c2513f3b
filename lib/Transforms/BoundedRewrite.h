//===- BoundedRewrite.h - Greedy rewrites that must end ---------*- C++ -*-===//
//
// Some schedules' vectors make upstream lowering patterns run without end
// (a split 3-D reduction with register steps), each round growing the IR.
// The vector lowerings apply their patterns through this helper: at most 10
// rounds and 200000 rewrites, far above what converging kernels need, then
// an error at `op` instead of a compile that runs into a timeout.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_TRANSFORMS_BOUNDEDREWRITE_H
#define KF_LIB_TRANSFORMS_BOUNDEDREWRITE_H

#include "mlir/IR/PatternMatch.h"

namespace kf {

/// Applies `patterns` greedily to the regions of `op` within the bounds;
/// fails with an error naming `what` when they are reached.
mlir::LogicalResult applyBoundedPatterns(mlir::Operation *op,
                                         mlir::RewritePatternSet &&patterns,
                                         llvm::StringRef what);

} // namespace kf

#endif // KF_LIB_TRANSFORMS_BOUNDEDREWRITE_H
