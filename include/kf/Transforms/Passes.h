//===- Passes.h - Kernel Foundry passes -------------------------*- C++ -*-===//

#ifndef KF_TRANSFORMS_PASSES_H
#define KF_TRANSFORMS_PASSES_H

#include "kf/Dialect/KF/KFDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kf {

#define GEN_PASS_DECL
#include "kf/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kf/Transforms/Passes.h.inc"

} // namespace kf

#endif // KF_TRANSFORMS_PASSES_H
