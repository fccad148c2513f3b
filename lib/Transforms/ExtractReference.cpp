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
    ModuleOp module = getOperation();
    FailureOr<kf::ProblemOp> problem = kf::lookupProblem(module, problemName);
    if (failed(problem))
      return signalPassFailure();
    Operation *reference = problem->getReferenceFunc();
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (&op != reference)
        op.erase();
  }
};
} // namespace
