//===- KFAttrs.h - KF attributes --------------------------------*- C++ -*-===//

#ifndef KF_DIALECT_KF_KFATTRS_H
#define KF_DIALECT_KF_KFATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

namespace kf {
/// Parses a number of a KF attribute as the problem format documents it:
/// a decimal float literal, or a hexadecimal literal giving the bits of an
/// f32 (8 hex digits, `0x7F800000` is +inf) or of an f64 (16 hex digits).
/// Other hex widths are refused rather than guessed.
mlir::FailureOr<llvm::APFloat> parseKFDouble(mlir::AsmParser &parser);
} // namespace kf

#include "kf/Dialect/KF/KFAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kf/Dialect/KF/KFAttrs.h.inc"

#endif // KF_DIALECT_KF_KFATTRS_H
