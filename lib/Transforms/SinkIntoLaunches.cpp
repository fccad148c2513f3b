//===- SinkIntoLaunches.cpp - Sink launch operands into gpu.launch --------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFSINKINTOLAUNCHES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Upstream's choice (cheap index computations) plus every constant-like op:
/// recomputing a constant in the kernel is free, passing it is not possible.
bool isWorthSinking(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<memref::DimOp, arith::SelectOp, arith::CmpIOp>(op);
}

struct KFSinkIntoLaunchesPass
    : kf::impl::KFSinkIntoLaunchesBase<KFSinkIntoLaunchesPass> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](gpu::LaunchOp launch) {
      if (failed(sinkOperationsIntoLaunchOp(launch, isWorthSinking)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // The host copies of sunk values are now dead; kf-check-host-code would
    // otherwise report a dead `ub.poison` as host computation.
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isWorthSinking(op) && !op->getParentOfType<gpu::LaunchOp>() &&
          isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      op->erase();
  }
};
} // namespace
