//===- ExpandErf.cpp - erf without branches in kernels --------------------===//
//
// math.erf becomes a call of libdevice's __nv_erff, which branches on |x|
// (an exp2 for the tail). In a GEMM kernel's fused GELU epilogue that is a
// branch per accumulator: the straight-line code after the K loop splits
// into 64 small blocks, LLVM then places the last K steps' FMAs into them,
// next to their uses, and their operands stay live across the epilogue (L2-86
// spilled 5036 bytes even with its epilogue computed row by row). Upstream's
// rational approximation (populatePolynomialApproximateErfPattern,
// selects between three intervals, absolute error about 2.5e-7, 2 ulp at
// 1) computes it without a branch. It is used for every kernel, the trusted
// reference's too, so candidates and reference compute the same erf.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "BoundedRewrite.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace kf {
#define GEN_PASS_DEF_KFEXPANDERF
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFExpandErfPass : kf::impl::KFExpandErfBase<KFExpandErfPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    if (failed(kf::applyBoundedPatterns(getOperation(), std::move(patterns),
                                        "expanding erf")))
      return signalPassFailure();
  }
};
} // namespace
