//===- MergeKernelModules.cpp - One gpu.module per candidate --------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace kf {
#define GEN_PASS_DEF_KFMERGEKERNELMODULES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFMergeKernelModulesPass
    : kf::impl::KFMergeKernelModulesBase<KFMergeKernelModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    OpBuilder builder(kernelModules.front());
    SymbolTable moduleSymbols(module);
    auto merged = gpu::GPUModuleOp::create(builder, module.getLoc(), "kernels");
    moduleSymbols.insert(merged);
    SymbolTable mergedSymbols(merged);

    // Old (module, kernel) -> new kernel name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp kernelModule : kernelModules) {
      if (kernelModule.getTargetsAttr() ||
          kernelModule->getAttrs().size() > 1) {
        kernelModule.emitError()
            << "has targets or attributes; merge kernel modules before "
               "attaching a target";
        return signalPassFailure();
      }
      Block *body = kernelModule.getBody();
      bool single = llvm::hasSingleElement(body->getOperations());
      for (Operation &op : llvm::make_early_inc_range(body->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op.emitError() << "cannot be merged into one kernel module: it is "
                            "not a symbol";
          return signalPassFailure();
        }
        StringAttr oldName = symbol.getNameAttr();
        std::string name = kernelModule.getName().str();
        if (!single)
          name += "_" + oldName.str();
        SymbolTable::setSymbolName(&op, name);
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        // insert() keeps the name unless it collides, then makes it unique.
        renamed[{kernelModule.getNameAttr(), oldName}] =
            mergedSymbols.insert(&op);
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto key =
          std::make_pair(launch.getKernelModuleName(), launch.getKernelName());
      auto it = renamed.find(key);
      if (it == renamed.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp kernelModule : kernelModules)
      kernelModule.erase();
  }
};
} // namespace
