//===- ForwardVectorTransfers.cpp - Store-to-load forwarding of transfers -===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFFORWARDVECTORTRANSFERS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFForwardVectorTransfersPass
    : kf::impl::KFForwardVectorTransfersBase<KFForwardVectorTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    vector::transferOpflowOpt(rewriter, getOperation());
  }
};
} // namespace
