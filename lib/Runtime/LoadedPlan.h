//===- LoadedPlan.h - A launch plan loaded on a device -----*- C++ -*-===//
//
// Private to lib/Runtime: the evaluator's view of a LaunchPlan once its
// modules are loaded, its kernels resolved and checked against the device's
// limits, and its temporaries allocated.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_RUNTIME_LOADEDPLAN_H
#define KF_LIB_RUNTIME_LOADEDPLAN_H

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/Evaluator.h"
#include "kf/Runtime/LaunchPlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace kf {

/// Fails (load-error) unless `plan` takes the problem's buffers: its
/// inputs, then its outputs. `role` names the plan in the message.
llvm::Error checkBufferCount(const LaunchPlan &plan, const ProblemSpec &spec,
                             llvm::StringRef role);

/// A LaunchPlan with its modules loaded, kernels resolved, resources
/// checked and temporaries allocated (once: runs reuse them).
class LoadedPlan {
public:
  static llvm::Expected<std::unique_ptr<LoadedPlan>>
  load(CudaDriver &driver, const LaunchPlan &plan, const DeviceInfo &device,
       llvm::StringRef role, llvm::SmallVectorImpl<KernelResources> &report);
  ~LoadedPlan();

  /// Enqueues one run on `stream`; `arguments` are the host function's
  /// arguments (inputs, then outputs).
  llvm::Error enqueue(CUstream stream, llvm::ArrayRef<CUdeviceptr> arguments);

private:
  LoadedPlan(CudaDriver &driver, const LaunchPlan &plan)
      : driver(driver), plan(plan) {}
  CudaDriver &driver;
  const LaunchPlan &plan;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;     // per step (null for non-launches)
  std::vector<DeviceBuffer> temporaries; // per plan buffer (empty for args)
};

} // namespace kf

#endif // KF_LIB_RUNTIME_LOADEDPLAN_H
