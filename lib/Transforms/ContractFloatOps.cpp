//===- ContractFloatOps.cpp - Allow fused multiply-add in kernels ---------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace kf {
#define GEN_PASS_DEF_KFCONTRACTFLOATOPS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFContractFloatOpsPass
    : kf::impl::KFContractFloatOpsBase<KFContractFloatOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](arith::ArithFastMathInterface op) {
      // Ops name their flags attribute themselves; the interface knows it.
      arith::FastMathFlagsAttr attr = op.getFastMathFlagsAttr();
      arith::FastMathFlags flags =
          attr ? attr.getValue() : arith::FastMathFlags::none;
      if (bitEnumContainsAll(flags, arith::FastMathFlags::contract))
        return;
      op->setAttr(
          op.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(
              op->getContext(), flags | arith::FastMathFlags::contract));
      ++numContracted;
    });
  }
};
} // namespace
