//===- ScanAnalysis.h - Scans written as masked reductions ------*- C++ -*-===//
//
// Linalg has no scan op: a cumulative sum (product, max, min) is written as
// a reduction whose body masks each element by comparing the reduction
// loop's index l with that of a parallel loop k of the same range,
//
//   out[.., k, ..] = fold over l of select(l <= k, x[.., l, ..], neutral)
//
// n^2 steps per row where a scan needs n. kf recognizes the form so that a
// schedule can run it as a scan (kf-lower-scans) and so that a scan written
// in blocks can become one scan again (kf-fold-blocked-scans).
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_SCANANALYSIS_H
#define KF_ANALYSIS_SCANANALYSIS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace kf {

/// The loops and body of a scan written as a masked reduction.
struct ScanLoops {
  /// The parallel loop k along which the outputs are the scan's positions.
  unsigned scanLoop = 0;
  /// The reduction loop l that runs over the elements.
  unsigned reductionLoop = 0;
  /// The range of both loops.
  int64_t length = 0;
  /// Whether position k folds the elements from k to the end (l >= k)
  /// rather than from the start (l <= k).
  bool reverse = false;
  /// Whether position k leaves out its own element (l < k or l > k).
  bool exclusive = false;
  /// The op folding the masked element into the accumulator (add, mul,
  /// max or min) and the select that masks it.
  mlir::Operation *combiner = nullptr;
  mlir::arith::SelectOp mask;
  /// The value the select keeps where the mask holds: the element, computed
  /// from the inputs without k.
  mlir::Value element;
};

/// Whether `op` is a scan written as a masked reduction: a linalg.generic
/// with one output and one reduction loop l of static range, whose body
/// yields combine(select(cmpi(l, k), element, neutral), acc) with acc (the
/// output's argument) used only there, `neutral` the combiner's neutral
/// element, k a parallel loop of l's range that the output is indexed by
/// and that neither the inputs nor the element depend on. The reason
/// otherwise.
llvm::FailureOr<ScanLoops> analyzeScan(mlir::linalg::LinalgOp op,
                                       std::string *whyNot = nullptr);

/// Whether `value` is the neutral element of `combiner` (for a float sum,
/// 0.0 or -0.0: a scan's sums differ in the sign of a zero at most).
bool isNeutralFor(mlir::Operation *combiner, mlir::Value value);

/// The identity a fold by `combiner` starts from: its neutral element, and
/// -0.0 rather than MLIR's +0.0 for a float sum (x + -0.0 is x for every x,
/// so partials that stay at it fold away). `combiner` must have one.
mlir::TypedAttr foldIdentity(mlir::Operation *combiner, mlir::Type elementType);

/// combine(lhs, rhs) built at `b` with `combiner`'s kind and attributes
/// (its fast-math flags): the fold of a reduction's or a scan's body applied
/// to other values.
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Operation *combiner, mlir::Value lhs,
                         mlir::Value rhs);

} // namespace kf

#endif // KF_ANALYSIS_SCANANALYSIS_H
