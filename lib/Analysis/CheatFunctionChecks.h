//===- CheatFunctionChecks.h - Cheat checks on one function's ops -*- C++
//-*-===//
//
// Private to KFAnalysis: the part of the cheat checks that looks at one
// kernel or device function's ops alone (CheatDetection.cpp runs them on
// every function a kernel reaches).
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_ANALYSIS_CHEATFUNCTIONCHECKS_H
#define KF_LIB_ANALYSIS_CHEATFUNCTIONCHECKS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace kf::detail {

/// Reports a finding: its code, the op it is about, one sentence.
using ReportFn = llvm::function_ref<void(
    llvm::StringRef code, mlir::Operation *op, const llvm::Twine &message)>;

/// Calls and allocations in `function`: anything but libdevice math,
/// llvm intrinsics and device functions of the same module with a body
/// (which are judged as they are reached), device malloc, dynamic
/// parallelism.
void checkCalls(mlir::Operation *function, ReportFn report);

/// Arithmetic narrower than `minFloatBits` (including tensor-core ops by
/// the kind they multiply in, and conversions to tf32).
void checkPrecision(mlir::Operation *function, unsigned minFloatBits,
                    ReportFn report);

} // namespace kf::detail

#endif // KF_LIB_ANALYSIS_CHEATFUNCTIONCHECKS_H
