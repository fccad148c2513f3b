//===- Bottleneck.h - What limits a kernel: predicted and measured -*- C++ -*-//
//
// Bottleneck classes: memory-bound, compute-bound, latency/occupancy-bound
// (neither memory nor arithmetic near its ceiling: too little work in flight)
// and launch-bound (so short that launch overhead dominates). A prediction
// comes from the static diagnosis and the problem analysis; a measurement
// is classified from achieved bandwidth and FLOP rate against the ceilings.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_BOTTLENECK_H
#define KF_ANALYSIS_BOTTLENECK_H

#include "kf/Analysis/ProblemAnalysis.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace kf {

struct Bottleneck {
  std::string kind; // memory-bound, compute-bound, latency-bound, launch-bound
  std::string reason;
};

/// From the kernels' diagnosis documents (KernelAnalysis JSON) and the
/// problem's work and traffic.
Bottleneck predictBottleneck(const ProblemAnalysis &problem,
                             const Ceilings &ceilings,
                             const llvm::json::Array &kernelDiagnosis);

/// From a measured median time of a run of `launches` kernel launches.
Bottleneck classifyMeasurement(const ProblemAnalysis &problem,
                               const Ceilings &ceilings, double medianMs,
                               unsigned launches);

} // namespace kf

#endif // KF_ANALYSIS_BOTTLENECK_H
