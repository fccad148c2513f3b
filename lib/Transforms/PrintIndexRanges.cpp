//===- PrintIndexRanges.cpp - Thin printer pass over kf::IndexRanges ------===//

#include "kf/Analysis/IndexRanges.h"
#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Analysis/MemoryAccesses.h"
#include "kf/Transforms/Passes.h"

namespace kf {
#define GEN_PASS_DEF_KFPRINTINDEXRANGES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFPrintIndexRangesPass
    : kf::impl::KFPrintIndexRangesBase<KFPrintIndexRangesPass> {
  using Base::Base;

  void runOnOperation() override {
    for (Operation *kernel : kf::KernelAnalysis::findKernels(getOperation())) {
      kf::KernelAnalysis analysis(kernel);
      kf::IndexRanges ranges(kernel, analysis.blockSize, analysis.gridSize);
      kernel->walk([&](Operation *op) {
        for (const kf::BufferAccess &access : kf::accessesOf(op)) {
          std::optional<kf::ByteInterval> bytes =
              ranges.bytesReached(op, access.base);
          InFlightDiagnostic remark = op->emitRemark()
                                      << (access.isStore ? "store" : "load");
          if (bytes)
            remark << " reaches bytes [" << bytes->first << ", " << bytes->last
                   << "] of its buffer";
          else
            remark << " reaches unknown bytes";
        }
      });
    }
  }
};
} // namespace
