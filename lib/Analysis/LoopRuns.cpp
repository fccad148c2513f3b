//===- LoopRuns.cpp - Runs of loops that indexing maps keep together ------===//

#include "kf/Analysis/LoopRuns.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;

SmallVector<ReassociationIndices>
kf::preservedLoopRuns(ArrayRef<AffineMap> maps, ArrayRef<unsigned> loops) {
  SmallVector<ReassociationIndices> runs;
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return runs;
  for (size_t start = 0; start < loops.size();) {
    ReassociationIndices run{static_cast<int64_t>(loops[start])};
    size_t end = start + 1;
    for (; end < loops.size() && loops[end] == loops[end - 1] + 1; ++end) {
      ReassociationIndices longer = run;
      longer.push_back(loops[end]);
      if (!linalg::areDimSequencesPreserved(maps, {longer}))
        break;
      run = std::move(longer);
    }
    if (run.size() >= 2)
      runs.push_back(std::move(run));
    start = end;
  }
  return runs;
}
