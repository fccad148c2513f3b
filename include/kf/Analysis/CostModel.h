//===- CostModel.h - Predicted time of a candidate without a GPU -*- C++
//-*-===//
//
// The static evaluator of the search when no CUDA device is present: a time
// predicted from the kernel analyses (what each global access moves, how
// many bytes are in flight per SM, occupancy) and the roofline ceilings. It
// ranks candidates; its numbers are predictions, and every consumer says so.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_COSTMODEL_H
#define KF_ANALYSIS_COSTMODEL_H

#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Analysis/ProblemAnalysis.h"

#include "mlir/IR/BuiltinOps.h"

namespace kf {

struct KernelCost {
  std::string kernel;
  /// Bytes the kernel's global accesses move, counting the sectors a warp
  /// touches (uncoalesced accesses move more than they use).
  double bytes = 0;
  /// The fraction of the copy bandwidth its bytes in flight can sustain
  /// (Little's law over the loads of one loop iteration; 1 = enough).
  double bandwidthFraction = 1;
  /// The FMAs of its loops at the FMA peak, divided by the fraction of it
  /// their shared-memory loads allow.
  double fmaSeconds = 0;
  double seconds = 0;
};

struct CostPrediction {
  llvm::SmallVector<KernelCost> kernels;
  /// Sum of the kernels' times, at least the problem's FLOPs at the fp32
  /// rate.
  double seconds = 0;
};

/// Predicts the time of a candidate from the analyses of its kernels
/// (llvm + nvvm or gpu.func kernels with known launch sizes; the ones the
/// diagnosis already built). Kernels without a known grid count as one
/// launch's overhead.
CostPrediction predictCost(llvm::ArrayRef<KernelAnalysis> kernels,
                           const ProblemAnalysis &problem,
                           const Ceilings &ceilings);

} // namespace kf

#endif // KF_ANALYSIS_COSTMODEL_H
