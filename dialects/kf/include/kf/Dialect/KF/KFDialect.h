//===- KFDialect.h - Kernel Foundry dialect ---------------------*- C++ -*-===//

#ifndef KF_DIALECT_KF_KFDIALECT_H
#define KF_DIALECT_KF_KFDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "kf/Dialect/KF/KFOpsDialect.h.inc"

#endif // KF_DIALECT_KF_KFDIALECT_H
