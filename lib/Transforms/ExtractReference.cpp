//===- ExtractReference.cpp - Reduce a problem to its reference -----------===//

#include "kf/Dialect/KF/KFOps.h"
#include "kf/Transforms/Passes.h"

namespace kf {
#define GEN_PASS_DEF_KFEXTRACTREFERENCE
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFExtractReferencePass
    : kf::impl::KFExtractReferenceBase<KFExtractReferencePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(kf::extractReference(getOperation(), problemName)))
      signalPassFailure();
  }
};
} // namespace
