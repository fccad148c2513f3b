//===- NumberAddressSpaces.cpp - GPU address spaces as NVVM numbers -------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

namespace kf {
#define GEN_PASS_DEF_KFNUMBERADDRESSSPACES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
unsigned nvvmAddressSpace(gpu::AddressSpace space) {
  switch (space) {
  case gpu::AddressSpace::Global:
    return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
  case gpu::AddressSpace::Workgroup:
    return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
  case gpu::AddressSpace::Private:
    // Private attributions become allocas, which live in the generic space.
    return static_cast<unsigned>(NVVM::NVVMMemorySpace::Generic);
  }
  llvm_unreachable("unknown address space");
}

struct KFNumberAddressSpacesPass
    : kf::impl::KFNumberAddressSpacesBase<KFNumberAddressSpacesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The same numbering as convert-gpu-to-nvvm's memory space conversion.
    IntegerType i64 = IntegerType::get(&getContext(), 64);
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](gpu::AddressSpaceAttr space) -> Attribute {
      return IntegerAttr::get(i64, nvvmAddressSpace(space.getValue()));
    });
    // gpu.dynamic_shared_memory must keep its #gpu.address_space<workgroup>
    // result (its verifier insists, and convert-gpu-to-nvvm lowers only that
    // form): its users get the numbered type through a cast, which
    // reconcile-unrealized-casts removes once both sides are LLVM types.
    SmallVector<std::pair<gpu::DynamicSharedMemoryOp, MemRefType>>
        dynamicShared;
    getOperation().walk([&](gpu::DynamicSharedMemoryOp op) {
      dynamicShared.push_back({op, op.getType()});
    });
    replacer.recursivelyReplaceElementsIn(getOperation(),
                                          /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    for (auto [op, workgroupType] : dynamicShared) {
      Type numbered = op.getType();
      if (numbered == workgroupType)
        continue;
      op.getResult().setType(workgroupType);
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      auto cast = UnrealizedConversionCastOp::create(builder, op.getLoc(),
                                                     numbered, op.getResult());
      op.getResult().replaceAllUsesExcept(cast.getResult(0), cast);
    }
  }
};
} // namespace
