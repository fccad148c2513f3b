//===- KFOps.h - KF operations ----------------------------------*- C++ -*-===//

#ifndef KF_DIALECT_KF_KFOPS_H
#define KF_DIALECT_KF_KFOPS_H

#include "kf/Dialect/KF/KFAttrs.h"
#include "kf/Dialect/KF/KFDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "kf/Dialect/KF/KFOps.h.inc"

namespace kf {

/// Finds the problem a tool should work on: the one named `name`, or the only
/// `kf.problem` in `module` when `name` is empty. Emits a located error that
/// says what to do and returns failure when there is none, several without a
/// name, or no such name.
mlir::FailureOr<ProblemOp> lookupProblem(mlir::ModuleOp module,
                                         llvm::StringRef name = {});

/// Reduces `module` to the reference function of its problem (as
/// lookupProblem finds it): every other top-level operation, the kf.problem
/// included, is erased. Returns the reference, or failure with the
/// lookup's error.
mlir::FailureOr<mlir::func::FuncOp> extractReference(mlir::ModuleOp module,
                                                     llvm::StringRef name = {});

} // namespace kf

#endif // KF_DIALECT_KF_KFOPS_H
