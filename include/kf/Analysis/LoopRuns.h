//===- LoopRuns.h - Runs of loops that indexing maps keep together -*- C++
//-*-===//
//
// Collapsing loops into one (upstream's linalg::populateCollapseDimensions)
// needs runs of loops that every indexing map of the op keeps adjacent and
// in order. kf collapses reduction loops (kf-collapse-reduction-dims) and a
// contraction's M and N loops (kf-collapse-contraction-dims) with the same
// search.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_LOOPRUNS_H
#define KF_ANALYSIS_LOOPRUNS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace kf {

/// Maximal runs of two or more consecutive loops among `loops` (sorted)
/// that every map of `maps` keeps adjacent and in order, taken greedily
/// from the first loop: a run some map breaks up still gives its longest
/// pieces that every map keeps. None unless every map is a projected
/// permutation (upstream's check is only defined for those, and LLVM 22
/// does not verify it: a pooling window's `h * 2 + kh` was once collapsed
/// into an op that failed to verify).
llvm::SmallVector<mlir::ReassociationIndices>
preservedLoopRuns(llvm::ArrayRef<mlir::AffineMap> maps,
                  llvm::ArrayRef<unsigned> loops);

} // namespace kf

#endif // KF_ANALYSIS_LOOPRUNS_H
