//===- CheckHostCode.cpp - Host side must be a launch plan ----------------===//

#include "kf/Runtime/LaunchPlan.h"
#include "kf/Transforms/Passes.h"

namespace kf {
#define GEN_PASS_DEF_KFCHECKHOSTCODE
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

namespace {
struct KFCheckHostCodePass
    : kf::impl::KFCheckHostCodeBase<KFCheckHostCodePass> {
  using Base::Base;
  void runOnOperation() override {
    if (mlir::failed(kf::checkHostCode(getOperation())))
      signalPassFailure();
  }
};
} // namespace
