//===- EvaluatorImpl.h - The GPU evaluator's device state -------*- C++ -*-===//
//
// Private to lib/Runtime: the CUDA context, stream, events and runtime
// kernels a GpuEvaluator owns, with the device helpers (fill, compare,
// count differences, time runs) that the phases of an evaluation
// (Evaluation.cpp) are written with.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_RUNTIME_EVALUATORIMPL_H
#define KF_LIB_RUNTIME_EVALUATORIMPL_H

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/Evaluator.h"

#include "LoadedPlan.h"

#include <map>
#include <string>
#include <vector>

namespace kf {

class GpuEvaluator::Impl {
public:
  Impl(CudaDriver &driver, Context context, DeviceInfo info)
      : driver(driver), context(std::move(context)), info(std::move(info)) {}
  ~Impl() {
    if (runtimeModule)
      driver.cuModuleUnload(runtimeModule);
    if (stream)
      driver.cuStreamDestroy(stream);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
  }

  llvm::Error initialize(const PlanModule &runtimeKernels);
  llvm::Expected<PlanIO> runForIO(const ProblemSpec &spec,
                                  const LaunchPlan &plan, uint64_t seed,
                                  int64_t maxBytes);
  EvalResult evaluate(const ProblemSpec &spec, const LaunchPlan &reference,
                      const LaunchPlan &candidate, const EvalConfig &config);

  // Device helpers for the evaluation's phases (Evaluation.cpp).
  llvm::Error launchRuntime(llvm::StringRef name, int64_t elements,
                            KernelArguments &args);
  llvm::Error fill(const TensorSpec &tensor, CUdeviceptr pointer,
                   uint64_t seed);
  llvm::Expected<OutputErrors> compare(const TensorSpec &tensor,
                                       CUdeviceptr out, CUdeviceptr ref,
                                       double atol, double rtol);
  llvm::Expected<int64_t> countDifferentWords(CUdeviceptr a, CUdeviceptr b,
                                              int64_t bytes);
  llvm::Error synchronize(llvm::StringRef what);
  llvm::Expected<std::vector<double>>
  timeRuns(LoadedPlan &plan,
           llvm::ArrayRef<llvm::SmallVector<CUdeviceptr>> argumentSets,
           const EvalConfig &config);

  CudaDriver &driver;
  Context context;
  DeviceInfo info;
  CUmodule runtimeModule = nullptr;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  DeviceBuffer flushBuffer, statsBuffer;
  /// Reference outputs already computed, by (reference plan, problem,
  /// input seed and variant): the trusted reference is often far slower
  /// than the candidates (its reductions run sequentially in f64), and the
  /// same inputs come back for every candidate. Kept in host memory, where
  /// no candidate kernel can reach them.
  std::map<std::string, std::vector<std::string>> referenceCache;
  int64_t referenceCacheBytes = 0;
};

} // namespace kf

#endif // KF_LIB_RUNTIME_EVALUATORIMPL_H
