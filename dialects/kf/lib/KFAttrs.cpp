//===- KFAttrs.cpp - KF attributes ----------------------------------------===//

#include "kf/Dialect/KF/KFAttrs.h"
#include "kf/Dialect/KF/KFDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace kf;

#include "kf/Dialect/KF/KFAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kf/Dialect/KF/KFAttrs.cpp.inc"

FailureOr<APFloat> kf::parseKFDouble(AsmParser &parser) {
  // The token's spelling decides the width of a hex literal; MLIR's own
  // parseFloat(double) would read every hex literal as f64 bits, making
  // the documented 0x7F800000 (+inf as f32) an f64 denormal.
  SMLoc loc = parser.getCurrentLocation();
  StringRef text(loc.getPointer());
  text = text.ltrim(" \t").drop_while([](char c) { return c == '-'; });
  if (text.starts_with("0x") || text.starts_with("0X")) {
    size_t digits =
        text.drop_front(2).take_while([](char c) { return isxdigit(c); })
            .size();
    if (digits != 8 && digits != 16) {
      parser.emitError(loc)
          << "a hexadecimal float literal gives the bits of an f32 (8 hex "
             "digits, e.g. 0x7F800000) or of an f64 (16 hex digits); this "
             "one has "
          << digits;
      return failure();
    }
    APFloat value(0.0);
    if (parser.parseFloat(digits == 8 ? APFloat::IEEEsingle()
                                      : APFloat::IEEEdouble(),
                          value))
      return failure();
    bool lost = false;
    value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return value;
  }
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

void KFDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kf/Dialect/KF/KFAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// UniformAttr
//===----------------------------------------------------------------------===//

LogicalResult UniformAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  APFloat loValue, APFloat hiValue) {
  double lo = loValue.convertToDouble(), hi = hiValue.convertToDouble();
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return emitError() << "#kf.uniform bounds must be finite, got (" << lo
                       << ", " << hi << ")";
  if (!(lo < hi))
    return emitError() << "#kf.uniform<" << lo << ", " << hi
                       << ">: lo must be less than hi";
  return success();
}

bool UniformAttr::isCompatibleWith(Type type) const {
  return isa<FloatType>(type);
}
StringRef UniformAttr::getKindName() const { return "uniform"; }

//===----------------------------------------------------------------------===//
// NormalAttr
//===----------------------------------------------------------------------===//

LogicalResult NormalAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 APFloat meanValue, APFloat stdValue) {
  double mean = meanValue.convertToDouble(), std = stdValue.convertToDouble();
  if (!std::isfinite(mean) || !std::isfinite(std))
    return emitError() << "#kf.normal parameters must be finite, got (" << mean
                       << ", " << std << ")";
  if (!(std > 0))
    return emitError() << "#kf.normal<" << mean << ", " << std
                       << ">: the standard deviation must be positive";
  return success();
}

bool NormalAttr::isCompatibleWith(Type type) const {
  return isa<FloatType>(type);
}
StringRef NormalAttr::getKindName() const { return "normal"; }

//===----------------------------------------------------------------------===//
// IntRangeAttr
//===----------------------------------------------------------------------===//

LogicalResult IntRangeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t lo, int64_t hi) {
  if (lo >= hi)
    return emitError() << "#kf.int_range<" << lo << ", " << hi
                       << ">: lo must be less than hi (the range is [lo, hi))";
  return success();
}

bool IntRangeAttr::isCompatibleWith(Type type) const {
  return isa<IntegerType>(type);
}
StringRef IntRangeAttr::getKindName() const { return "int_range"; }

//===----------------------------------------------------------------------===//
// ToleranceAttr
//===----------------------------------------------------------------------===//

LogicalResult
ToleranceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      APFloat atolValue, APFloat rtolValue) {
  double atol = atolValue.convertToDouble();
  double rtol = rtolValue.convertToDouble();
  if (!std::isfinite(atol) || !std::isfinite(rtol))
    return emitError() << "#kf.tolerance values must be finite, got atol = "
                       << atol << ", rtol = " << rtol;
  if (atol < 0 || rtol < 0)
    return emitError() << "#kf.tolerance<atol = " << atol << ", rtol = " << rtol
                       << ">: tolerances must be non-negative";
  return success();
}
