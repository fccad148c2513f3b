//===- KFDialect.cpp - Kernel Foundry dialect -----------------------------===//

#include "kf/Dialect/KF/KFDialect.h"
#include "kf/Dialect/KF/KFAttrs.h"
#include "kf/Dialect/KF/KFOps.h"

using namespace mlir;
using namespace kf;

#include "kf/Dialect/KF/KFOpsDialect.cpp.inc"

void KFDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kf/Dialect/KF/KFOps.cpp.inc"
      >();
  registerAttributes();
}
