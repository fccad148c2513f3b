//===- DetectCheats.cpp - Thin pass over kf::detectCheats
//------------------===//

#include "kf/Analysis/CheatDetection.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace kf {
#define GEN_PASS_DEF_KFDETECTCHEATS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
struct KFDetectCheatsPass : kf::impl::KFDetectCheatsBase<KFDetectCheatsPass> {
  using Base::Base;

  void runOnOperation() override {
    kf::CheatCheckOptions options;
    if (numInputs >= 0)
      options.numInputs = numInputs;
    options.minFloatBits = minFloatBits;
    SmallVector<kf::CheatFinding> findings =
        kf::detectCheats(getOperation(), options);
    numFindings += findings.size();
    llvm::json::Array document;
    for (const kf::CheatFinding &finding : findings) {
      Operation *anchor = finding.op ? finding.op : getOperation();
      anchor->emitError() << "rejected [" << finding.code
                          << "]: " << finding.message
                          << (finding.kernel.empty()
                                  ? std::string()
                                  : " (kernel @" + finding.kernel + ")");
      document.push_back(kf::toJSON(finding));
    }
    if (!jsonPath.empty()) {
      std::string error;
      auto output = openOutputFile(jsonPath, &error);
      if (!output) {
        getOperation().emitError()
            << "cannot write " << jsonPath << ": " << error;
        return signalPassFailure();
      }
      output->os() << llvm::formatv("{0:2}",
                                    llvm::json::Value(std::move(document)))
                   << "\n";
      output->keep();
    }
    if (!findings.empty())
      signalPassFailure();
  }
};
} // namespace
