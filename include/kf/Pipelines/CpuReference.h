//===- CpuReference.h - The reference function run on the CPU --*- C++ -*-===//
//
// An independent check of the trusted reference: the problem's reference
// function bufferized, lowered to loops and JIT-compiled for the host with
// MLIR's ExecutionEngine. Slow and simple on purpose; used on small shapes
// to cross-check the GPU reference (the default schedule).
//
//===----------------------------------------------------------------------===//

#ifndef KF_PIPELINES_CPUREFERENCE_H
#define KF_PIPELINES_CPUREFERENCE_H

#include "kf/Dialect/KF/KFOps.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kf {

/// Runs the reference of `problem` on `inputs` (raw little-endian bytes, one
/// string per argument, row-major) and returns the outputs the same way.
llvm::Expected<std::vector<std::string>>
runReferenceOnCPU(ProblemOp problem, const std::vector<std::string> &inputs);

} // namespace kf

#endif // KF_PIPELINES_CPUREFERENCE_H
