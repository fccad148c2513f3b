//===- ExternDynamicSharedMemory.cpp - .extern .shared for dynamic smem ---===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace kf {
#define GEN_PASS_DEF_KFEXTERNDYNAMICSHAREDMEMORY
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFExternDynamicSharedMemoryPass
    : kf::impl::KFExternDynamicSharedMemoryBase<
          KFExternDynamicSharedMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    // Upstream (LLVM 22) gives the global internal linkage, which NVPTX
    // emits as 1 byte of static storage. A zero-length shared array has no
    // other meaning than dynamic shared memory, so match it by its shape
    // rather than by upstream's private naming (__dynamic_shmem__N).
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (!array || array.getNumElements() != 0 ||
          global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          global.getInitializerRegion().getBlocks().size() ||
          global.getValueOrNull())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      // An external declaration has no visibility of its own to keep.
      global.setDsoLocal(false);
    }
  }
};
} // namespace
