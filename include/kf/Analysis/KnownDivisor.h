//===- KnownDivisor.h - Powers of two an index is a multiple of -*- C++ -*-===//
//
// Which power of two an index value is known to be a multiple of, from the
// arithmetic that computes it: constants, sums and differences, products,
// left shifts by constants, index casts, and affine.apply (sums, products
// and mods of such values). Used to prove the alignment of vector accesses
// (kf-annotate-vector-alignment) and that an access stays within a 16-byte
// chunk (kf-interleave-shared-columns).
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_KNOWNDIVISOR_H
#define KF_ANALYSIS_KNOWNDIVISOR_H

#include "mlir/IR/Value.h"

#include <cstdint>

namespace kf {

/// The largest power of two (at most 2^30) known to divide `value`; 1 when
/// nothing is known; 0 when the value is known to be 0 (a multiple of
/// everything).
int64_t knownDivisor(mlir::Value value);

/// Whether `value` is known to be a multiple of `factor` (a power of two).
inline bool isKnownMultipleOf(mlir::Value value, int64_t factor) {
  int64_t divisor = knownDivisor(value);
  return divisor == 0 || divisor % factor == 0;
}

} // namespace kf

#endif // KF_ANALYSIS_KNOWNDIVISOR_H
