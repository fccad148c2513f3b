//===- CostModel.cpp - Predicted time of a candidate without a GPU --------===//

#include "kf/Analysis/CostModel.h"

#include <algorithm>

using namespace mlir;
using namespace kf;

/// What a launch costs beyond its work (H200, back-to-back launches).
static constexpr double kLaunchSeconds = 3e-6;
/// Bytes in flight per SM that the H200's bandwidth needs (Little's law:
/// 4.27 TB/s x ~700 ns / 132 SMs), as in the diagnosis.
static constexpr double kBytesInFlightPerSM = 22600;
static constexpr int64_t kSMs = 132;
/// Trip count assumed for loops whose trip count is unknown: in kf's
/// lowered kernels these are the guards of partial tiles (at most one
/// iteration per thread).
static constexpr int64_t kUnknownTrips = 1;
/// Efficiency assumed for accesses whose pattern is unknown.
static constexpr double kUnknownEfficiency = 0.5;

CostPrediction kf::predictCost(ArrayRef<KernelAnalysis> kernels,
                               const ProblemAnalysis &problem,
                               const Ceilings &ceilings) {
  CostPrediction prediction;
  for (const KernelAnalysis &analysis : kernels) {
    KernelCost cost;
    cost.kernel = analysis.getName().str();
    if (!analysis.blockSize || !analysis.gridSize) {
      cost.seconds = kLaunchSeconds;
      prediction.kernels.push_back(cost);
      prediction.seconds += cost.seconds;
      continue;
    }
    double threadsPerBlock = 1, blocks = 1;
    for (int i = 0; i < 3; ++i) {
      threadsPerBlock *= (*analysis.blockSize)[i];
      blocks *= (*analysis.gridSize)[i];
    }
    double threads = threadsPerBlock * blocks;
    // Bytes moved: each execution of a global access by every thread, the
    // used bytes divided by the access's efficiency (sectors touched).
    // Bytes issued per thread per iteration of the innermost loop feed the
    // in-flight estimate.
    double inFlightPerThread = 0;
    for (const MemoryAccess &access : analysis.accesses) {
      if (access.space != MemorySpace::Global)
        continue;
      // An address that does not change across the innermost loop (an
      // accumulator in memory) stays in L1: its traffic counts once, its
      // latency through the loads in flight below.
      double executions = 1;
      SmallVector<const LoopFacts *> loops = analysis.enclosingLoops(access.op);
      for (auto [depth, loop] : llvm::enumerate(loops)) {
        if (depth == 0 && access.loopInvariantAddress)
          continue;
        executions *= loop->tripCount ? std::max<int64_t>(1, *loop->tripCount)
                                      : kUnknownTrips;
      }
      double used = double(access.elementBytes) * access.vectorWidth;
      double efficiency =
          access.efficiency > 0 ? access.efficiency : kUnknownEfficiency;
      cost.bytes += threads * executions * used / efficiency;
      if (!access.isStore)
        inFlightPerThread += used;
    }
    // Resident threads per SM: occupancy, or what the grid gives an SM.
    double residentPerSM = 2048;
    if (std::optional<KernelAnalysis::Occupancy> occupancy =
            analysis.occupancy())
      residentPerSM = occupancy->fraction * 2048;
    residentPerSM = std::min(residentPerSM, threads / kSMs);
    double inFlightPerSM = residentPerSM * inFlightPerThread;
    cost.bandwidthFraction =
        inFlightPerSM > 0 ? std::min(1.0, inFlightPerSM / kBytesInFlightPerSM)
                          : 1.0;
    double memorySeconds =
        cost.bytes /
        (ceilings.copyBytesPerSecond * std::max(cost.bandwidthFraction, 1e-3));
    // Arithmetic: the FMAs of each loop at the FMA peak, slowed where the
    // loop's shared-memory wavefronts cap the FMA issue rate (the
    // diagnosis's shared-memory bound: register tiles too small for the
    // operand bytes they read, bank conflicts).
    for (const LoopFacts &loop : analysis.loops) {
      if (loop.fmaPerThread == 0)
        continue;
      double executions = loop.tripCount ? std::max<int64_t>(1, *loop.tripCount)
                                         : kUnknownTrips;
      // (A CFG loop's latch lies in its own body: skip the loop itself.)
      for (const LoopFacts *outer : analysis.enclosingLoops(loop.op))
        if (outer != &loop)
          executions *= outer->tripCount
                            ? std::max<int64_t>(1, *outer->tripCount)
                            : kUnknownTrips;
      cost.fmaSeconds +=
          2 * threads * executions * loop.fmaPerThread /
          (ceilings.fp32PeakFlopsPerSecond * loop.fmaPeakBound());
    }
    cost.seconds = kLaunchSeconds + std::max(memorySeconds, cost.fmaSeconds);
    prediction.kernels.push_back(cost);
    prediction.seconds += cost.seconds;
  }
  prediction.seconds = std::max(
      prediction.seconds, double(problem.flops) / ceilings.fp32FlopsPerSecond);
  return prediction;
}
