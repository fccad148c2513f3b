//===- OutlineKernels.cpp - Outlining that keeps a launch's attributes ----===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

namespace kf {
#define GEN_PASS_DEF_KFOUTLINEKERNELS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kKernelAttrs = "kf.kernel_attrs";

struct KFOutlineKernelsPass
    : kf::impl::KFOutlineKernelsBase<KFOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Each launch's attributes to keep (null for none), in walk order.
    SmallVector<DictionaryAttr> launchAttrs;
    bool any = false;
    module.walk([&](gpu::LaunchOp launch) {
      auto attrs = launch->getAttrOfType<DictionaryAttr>(kKernelAttrs);
      if (!attrs && launch->hasAttr(kKernelAttrs)) {
        launch.emitError() << "'" << kKernelAttrs
                           << "' must be a dictionary of kernel attributes";
        return signalPassFailure();
      }
      launchAttrs.push_back(attrs);
      any |= bool(attrs);
    });
    OpPassManager outline("builtin.module");
    outline.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outline, module)))
      return signalPassFailure();
    if (!any)
      return;
    SmallVector<gpu::LaunchFuncOp> launchFuncs;
    module.walk(
        [&](gpu::LaunchFuncOp launch) { launchFuncs.push_back(launch); });
    if (launchFuncs.size() != launchAttrs.size()) {
      module.emitError() << "outlining made " << launchFuncs.size()
                         << " launches of " << launchAttrs.size()
                         << " gpu.launch ops; kernel attributes not applied";
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    for (auto [launch, attrs] : llvm::zip_equal(launchFuncs, launchAttrs)) {
      if (!attrs)
        continue;
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel) {
        launch.emitError() << "outlined kernel not found";
        return signalPassFailure();
      }
      for (NamedAttribute attr : attrs)
        kernel->setAttr(attr.getName(), attr.getValue());
    }
  }
};
} // namespace
