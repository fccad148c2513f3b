//===- KFAttrs.h - KF attributes --------------------------------*- C++ -*-===//

#ifndef KF_DIALECT_KF_KFATTRS_H
#define KF_DIALECT_KF_KFATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "kf/Dialect/KF/KFAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kf/Dialect/KF/KFAttrs.h.inc"

#endif // KF_DIALECT_KF_KFATTRS_H
