//===- Passes.h - Kernel Foundry schedule passes ----------------*- C++ -*-===//

#ifndef KF_SCHEDULE_PASSES_H
#define KF_SCHEDULE_PASSES_H

#include "kf/Dialect/KF/KFDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kf {

#define GEN_PASS_DECL
#include "kf/Schedule/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kf/Schedule/Passes.h.inc"

} // namespace kf

#endif // KF_SCHEDULE_PASSES_H
