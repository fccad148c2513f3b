//===- Pipelines.cpp - kf pass pipelines ----------------------------------===//

#include "kf/Pipelines/Pipelines.h"
#include "kf/Analysis/TargetRequirements.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;

unsigned kf::minimumPTXVersion(StringRef chip) {
  // PTX ISA release notes: the first version supporting each target.
  return llvm::StringSwitch<unsigned>(chip)
      .Cases({"sm_70", "sm_72"}, 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Case("sm_89", 78)
      .Cases({"sm_90", "sm_90a"}, 80)
      .Cases({"sm_100", "sm_100a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Default(0);
}

std::string kf::findCUDAToolkit() {
  auto hasLibDevice = [](StringRef root) {
    return !root.empty() &&
           llvm::sys::fs::exists(root + "/nvvm/libdevice/libdevice.10.bc");
  };
  for (const char *variable : {"KF_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(variable))
      if (hasLibDevice(*value))
        return *value;
  if (hasLibDevice("/usr/local/cuda"))
    return "/usr/local/cuda";
  if (llvm::ErrorOr<std::string> ptxas =
          llvm::sys::findProgramByName("ptxas")) {
    // <toolkit>/bin/ptxas
    StringRef root =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas));
    if (hasLibDevice(root))
      return root.str();
  }
  return "";
}

void kf::buildLowerToPTXPipeline(OpPassManager &pm,
                                 const LowerToPTXOptions &options,
                                 bool serialize) {
  // The target options and the ops against the chip, before anything else.
  pm.addPass(kf::createKFCheckTarget({options.chip, options.ptxVersion}));
  // Host side: outputs become out-parameters (the runtime owns every
  // buffer), self-copies left by bufferization fold away, remaining linalg
  // ops inside launches become loops, and constants move into the launch
  // bodies so that the kernels can fold them.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  OpPassManager &funcPM = pm.nest<func::FuncOp>();
  funcPM.addPass(kf::createKFMaterializeWorkgroupMemory());
  funcPM.addPass(createCSEPass());
  funcPM.addPass(createCanonicalizerPass());
  // After the self-copies are gone: they touch the accumulators' buffer.
  funcPM.addPass(kf::createKFHoistAccumulators());
  funcPM.addPass(kf::createKFLowerScans());
  funcPM.addPass(kf::createKFDistributeReductions());
  funcPM.addPass(createConvertLinalgToLoopsPass());
  // Again on the loops: a naively mapped reduction's accumulator is a
  // scalar load and store in them.
  funcPM.addPass(kf::createKFHoistAccumulators());
  funcPM.addPass(kf::createKFSinkIntoLaunches());
  funcPM.addPass(kf::createKFSwizzleBlockOrder());
  pm.addPass(kf::createKFCheckHostCode());
  pm.addPass(kf::createKFOutlineKernels());
  pm.addPass(kf::createKFMergeKernelModules());

  buildDeviceLoweringPipeline(pm, options, /*barePointers=*/true, serialize);
}

void kf::buildDeviceLoweringPipeline(OpPassManager &pm,
                                     const LowerToPTXOptions &options,
                                     bool barePointers, bool serialize) {
  unsigned ptx = options.ptxVersion ? unsigned(options.ptxVersion)
                                    : minimumPTXVersion(options.chip);
  if (!ptx)
    ptx = std::max(60u, kf::backendMinimumPTXVersion(options.chip));
  // Refusals the NVPTX backend would make by ending the process.
  pm.addPass(kf::createKFCheckTarget({options.chip, options.ptxVersion}));
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = "+ptx" + std::to_string(ptx);
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &gpuPM = pm.nest<gpu::GPUModuleOp>();
  // Epilogue chains row by row, then erf without branches: together they
  // keep a fused epilogue's temporaries to one row (no spills at 128
  // registers with GELU).
  gpuPM.addPass(kf::createKFUnrollElementwiseRows());
  gpuPM.addPass(kf::createKFExpandErf());
  gpuPM.addPass(kf::createKFLowerVectorOps());
  // Transfers that the schedule left n-D become unrolled 1-D accesses (a
  // rolled loop would stage the vector through a stack buffer per iteration).
  VectorTransferToSCFOptions transferOptions;
  transferOptions.enableFullUnroll(true);
  gpuPM.addPass(createConvertVectorToSCFPass(transferOptions));
  // The unrolled transfers become vector loads and stores now, while
  // kf-annotate-vector-alignment can still give them their alignment.
  gpuPM.addPass(
      kf::createKFLowerVectorTransfers({/*loadsAndStoresOnly=*/true}));
  gpuPM.addPass(createSCFToControlFlowPass());
  gpuPM.addPass(memref::createExpandStridedMetadataPass());
  gpuPM.addPass(createLowerAffinePass());
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(kf::createKFAnnotateVectorAlignment());
  if (options.contract)
    gpuPM.addPass(kf::createKFContractFloatOps());
  gpuPM.addPass(kf::createKFNumberAddressSpaces());
  // Asynchronous global-to-shared copies (cp.async) of pipelined kernels,
  // their groups and waits.
  gpuPM.addPass(createConvertNVGPUToNVVMPass());
  // Vector ops the NVVM conversion has no patterns for (multi-dimensional
  // reductions, broadcasts, shape casts) are lowered to 1-D ones here.
  gpuPM.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = barePointers;
  gpuPM.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  gpuPM.addPass(kf::createKFExternDynamicSharedMemory());
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(createCSEPass());
  gpuPM.addPass(createReconcileUnrealizedCastsPass());

  if (serialize)
    buildSerializePipeline(pm, options);
}

void kf::buildSerializePipeline(OpPassManager &pm,
                                const LowerToPTXOptions &options) {
  // gpu-module-to-binary, with backend fatal errors turned into errors.
  KFSerializeKernelsOptions binary;
  binary.format = options.format;
  binary.toolkitPath = options.cudaPath.empty() ? findCUDAToolkit()
                                                : std::string(options.cudaPath);
  pm.addPass(kf::createKFSerializeKernels(binary));
}

void kf::registerKFPipelines() {
  PassPipelineRegistration<LowerToPTXOptions>(
      "kf-lower-to-ptx",
      "Lower a scheduled module (gpu.launch on memrefs) to host launch code "
      "and gpu.binary ops holding PTX (format=isa) or cubin (format=bin)",
      [](OpPassManager &pm, const LowerToPTXOptions &options) {
        buildLowerToPTXPipeline(pm, options, options.serialize);
      });
}
