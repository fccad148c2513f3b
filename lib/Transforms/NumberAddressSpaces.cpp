//===- NumberAddressSpaces.cpp - GPU address spaces as NVVM numbers -------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"

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
    replacer.recursivelyReplaceElementsIn(getOperation(),
                                          /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};
} // namespace
