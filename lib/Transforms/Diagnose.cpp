//===- Diagnose.cpp - Remarks and JSON from kf's analyses -----------------===//

#include "kf/Analysis/KernelAnalysis.h"
#include "kf/Analysis/ProblemAnalysis.h"
#include "kf/Dialect/KF/KFOps.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace kf {
#define GEN_PASS_DEF_KFDIAGNOSE
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

std::string accessPatternRemark(const kf::MemoryAccess &access) {
  std::string space = kf::stringifyMemorySpace(access.space).str();
  StringRef kind = access.isStore ? "store" : "load";
  StringRef verb = access.isStore ? "write" : "read";
  switch (access.pattern) {
  case kf::AccessPattern::Coalesced:
    return llvm::formatv("coalesced {0} {1}: consecutive threads {2} "
                         "consecutive {3} (stride {4})",
                         space, kind, verb, access.typeName,
                         *access.elementStride)
        .str();
  case kf::AccessPattern::Strided:
    return llvm::formatv("strided {0} {1}: consecutive threads {2} {3} {4} "
                         "elements apart",
                         space, kind, verb, access.typeName,
                         *access.elementStride)
        .str();
  case kf::AccessPattern::Broadcast:
    return llvm::formatv("broadcast {0} {1}: every thread {2}s the same {3}",
                         space, kind, verb, access.typeName)
        .str();
  case kf::AccessPattern::Unknown:
    return llvm::formatv("{0} {1} of {2}: the pattern across threads is "
                         "unknown",
                         space, kind, access.typeName)
        .str();
  }
  llvm_unreachable("unknown pattern");
}

std::string accessRemark(const kf::MemoryAccess &access) {
  std::string text = accessPatternRemark(access);
  if (access.wavefronts)
    text += llvm::formatv(", {0} wavefront(s) per warp",
                          access.wavefronts->wavefronts)
                .str();
  if (access.mergedScalars)
    text += llvm::formatv(", as {0} adjacent scalar accesses the backend "
                          "merges",
                          access.mergedScalars)
                .str();
  return text;
}

std::string dimsString(const std::optional<std::array<int64_t, 3>> &dims) {
  if (!dims)
    return "unknown";
  return llvm::formatv("{0}x{1}x{2}", (*dims)[0], (*dims)[1], (*dims)[2]).str();
}

struct KFDiagnosePass : kf::impl::KFDiagnoseBase<KFDiagnosePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::json::Object document{{"version", 1}};

    // Problem-wide facts, when the module states a problem.
    for (kf::ProblemOp problem : module.getOps<kf::ProblemOp>()) {
      func::FuncOp reference = problem.getReferenceFunc();
      if (!reference)
        continue;
      kf::Ceilings ceilings;
      kf::ProblemAnalysis analysis = kf::analyzeProblem(reference, ceilings);
      problem.emitRemark() << llvm::formatv(
          "problem @{0}: {1} FLOPs, {2} compulsory bytes, {7} bytes as "
          "written, {3:F3} FLOP/byte; roofline floor {4:F3} ms on {5} "
          "({6}-bound)",
          problem.getSymName(), analysis.flops, analysis.minBytes,
          analysis.intensity(), analysis.floorSeconds(ceilings) * 1e3,
          ceilings.device, analysis.floorBound(ceilings), analysis.floorBytes);
      for (const kf::InputPasses &input : analysis.inputPasses)
        if (input.passes > 1)
          problem.emitRemark() << llvm::formatv(
              "input #{0} ({1} bytes, more than L2 holds) is read {2} times: "
              "reductions too large for one block's shared memory must "
              "finish before later uses of it; a one-pass formulation "
              "(online softmax, one-pass variance) would save {3} bytes",
              input.argument, input.bytes, input.passes,
              (input.passes - 1) * input.bytes);
      for (const kf::FusionChance &chance : analysis.fusionChances)
        chance.producer->emitRemark() << llvm::formatv(
            "fusion opportunity: this result ({0} bytes) is written to memory "
            "and read back by the next operation; fusing them saves {1} bytes",
            chance.bytes, 2 * chance.bytes);
      document["problem"] = kf::toJSON(analysis, ceilings);
    }

    llvm::json::Array kernels;
    for (Operation *kernel : kf::KernelAnalysis::findKernels(module)) {
      kf::KernelAnalysis analysis(kernel);
      SmallVector<kf::Finding> findings = kf::diagnoseKernel(analysis);
      ++numKernels;
      numFindings += findings.size();
      unsigned global = llvm::count_if(analysis.accesses, [](auto &access) {
        return access.space == kf::MemorySpace::Global;
      });
      kernel->emitRemark() << llvm::formatv(
          "kernel @{0}: block {1}, grid {2}, {3} bytes of shared memory, {4} "
          "barriers, {5} loops, {6} global accesses",
          analysis.getName(), dimsString(analysis.blockSize),
          dimsString(analysis.gridSize), analysis.sharedBytes,
          analysis.barriers, analysis.loops.size(), global);
      for (const kf::MemoryAccess &access : analysis.accesses)
        access.op->emitRemark() << accessRemark(access);
      for (const kf::Finding &finding : findings) {
        if (finding.severity == "warning")
          finding.op->emitWarning()
              << "[" << finding.kind << "] " << finding.message;
        else
          finding.op->emitRemark()
              << "[" << finding.kind << "] " << finding.message;
      }
      kernels.push_back(kf::toJSON(analysis, findings));
    }
    document["kernels"] = std::move(kernels);

    if (jsonPath.empty())
      return;
    std::string error;
    auto output = openOutputFile(jsonPath, &error);
    if (!output) {
      module.emitError() << "cannot write the diagnosis: " << error;
      return signalPassFailure();
    }
    output->os() << llvm::formatv("{0:2}",
                                  llvm::json::Value(std::move(document)))
                 << "\n";
    output->keep();
  }
};

} // namespace
