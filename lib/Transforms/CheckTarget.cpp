//===- CheckTarget.cpp - Refuse what the NVPTX target cannot compile ------===//

#include "kf/Analysis/TargetRequirements.h"
#include "kf/Transforms/Passes.h"

namespace kf {
#define GEN_PASS_DEF_KFCHECKTARGET
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

namespace {
struct KFCheckTargetPass : kf::impl::KFCheckTargetBase<KFCheckTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    // The checks live in lib/Analysis (kf::checkTargetRequirements); the
    // NVPTX backend's own checks end the process instead of failing.
    if (mlir::failed(
            kf::checkTargetRequirements(getOperation(), chip, ptxVersion)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
