//===- Bottleneck.cpp - What limits a kernel: predicted and measured ------===//

#include "kf/Analysis/Bottleneck.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kf;

/// Achieved fraction of a ceiling above which that resource is the limit.
static constexpr double kBoundFraction = 0.5;
/// Per-launch overhead below which a run is dominated by launches.
static constexpr double kLaunchMs = 0.01;

Bottleneck kf::predictBottleneck(const ProblemAnalysis &problem,
                                 const Ceilings &ceilings,
                                 const llvm::json::Array &kernelDiagnosis) {
  // A kernel's share of the work: threads x the trip counts of its loops
  // (unknown trip counts count as 1000) x the most FMAs per thread one of
  // its loops' iterations runs (at least 1: a GEMM kernel's K step runs
  // 512, a transposing copy beside it one load and one store). Findings of
  // kernels doing under 5% of the largest kernel's work (the combine step
  // of a split reduction, the K-outer copy of a GEMM's operand) do not
  // decide what limits the whole candidate.
  auto work = [](const llvm::json::Object &kernel) {
    double threads = 1;
    for (llvm::StringRef key : {"grid", "block"})
      if (const llvm::json::Array *sizes = kernel.getArray(key))
        for (const llvm::json::Value &size : *sizes)
          threads *= std::max<int64_t>(1, size.getAsInteger().value_or(1));
    int64_t fmas = 1;
    if (const llvm::json::Array *loops = kernel.getArray("loops"))
      for (const llvm::json::Value &loop : *loops) {
        const llvm::json::Object &facts = *loop.getAsObject();
        threads *=
            std::max<int64_t>(1, facts.getInteger("trip_count").value_or(1000));
        fmas = std::max<int64_t>(
            fmas, facts.getInteger("fma_per_thread").value_or(1));
      }
    return threads * double(fmas);
  };
  double largest = 0;
  for (const llvm::json::Value &kernel : kernelDiagnosis)
    largest = std::max(largest, work(*kernel.getAsObject()));
  auto firstFinding = [&](llvm::StringRef kind) -> const llvm::json::Object * {
    for (const llvm::json::Value &kernel : kernelDiagnosis)
      if (const llvm::json::Array *findings =
              kernel.getAsObject()->getArray("findings");
          findings && work(*kernel.getAsObject()) >= 0.05 * largest)
        for (const llvm::json::Value &finding : *findings)
          if (finding.getAsObject()->getString("kind") == kind)
            return finding.getAsObject();
    return nullptr;
  };
  auto because = [](const llvm::json::Object *finding) {
    return (*finding->getString("location") + ": " +
            *finding->getString("message"))
        .str();
  };
  // Work so small that even at the roofline it takes less than the launches
  // themselves.
  unsigned launches = std::max<size_t>(1, kernelDiagnosis.size());
  double floorMs = problem.floorSeconds(ceilings) * 1e3;
  if (floorMs < kLaunchMs * launches)
    return {"launch-bound",
            llvm::formatv("the roofline floor is {0:F4} ms, under the ~{1} ms "
                          "that {2} launch(es) cost",
                          floorMs, kLaunchMs * launches, launches)
                .str()};
  for (llvm::StringRef kind :
       {"low-parallelism", "small-blocks", "few-loads-in-flight"})
    if (const llvm::json::Object *finding = firstFinding(kind))
      return {"latency-bound", because(finding)};
  if (const llvm::json::Object *finding = firstFinding("uncoalesced-access"))
    return {"memory-bound", because(finding)};
  if (!problem.computationKnown)
    return {"unknown", "the problem has no reference computation to count "
                       "flops in (a CUDA kernel that is its own reference), "
                       "and the kernel shows no latency or coalescing "
                       "finding"};
  double ridge = ceilings.fp32FlopsPerSecond / ceilings.copyBytesPerSecond;
  if (problem.intensity() < ridge)
    return {"memory-bound",
            llvm::formatv("{0:F2} FLOP per byte, below the ridge point of "
                          "{1:F1}: the bytes set the floor",
                          problem.intensity(), ridge)
                .str()};
  if (const llvm::json::Object *finding = firstFinding("broadcast-reload"))
    return {"memory-bound",
            "compute-heavy problem, but the kernel re-reads its operands: " +
                because(finding)};
  return {"compute-bound",
          llvm::formatv("{0:F1} FLOP per byte, above the ridge point of {1:F1}",
                        problem.intensity(), ridge)
              .str()};
}

Bottleneck kf::classifyMeasurement(const ProblemAnalysis &problem,
                                   const Ceilings &ceilings, double medianMs,
                                   unsigned launches) {
  double seconds = medianMs / 1e3;
  double bandwidth = problem.floorBytes / seconds / ceilings.copyBytesPerSecond;
  double rate = problem.flops / seconds / ceilings.fp32FlopsPerSecond;
  std::string numbers = llvm::formatv("{0:F0}% of copy bandwidth, {1:F0}% of "
                                      "the fp32 rate",
                                      bandwidth * 100, rate * 100);
  if (bandwidth >= kBoundFraction && bandwidth >= rate)
    return {"memory-bound", numbers};
  if (rate >= kBoundFraction)
    return {"compute-bound", numbers};
  if (medianMs < kLaunchMs * std::max(1u, launches))
    return {"launch-bound", llvm::formatv("{0:F3} ms for {1} launches; {2}",
                                          medianMs, launches, numbers)};
  return {"latency-bound",
          "neither memory nor arithmetic near its ceiling (" + numbers + ")"};
}
